//! `dls markov`: the wavefront Markov chain of synchronous and asynchronous iterations
//! (Casanova, Thomason & Dongarra 1999) beside its own Monte Carlo simulation.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use dls_model::markov::{
    common_tick, simulate_phases, solve_chain, ChainLimit, ChainResult, Convergence, Discrete,
    Discretisation, MarkovError, MarkovInputs, PhaseMoments, SimulationResult, WARM_UP_PHASES,
};
use serde::Serialize;

use crate::output::{print, CliError};
use dls::{LoopReport, RankReport};

/// Predict the phase time and speed of a synchronous or asynchronous iterative algorithm on p
/// processors from the Markov chain of Casanova, Thomason & Dongarra (1999, eq. 7), and check it
/// against a Monte Carlo simulation of the same process.
///
/// Each processor updates its fixed piece of the solution A_i times (its α sub-phase), sends it
/// to every other processor, and waits for theirs, performing up to B_i more updates meanwhile
/// (β sub-phase). Synchronous iterations are A_i = 1, B_i = 0; each --async adds a variant.
/// Update and message times are discrete distributions: VALUE:PROB,VALUE:PROB,... or one VALUE
/// for a constant; a VALUE is a duration (3ms, 250us, 2s; a bare number is seconds), a PROB a
/// decimal or a fraction (1/3). Every time becomes a whole number of one tick (the largest that
/// divides them all), so the chain's states compare exactly.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls markov --update-time 1:1/2,3:1/2 --update-time 1:1/4,2:3/4 --network 1 --omega 6 --rate 0.05\n  dls markov --p 3 --update-time 2ms:0.5,5ms:0.5 --network 1ms --link 2-0=1ms:0.5,2ms:0.5 --async 1:2\n  dls markov --p 16 --update-time 2ms:0.5,5ms:0.5 --network 1ms:0.5,3ms:0.5 --simulate-only\n  DLS_REPORT=run.jsonl ./my_solver && dls markov --from-report run.jsonl --loop sweep --network 50us\n\nPrinted per variant: the chain's states and pi (up to 12 states), E[Phi] and sd[Phi] (the phase time of rank 0), E[N] (iterations per phase; N = 1 when synchronous, else max_i(A_i + b_i) with b_i the beta updates that end by the last message: this project's convention, the paper leaves it open), Cov[N, Phi], the speed S = E[N]/E[Phi], and with --omega and --rate Theta1 = omega/(S R*) and Level 2's sigma. The simulation's figures stand beside the chain's with their relative difference."
)]
pub(crate) struct MarkovArgs {
    /// p: processors (ranks). Needed when one --update-time is given for all. Example: --p 4
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub p: Option<u64>,

    /// Time of one update of a processor's piece: give it once (every processor, with --p) or
    /// once per processor, rank 0 first. Example: --update-time 2ms:0.5,5ms:0.5
    #[arg(long, value_name = "DIST", value_parser = update_time)]
    pub update_time: Vec<Discrete>,

    /// Message time on every link between two distinct processors (default 0: the processors
    /// start each phase together). Example: --network 1ms:0.5,2ms:0.5
    #[arg(long, value_name = "DIST", value_parser = network)]
    pub network: Option<Discrete>,

    /// Message time from rank FROM to rank TO, overriding --network on that link. Repeatable.
    /// Example: --link 2-0=1ms:0.5,2ms:0.5
    #[arg(long, value_name = "FROM-TO=DIST", value_parser = link)]
    pub link: Vec<Link>,

    /// An asynchronous variant A:B (every processor), or A0,A1,...:B0,B1,... (one per
    /// processor), shown after the synchronous one. Repeatable. Example: --async 1:2
    #[arg(long = "async", value_name = "A:B", value_parser = variant)]
    pub variants: Vec<Variant>,

    /// omega: the error is to be divided by 10^omega (with --rate: Theta1 and sigma).
    /// Example: --omega 6
    #[arg(long, value_name = "OMEGA", requires = "rate")]
    pub omega: Option<f64>,

    /// R*: log10 of the error reduction per iteration, e.g. -log10 rho(A) (with --omega). The
    /// same R* is used for every variant; iterations on stale data usually reduce the error
    /// less, so compare variants with the R* measured for each. Example: --rate 0.05
    #[arg(long, value_name = "R", requires = "omega")]
    pub rate: Option<f64>,

