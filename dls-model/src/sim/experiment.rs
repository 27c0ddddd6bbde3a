//! Reproduction of Hummel, Schonberg & Flynn, "Factoring: a method for scheduling parallel
//! loops", CACM 35(8), 1992: STATIC, SS, GSS and FAC (and FAC2) on loops whose iterate times
//! vary, across a grid of variance and scheduling overhead.
//!
//! Each cell of the grid is a coefficient of variation `cov` of the iterate time (sd / mean; the
//! iterate times are gamma distributed, constant for cov = 0, exponential for cov = 1) and an
//! overhead `h` given relative to the mean iterate time. Every technique runs the same
//! `replications` loops (common random numbers: replication i uses seed `seed + i` for every
//! technique); a cell reports the mean of makespan / lower bound and of efficiency. As in the
//! paper, the overhead is paid per chunk by the rank that takes it ([`ServiceModel::Parallel`]);
//! with dls's central scheduler ([`ServiceModel::Serial`]) requests also queue, which punishes
//! every technique with many chunks once `P·h` nears the chunk execution time. Their
//! qualitative finding, which the tests assert: FAC holds up when overhead matters, SS collapses
//! under overhead, STATIC collapses under variance.

use std::fmt;

use super::config::SimConfig;
use super::engine::simulate;
use super::error::SimError;
use super::iterate_time::IterateTimeModel;
use super::service::ServiceModel;
use crate::technique::Kind;
use crate::Technique;

/// The grid of the experiment. [`HsfGrid::default`] is the published comparison at a size that
/// runs in well under a second.
///
/// ```
/// use dls_model::sim::HsfGrid;
/// let grid = HsfGrid { covs: vec![2.0], overheads: vec![0.0], replications: 2, ..HsfGrid::default() };
/// let table = grid.run().unwrap();
/// let fac = table.ratio(2.0, 0.0, "fac").unwrap();
/// let stat = table.ratio(2.0, 0.0, "static").unwrap();
/// assert!(stat > fac);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HsfGrid {
    /// Iterates per loop.
    pub n: u64,
    /// Ranks.
    pub p: usize,
    /// Mean iterate time, seconds.
    pub mean_s: f64,
    /// Coefficients of variation of the iterate time (rows).
    pub covs: Vec<f64>,
    /// Scheduling overheads h relative to the mean iterate time (columns).
    pub overheads: Vec<f64>,
    /// Techniques compared.
    pub techniques: Vec<Kind>,
    /// Loops simulated per cell and technique.
    pub replications: u32,
    /// Seed of the first replication.
    pub seed: u64,
    /// How chunk requests are served: [`ServiceModel::Parallel`] (each chunk adds h to the rank
    /// that takes it) is the paper's model; [`ServiceModel::Serial`] is dls's central scheduler.
    pub service: ServiceModel,
}

impl Default for HsfGrid {
    /// n = 16384, p = 16, mean 1 ms, cov ∈ {0, 0.5, 1, 2}, h/mean ∈ {0, 0.01, 0.1, 1},
    /// STATIC, SS, GSS, FAC, FAC2, 5 replications, seed 1, parallel service (the paper's model).
    fn default() -> Self {
        HsfGrid {
            n: 16_384,
            p: 16,
            mean_s: 1e-3,
            covs: vec![0.0, 0.5, 1.0, 2.0],
            overheads: vec![0.0, 0.01, 0.1, 1.0],
            techniques: vec![Kind::Static, Kind::Ss, Kind::Gss, Kind::Fac, Kind::Fac2],
            replications: 5,
            seed: 1,
            service: ServiceModel::Parallel,
        }
    }
}

impl HsfGrid {
    /// The technique as run in a cell: a technique whose parameters include both `mu` and
    /// `sigma` (FAC, TAP) is given the model's mean and standard deviation (as in the paper, FAC
    /// knows mu and sigma); a zero sigma is replaced by 1e-9 × mean because technique parameters
    /// must be positive. Other techniques take no parameter.
    ///
    /// ```
    /// use dls_model::{sim::HsfGrid, technique::Kind};
    /// let t = HsfGrid::default().technique(Kind::Fac, 2.0);
    /// assert_eq!((t.params.mu, t.params.sigma), (Some(1e-3), Some(2e-3)));
    /// ```
    pub fn technique(&self, kind: Kind, cov: f64) -> Technique {
        let mut t = Technique::new(kind);
        let takes = |name: &str| kind.entry().params.iter().any(|p| p.name == name);
        if takes("mu") && takes("sigma") {
            t.params.mu = Some(self.mean_s);
            t.params.sigma = Some((cov * self.mean_s).max(1e-9 * self.mean_s));
        }
        t
    }