    /// Phases the simulation counts (after 1000 uncounted ones), 1 to 10^9 (a billion phases
    /// take minutes). Example: --samples 1000000
    #[arg(long, value_name = "PHASES", default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub samples: u64,

    /// Seed of the simulation (same seed, same figures). Example: --seed 7
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,

    /// Only simulate: for chains too large to build.
    #[arg(long)]
    pub simulate_only: bool,

    /// Most states of a chain (Lemma B.1's bound (2M+1)^(p-1) is checked before building).
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub max_states: u64,

    /// Most evaluations of eq. 7 in building a chain (states x outcomes per state), and most
    /// steps in building an --async variant's sub-phase distributions (checked first).
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    pub max_work: u64,

    /// Take each processor's update times from a JSON Lines report of repeated loops
    /// (DLS_REPORT=FILE): the work_time_s of rank i in each instance of the loop is one α
    /// sub-phase of processor i (instances in which a rank executed no iterate are left out, and
    /// counted). Each rank's times are cut into --bins groups of equal count, each group becoming
    /// its mean time (the rank's mean is kept exactly), written in whole ticks (--tick).
    /// Example: --from-report run.jsonl
    #[arg(long, value_name = "FILE", conflicts_with_all = ["update_time", "p"])]
    pub from_report: Option<PathBuf>,

    /// With --from-report: the loop whose instances are the phases (needed when the file holds
    /// several loops).
    #[arg(long = "loop", value_name = "NAME", requires = "from_report")]
    pub loop_name: Option<String>,

    /// With --from-report: values per processor (quantile groups of its times).
    #[arg(long, value_name = "BINS", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub bins: u32,

    /// With --from-report: the tick the measured times are rounded to (default: 1/100 of the
    /// smallest value, so rounding moves a value by at most 0.5%). A coarser tick gives fewer
    /// states when message times are given. Example: --tick 100us
    #[arg(long, value_name = "DURATION", requires = "from_report", value_parser = tick)]
    pub tick: Option<f64>,

    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn tick(text: &str) -> Result<f64, String> {
    match dls_model::sim::parse_duration(text, "--tick") {
        // Below a nanosecond (the time unit of the model's inputs) a tick rounds to nothing.
        Ok(t) if (1e-9..=3600.0).contains(&t) => Ok(t),
        Ok(_) => Err(format!(
            "`{text}` is not a tick from 1ns to 1h (e.g. 100us)"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A `--link`: the message time from one rank to another.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    from: usize,
    to: usize,
    time: Discrete,
}

/// An `--async` variant: A_i and B_i, one value for all or one per processor.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Variant {
    a: Vec<u32>,
    b: Vec<u32>,
}

fn update_time(text: &str) -> Result<Discrete, String> {
    Discrete::parse_times(text, "--update-time").map_err(|e| e.to_string())
}

fn network(text: &str) -> Result<Discrete, String> {
    Discrete::parse_times(text, "--network").map_err(|e| e.to_string())
}

fn link(text: &str) -> Result<Link, String> {
    let bad = || {
        format!(
            "`{text}` is not FROM-TO=DIST, two ranks and a distribution (e.g. 2-0=1ms:0.5,2ms:0.5)"
        )
    };
    let (pair, dist) = text.split_once('=').ok_or_else(bad)?;
    let (from, to) = pair.split_once('-').ok_or_else(bad)?;
    let from: usize = from.trim().parse().map_err(|_| bad())?;
    let to: usize = to.trim().parse().map_err(|_| bad())?;
    if from == to {
        return Err(format!(
            "`{text}`: a rank sends to itself in no time (n_i->i = 0); give two distinct ranks"
        ));
    }
    let time = Discrete::parse_times(dist, "--link").map_err(|e| e.to_string())?;
    Ok(Link { from, to, time })
}

fn variant(text: &str) -> Result<Variant, String> {
    let bad = || {
        format!(
            "`{text}` is not A:B (e.g. 1:2, every processor) or A0,A1,...:B0,B1,... (one per \
             processor), with each A >= 1 and B >= 0 whole numbers"
        )
    };
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let list = |s: &str| -> Result<Vec<u32>, String> {
        s.split(',')
            .map(|v| v.trim().parse::<u32>().map_err(|_| bad()))
            .collect()
    };
    let (a, b) = (list(a)?, list(b)?);
    if a.contains(&0) {
        return Err(bad());
    }
    Ok(Variant { a, b })
}

/// A model error as the user sees it: an input is named by its flag.
fn model_error(e: MarkovError) -> CliError {
    match e {
        MarkovError::Invalid { setting, message } => {
            let flag = match setting {
                "a" | "b" => "--async".to_string(),
                "links" => "--link".to_string(),
                other => format!("--{}", other.replace('_', "-")),
            };
            CliError::Message(format!("{flag}: {message}"))
        }
        other => CliError::Message(other.to_string()),
    }
}

/// The inputs in ticks, and where they came from.
struct Setup {
    inputs: MarkovInputs,
    source: String,
}

fn per_processor(list: &[u32], p: usize, what: &str) -> Result<Vec<u32>, CliError> {
    match list.len() {
        1 => Ok(vec![list[0]; p]),
        n if n == p => Ok(list.to_vec()),
        n => Err(CliError::Message(format!(
            "--async: {n} values of {what} for {p} processors; give one for all or one per processor"
        ))),
    }
}

fn setup_from_flags(a: &MarkovArgs) -> Result<Setup, CliError> {
    let given = a.update_time.len();
    let p = match (a.p, given) {
        (_, 0) => {
            return Err(CliError::Message(
                "missing --update-time: give it once (with --p) or once per processor, or \
                 --from-report FILE"
                    .into(),
            ))
        }
        (None, 1) => {
            return Err(CliError::Message(
                "--p: one --update-time is for every processor; say how many with --p".into(),
            ))
        }
        (Some(p), 1) => p as usize,
        (Some(p), n) if n as u64 != p => {
            return Err(CliError::Message(format!(
                "--update-time: given {n} times for --p {p}; give it once or once per processor"
            )))
        }
        (_, n) => n,
    };
    let update_ns: Vec<Discrete> = if given == 1 {
        vec![a.update_time[0].clone(); p]
    } else {
        a.update_time.clone()
    };
    let network_ns = a.network.clone().unwrap_or_else(|| Discrete::constant(0));
    for l in &a.link {
        if l.from >= p || l.to >= p {
            return Err(CliError::Message(format!(
                "--link: {}-{} names a rank >= p = {p} (ranks are 0 to {})",
                l.from,
                l.to,
                p - 1
            )));
        }
    }
    let tick = common_tick(
        update_ns
            .iter()
            .chain(std::iter::once(&network_ns))
            .chain(a.link.iter().map(|l| &l.time)),
    );
    let mut inputs = MarkovInputs::new(
        update_ns.iter().map(|d| d.in_ticks(tick)).collect(),
        network_ns.in_ticks(tick),
        tick as f64 * 1e-9,
    );
    for l in &a.link {
        inputs = inputs.with_link(l.from, l.to, l.time.in_ticks(tick));
    }
    Ok(Setup {
        inputs,
        source: "the command line".into(),
    })
}

fn setup_from_report(a: &MarkovArgs, path: &Path) -> Result<Setup, CliError> {
    // The one reader of report files checks every time (finite, >= 0) and names what is wrong.
    let reports =
        crate::reports::read(path).map_err(|e| CliError::Message(format!("--from-report: {e}")))?;
    let mut loops: BTreeMap<String, Vec<LoopReport>> = BTreeMap::new();
    for r in reports {
        loops.entry(r.name.clone()).or_default().push(r);
    }
    let listing = || {
        loops
            .iter()
            .map(|(n, v)| format!("`{n}` ({} instances)", v.len()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let name = match &a.loop_name {
        Some(n) if loops.contains_key(n) => n.clone(),
        Some(n) => {
            return Err(CliError::Message(format!(
                "--loop: no loop `{n}` in {}; its loops are {}",
                path.display(),
                listing()
            )))
        }
        None if loops.len() == 1 => loops.keys().next().cloned().unwrap_or_default(),
        None if loops.is_empty() => {
            return Err(CliError::Message(format!(
                "--from-report: {} holds no loop report",
                path.display()
            )))
        }
        None => {
            return Err(CliError::Message(format!(
                "--loop: {} holds several loops, {}; choose the repeated one with --loop NAME",
                path.display(),
                listing()
            )))
        }
    };
    let all = &loops[&name];
    let p = all[0].ranks.len();
    if let Some((k, inst)) = all.iter().enumerate().find(|(_, i)| i.ranks.len() != p) {
        return Err(CliError::Message(format!(
            "--from-report: instance {} of loop `{name}` has {} ranks, the first has {p}; \
             the model needs the same processors in every phase",
            k + 1,
            inst.ranks.len()
        )));
    }
    // A rank that executed no iterate did not update its piece: that instance is no phase of
    // the model (a dynamic or first-come schedule handed its share to another rank).
    let instances: Vec<&LoopReport> = all
        .iter()
        .filter(|i| i.ranks.iter().all(|r| r.iterates > 0))
        .collect();
    let skipped = all.len() - instances.len();
    if instances.len() < 2 {
        return Err(CliError::Message(format!(
            "--from-report: loop `{name}` has {} instance(s) in which every rank executed \
             iterates ({} in all); the phase-time distributions need the loop repeated (an \
             iterative solver's sweep, run many times), each rank updating its own piece",
            instances.len(),
            all.len()
        )));
    }
    let mut samples = vec![Vec::with_capacity(instances.len()); p];
    for inst in &instances {
        let mut ranks: Vec<&RankReport> = inst.ranks.iter().collect();
        ranks.sort_by_key(|r| r.rank);
        for (i, r) in ranks.iter().enumerate() {
            samples[i].push(r.work_time_s);
        }
    }
    let disc = Discretisation::from_samples(&samples, a.bins, a.tick).map_err(model_error)?;
    let network = a
        .network
        .as_ref()
        .map(|n| disc.rescale(n))
        .unwrap_or_else(|| Discrete::constant(0));
    let mut inputs = MarkovInputs::new(disc.distributions(), network, disc.tick_s);
    for l in &a.link {
        if l.from >= p || l.to >= p {
            return Err(CliError::Message(format!(
                "--link: {}-{} names a rank >= p = {p} (the report's ranks are 0 to {})",
                l.from,
                l.to,
                p - 1
            )));
        }
        inputs = inputs.with_link(l.from, l.to, disc.rescale(&l.time));
    }
    Ok(Setup {
        inputs,
        source: format!(
            "{}, loop `{name}`: {} instances{}; each rank's work_time_s cut into {} groups of \
             equal count, each its mean time, rounded to the nearest tick ({}; message times \
             rounded to the tick too)",
            path.display(),
            instances.len(),
            if skipped > 0 {
                format!(
                    " ({skipped} of {} left out: a rank executed no iterate in them)",
                    all.len()
                )
            } else {
                String::new()
            },
            a.bins,
            if a.tick.is_some() {
                "--tick"
            } else {
                "1/100 of the smallest value"
            }
        ),
    })
}

/// One variant's figures.
#[derive(Debug, Serialize)]
struct VariantResult {
    name: String,
    a: Vec<u32>,
    b: Vec<u32>,
    /// The chain (absent with --simulate-only).
    chain: Option<ChainResult>,
    simulation: SimulationResult,
    chain_convergence: Option<Convergence>,
    simulation_convergence: Option<Convergence>,
}

#[derive(Debug, Serialize)]
struct MarkovReport {
    p: usize,
    tick_s: f64,
    source: String,
    /// Per processor: (seconds, probability) of one update.
    update_time: Vec<Vec<(f64, f64)>>,
    /// `links[from][to]`: (seconds, probability) of a message.
    links: Vec<Vec<Vec<(f64, f64)>>>,
    variants: Vec<VariantResult>,
}

fn seconds(d: &Discrete, tick_s: f64) -> Vec<(f64, f64)> {
    d.points()
        .iter()
        .map(|&(v, q)| (v as f64 * tick_s, q))
        .collect()
}

/// Runs `dls markov`.
pub(crate) fn run(a: &MarkovArgs) -> Result<(), CliError> {
    let setup = match &a.from_report {
        Some(path) => setup_from_report(a, path)?,
        None => setup_from_flags(a)?,
    };
    let base = setup.inputs;
    base.validate().map_err(model_error)?;
    let p = base.p();
    let mut variants = vec![("synchronous".to_string(), vec![1; p], vec![0; p])];
    for v in &a.variants {
        let av = per_processor(&v.a, p, "A")?;
        let bv = per_processor(&v.b, p, "B")?;
        let name = format!("asynchronous A = {}, B = {}", list(&av), list(&bv));
        variants.push((name, av, bv));
    }
    let limit = ChainLimit {
        max_states: a.max_states as u128,
        max_work: a.max_work as u128,
        ..ChainLimit::default()
    };
    let mut results = Vec::new();
    for (name, av, bv) in variants {
        let inputs = base.clone().with_asynchrony(av.clone(), bv.clone());
        // Bounded before any work (issue 43 N18: `--async 1000000:1000000` ran past 30 s).
        let work = inputs.convolution_work();
        if work > u128::from(a.max_work) {
            return Err(CliError::Message(format!(
                "--async {}:{}: building this variant's sub-phase distributions (sums of up to \
                 A and B + 1 update times) takes about {:.3e} steps, over --max-work {}; \
                 give smaller A and B (the work grows as their squares), or raise --max-work",
                list(&av),
                list(&bv),
                work as f64,
                a.max_work
            )));
        }
        let chain = if a.simulate_only {
            None
        } else {
            Some(solve_chain(&inputs, &limit).map_err(model_error)?)
        };
        let simulation = simulate_phases(&inputs, a.samples, a.seed, false).map_err(model_error)?;
        let level = |m: &PhaseMoments| match (a.omega, a.rate) {
            (Some(w), Some(r)) => m.convergence(w, r).map(Some).map_err(model_error),
            _ => Ok(None),
        };
        let chain_convergence = match &chain {
            Some(c) => level(&c.moments)?,
            None => None,
        };
        let simulation_convergence = level(&simulation.moments)?;
        results.push(VariantResult {
            name,
            a: av,
            b: bv,
            chain,
            simulation,
            chain_convergence,
            simulation_convergence,
        });
    }
    let report = MarkovReport {
        p,
        tick_s: base.tick_s,
        source: setup.source,
        update_time: base
            .update_time
            .iter()
            .map(|d| seconds(d, base.tick_s))
            .collect(),
        links: base
            .links
            .iter()
            .map(|row| row.iter().map(|d| seconds(d, base.tick_s)).collect())
            .collect(),
        variants: results,
    };
    if a.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::Message(format!("cannot write JSON: {e}")))?;
        return print(&format!("{text}\n"));
    }
    print(&to_text(&report, &base))
}

fn list(v: &[u32]) -> String {
    if v.iter().all(|&x| x == v[0]) {
        v[0].to_string()
    } else {
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }
}

/// A number to 7 significant digits without trailing zeros.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-6..=12).contains(&magnitude) {
        return format!("{x:.6e}");
    }
    let decimals = (6 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A time with the unit that suits its size, to 7 significant digits.
fn time(s: f64) -> String {
    let (scale, unit) = match s.abs() {
        x if x == 0.0 || x >= 1.0 => (1.0, "s"),
        x if x >= 1e-3 => (1e3, "ms"),
        x if x >= 1e-6 => (1e6, "us"),
        _ => (1e9, "ns"),
    };
    format!("{}{unit}", num(s * scale))
}

fn dist_text(points: &[(f64, f64)]) -> String {
    if points.len() == 1 {
        return time(points[0].0);
    }
    points
        .iter()
        .map(|&(v, q)| format!("{} ({})", time(v), num(q)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn to_text(r: &MarkovReport, inputs: &MarkovInputs) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Wavefront Markov chain of Casanova, Thomason & Dongarra (1999), p = {} processors",
        r.p
    );
    let _ = writeln!(s, "inputs from {}", r.source);
    let _ = writeln!(
        s,
        "tick: {} (every time is a whole number of ticks)",
        time(r.tick_s)
    );
    for (i, u) in r.update_time.iter().enumerate() {
        let _ = writeln!(s, "  update time, rank {i}: {}", dist_text(u));
    }
    // Message times: the most common distribution once, the others by link.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (j, row) in r.links.iter().enumerate() {
        for (i, d) in row.iter().enumerate() {
            if i != j {
                *counts.entry(dist_text(d)).or_default() += 1;
            }
        }
    }
    if let Some((common, _)) = counts.iter().max_by_key(|e| e.1) {
        let _ = writeln!(s, "  message time, every link: {common}");
        for (j, row) in r.links.iter().enumerate() {
            for (i, d) in row.iter().enumerate() {
                if i != j && &dist_text(d) != common {
                    let _ = writeln!(s, "  message time, {j} -> {i}: {}", dist_text(d));
                }
            }
        }
    }
    let size = inputs.size();
    let _ = writeln!(
        s,
        "chain size: M = {} ticks (Lemma B.1: |X_i| <= M), at most {} states x {} outcomes per state",
        size.m, size.states_bound, size.outcomes
    );
    for v in &r.variants {
        let _ = writeln!(s);
        let states = v
            .chain
            .as_ref()
            .map_or("chain not built (--simulate-only)".to_string(), |c| {
                format!("{} states", c.states.len())
            });
        let _ = writeln!(s, "{}: {states}", v.name);
        if let Some(c) = &v.chain {
            if c.states.len() <= 12 {
                let _ = writeln!(s, "  pi (wavefront in ticks):");
                for (x, pi) in c.states.iter().zip(&c.pi) {
                    let xs: Vec<String> = x.iter().map(i64::to_string).collect();
                    let _ = writeln!(s, "    ({}) {}", xs.join(", "), num(*pi));
                }
            }
        }
        let sim = &v.simulation.moments;
        let chain = v.chain.as_ref().map(|c| c.moments);
        let mut rows: Vec<(&str, Option<f64>, f64)> = vec![
            ("E[Phi] (s)", chain.map(|m| m.mean_phi), sim.mean_phi),
            ("sd[Phi] (s)", chain.map(|m| m.sd_phi()), sim.sd_phi()),
            (
                "E[N] (iterations/phase)",
                chain.map(|m| m.mean_n),
                sim.mean_n,
            ),
            (
                "sd[N]",
                chain.map(|m| m.var_n.sqrt()),
                sim.var_n.max(0.0).sqrt(),
            ),
            ("Cov[N, Phi] (s)", chain.map(|m| m.cov_n_phi), sim.cov_n_phi),
            (
                "S = E[N]/E[Phi] (iterations/s)",
                chain.map(|m| m.speed()),
                sim.speed(),
            ),
        ];
        if let Some(sc) = &v.simulation_convergence {
            let cc = v.chain_convergence.as_ref();
            rows.push((
                "iterations omega/R*",
                cc.map(|c| c.iterations),
                sc.iterations,
            ));
            rows.push(("Theta1 (s, Level 1)", cc.map(|c| c.theta1), sc.theta1));
            rows.push(("sigma (s, Level 2)", cc.map(|c| c.sigma), sc.sigma));
        }
        let _ = writeln!(
            s,
            "  {:<32} {:>14} {:>14} {:>11}",
            "figure", "chain", "simulation", "difference"
        );
        for (what, c, m) in rows {
            let (ct, dt) = match c {
                Some(c) => {
                    let diff = if c == m {
                        "0%".to_string()
                    } else if c != 0.0 {
                        format!("{:+.3}%", 100.0 * (m - c) / c.abs())
                    } else {
                        "-".to_string()
                    };
                    (num(c), diff)
                }
                None => ("-".to_string(), "-".to_string()),
            };
            let _ = writeln!(s, "  {what:<32} {ct:>14} {:>14} {dt:>11}", num(m));
        }
        let _ = writeln!(
            s,
            "  simulation: {} phases after {} uncounted, seed {}",
            v.simulation.phases, WARM_UP_PHASES, v.simulation.seed
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_variants_parse() {
        let l = link("2-0=1ms:0.5,2ms:0.5").unwrap();
        assert_eq!((l.from, l.to, l.time.points().len()), (2, 0, 2));
        assert!(link("1-1=1ms").unwrap_err().contains("distinct"));
        assert!(link("1=1ms").unwrap_err().contains("FROM-TO=DIST"));
        assert_eq!(
            variant("1:2").unwrap(),
            Variant {
                a: vec![1],
                b: vec![2]
            }
        );
        assert_eq!(variant("1,2:0,3").unwrap().b, vec![0, 3]);
        assert!(variant("0:1").is_err());
        assert!(variant("1").is_err());
    }
}