    /// The technique as run in the cell of `cov` and `overhead`: [`technique`](Self::technique),
    /// and a technique that takes the overhead `h` together with `mu` (BOLD) is also given the
    /// cell's overhead, `h = overhead × mean` (1e-9 × mean when the overhead is 0, since
    /// technique parameters must be positive).
    ///
    /// ```
    /// use dls_model::{sim::HsfGrid, technique::Kind};
    /// let t = HsfGrid::default().technique_in_cell(Kind::Bold, 1.0, 0.1);
    /// assert_eq!((t.params.mu, t.params.h), (Some(1e-3), Some(1e-4)));
    /// assert_eq!(HsfGrid::default().technique_in_cell(Kind::Fac, 1.0, 0.1).params.h, None);
    /// ```
    pub fn technique_in_cell(&self, kind: Kind, cov: f64, overhead: f64) -> Technique {
        let mut t = self.technique(kind, cov);
        let takes = |name: &str| kind.entry().params.iter().any(|p| p.name == name);
        if takes("h") && takes("mu") {
            t.params.h = Some((overhead * self.mean_s).max(1e-9 * self.mean_s));
        }
        t
    }

    /// Runs every cell. Errors if a setting is invalid (e.g. p = 0).
    ///
    /// ```
    /// let g = dls_model::sim::HsfGrid { n: 256, p: 4, replications: 1, ..Default::default() };
    /// assert_eq!(g.run().unwrap().cells.len(), 16);
    /// ```
    pub fn run(&self) -> Result<HsfTable, SimError> {
        if self.replications == 0 {
            return Err(SimError::new("--replications: must be at least 1"));
        }
        if !(self.mean_s.is_finite() && self.mean_s > 0.0) {
            return Err(SimError::new("--mean: the mean iterate time must be > 0"));
        }
        let mut cells = Vec::new();
        for &cov in &self.covs {
            if !(cov.is_finite() && cov >= 0.0) {
                return Err(SimError::new(format!(
                    "--covs: {cov} is not a finite value >= 0"
                )));
            }
            for &overhead in &self.overheads {
                if !(overhead.is_finite() && overhead >= 0.0) {
                    return Err(SimError::new(format!(
                        "--overheads: {overhead} is not a finite value >= 0"
                    )));
                }
                let mut ratio = Vec::new();
                let mut efficiency = Vec::new();
                for &kind in &self.techniques {
                    let (mut r_sum, mut e_sum) = (0.0, 0.0);
                    for rep in 0..self.replications {
                        let mut c = SimConfig::new(
                            self.technique_in_cell(kind, cov, overhead),
                            self.n,
                            self.p,
                        );
                        c.iterate_time = IterateTimeModel::with_cov(self.mean_s, cov);
                        c.overhead_s = overhead * self.mean_s;
                        c.seed = self.seed.wrapping_add(rep as u64);
                        c.service = self.service;
                        let out = simulate(&c)?;
                        r_sum += out.makespan_over_lower_bound();
                        e_sum += out.report.efficiency;
                    }
                    ratio.push(r_sum / self.replications as f64);
                    efficiency.push(e_sum / self.replications as f64);
                }
                cells.push(HsfCell {
                    cov,
                    overhead,
                    ratio,
                    efficiency,
                });
            }
        }
        Ok(HsfTable {
            grid: self.clone(),
            techniques: self
                .techniques
                .iter()
                .map(|k| k.name().to_string())
                .collect(),
            cells,
        })
    }
}

/// One cell of the grid: a variance and an overhead, one figure per technique.
///
/// ```
/// let c = dls_model::sim::experiment::HsfCell { cov: 1.0, overhead: 0.1,
///     ratio: vec![1.2, 1.1], efficiency: vec![0.8, 0.9] };
/// assert_eq!(c.best_ratio(), 1.1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HsfCell {
    /// Coefficient of variation of the iterate time.
    pub cov: f64,
    /// Overhead h relative to the mean iterate time.
    pub overhead: f64,
    /// Mean makespan / lower bound, per technique (order of [`HsfTable::techniques`]).
    pub ratio: Vec<f64>,
    /// Mean efficiency, per technique.
    pub efficiency: Vec<f64>,
}

impl HsfCell {
    /// The smallest makespan / lower bound of the cell.
    ///
    /// ```
    /// let c = dls_model::sim::experiment::HsfCell { cov: 0.0, overhead: 0.0,
    ///     ratio: vec![1.5, 1.25], efficiency: vec![0.6, 0.8] };
    /// assert_eq!(c.best_ratio(), 1.25);
    /// ```
    pub fn best_ratio(&self) -> f64 {
        self.ratio.iter().cloned().fold(f64::INFINITY, f64::min)
    }
}

/// The result of [`HsfGrid::run`]. `Display` prints makespan / lower bound per cell and
/// technique (best of the row marked `*`), then efficiency.
///
/// ```
/// let g = dls_model::sim::HsfGrid { n: 256, p: 4, replications: 1, ..Default::default() };
/// let t = g.run().unwrap();
/// assert!(t.to_string().contains("fac2"));
/// assert!(t.ratio(0.0, 1.0, "ss").unwrap() > t.ratio(0.0, 1.0, "fac2").unwrap());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HsfTable {
    /// The grid that produced the table.
    pub grid: HsfGrid,
    /// Technique names (columns).
    pub techniques: Vec<String>,
    /// Cells, variance-major.
    pub cells: Vec<HsfCell>,
}

impl HsfTable {
    /// The cell of a variance and an overhead (exact values of the grid).
    ///
    /// ```
    /// let g = dls_model::sim::HsfGrid { n: 64, p: 2, covs: vec![1.0], overheads: vec![0.1],
    ///     replications: 1, ..Default::default() };
    /// let t = g.run().unwrap();
    /// assert_eq!(t.cell(1.0, 0.1).unwrap().ratio.len(), 5);
    /// assert!(t.cell(2.0, 0.1).is_none());
    /// ```
    pub fn cell(&self, cov: f64, overhead: f64) -> Option<&HsfCell> {
        self.cells
            .iter()
            .find(|c| c.cov == cov && c.overhead == overhead)
    }

    /// Mean makespan / lower bound of `technique` in a cell.
    ///
    /// ```
    /// let g = dls_model::sim::HsfGrid { n: 64, p: 2, covs: vec![1.0], overheads: vec![0.1],
    ///     replications: 1, ..Default::default() };
    /// let t = g.run().unwrap();
    /// assert!(t.ratio(1.0, 0.1, "gss").unwrap() >= 1.0);
    /// assert!(t.ratio(1.0, 0.1, "nope").is_none());
    /// ```
    pub fn ratio(&self, cov: f64, overhead: f64, technique: &str) -> Option<f64> {
        let i = self.techniques.iter().position(|t| t == technique)?;
        self.cell(cov, overhead).map(|c| c.ratio[i])
    }

    /// Mean efficiency of `technique` in a cell.
    ///
    /// ```
    /// let g = dls_model::sim::HsfGrid { n: 64, p: 2, covs: vec![1.0], overheads: vec![0.1],
    ///     replications: 1, ..Default::default() };
    /// let t = g.run().unwrap();
    /// assert!(t.efficiency(1.0, 0.1, "ss").unwrap() <= 1.0);
    /// ```
    pub fn efficiency(&self, cov: f64, overhead: f64, technique: &str) -> Option<f64> {
        let i = self.techniques.iter().position(|t| t == technique)?;
        self.cell(cov, overhead).map(|c| c.efficiency[i])
    }
}

impl fmt::Display for HsfTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.grid;
        writeln!(
            f,
            "Hummel, Schonberg & Flynn (CACM 1992) grid: n = {}, p = {}, mean iterate {}, \
             gamma iterate times, {} service, {} replication(s) per cell",
            g.n,
            g.p,
            super::format_duration(g.mean_s),
            g.service,
            g.replications
        )?;
        for (title, pick, best_is_min) in [
            (
                "makespan / lower bound (1 is perfect; * best of the row)",
                0usize,
                true,
            ),
            (
                "efficiency = total work / (p x makespan) (* best of the row)",
                1,
                false,
            ),
        ] {
            writeln!(f, "\n{title}")?;
            let widths: Vec<usize> = self.techniques.iter().map(|t| t.len().max(9)).collect();
            write!(f, "{:>6} {:>8}", "cov", "h/mean")?;
            for (t, w) in self.techniques.iter().zip(&widths) {
                write!(f, " {t:>w$}")?;
            }
            writeln!(f)?;
            for c in &self.cells {
                let v = if pick == 0 { &c.ratio } else { &c.efficiency };
                let best = if best_is_min {
                    v.iter().cloned().fold(f64::INFINITY, f64::min)
                } else {
                    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                };
                write!(f, "{:>6} {:>8}", c.cov, c.overhead)?;
                for (&x, w) in v.iter().zip(&widths) {
                    let mark = if x == best { "*" } else { " " };
                    write!(f, " {x:>w$.3}{mark}", w = w - 1)?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
