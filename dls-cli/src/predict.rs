//! `dls predict`: the run time of a parallel-pipeline reduction, from the model of Kuntraruk,
//! Pottenger & Ross (2005), with every intermediate value.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use dls_model::pipeline_model::{
    own_estimates, parse_quantity, predict, ModelError, OwnEstimates, PaperExample, PipelineInputs,
    PipelineSize, Prediction, Rounding, Units,
};
use serde::Serialize;

use crate::output::{print, CliError};
use dls::LoopReport;

/// Predict the run time of N tasks reduced by a parallel pipeline of P ranks (Kuntraruk,
/// Pottenger & Ross 2005, eq. 6, with the M/M/1 network delays of eqs. 7-11).
///
/// A task yields one partial result (in dls: one chunk); P/2 ranks compute while the other P/2
/// merge, and partial results climb a binary tree of lg P levels to rank P-1. The command prints
/// every intermediate number (steps, each hop's arrival rate, utilisation rho and delay, T_Comm,
/// the compute, communication and drain terms) and the conventions used.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls predict --n 512 --p 8 --t-comp 1.39 --message-bytes 8M --capacity 1.28G\n  dls predict --n 4096 --groups 8 --p 16 --t-comp 0.15 --message-bytes 23720 --capacity 1.28e9 --drain\n  dls predict --paper eq13\n  DLS_REPORT=run.jsonl ./my_program && dls predict --from-report run.jsonl --capacity 10G\n\nT_Total = (steps + 1) x T_Comp + steps x T_Comm [+ lg P x T_Merge + lg P x T_Comm with --drain], steps = ceil((N/G - P) / (P/2)). Each hop k of the path receives fan_in_k messages per T_Comp: rho_k = fan_in_k x (L x 8 / C) / T_Comp, D_k = (L x 8 / C) / (1 - rho_k) + tau, T_Comm = sum of D_k. A hop with rho >= 1 is an error naming it. The paper prints 208.03 s for eq. 13 (--paper eq13): only each hop's delay cut to two decimals gives it; the exact formula gives 209.0633 (decimal units) or 207.6923 (binary)."
)]
pub(crate) struct PredictArgs {
    /// N: tasks in all (in dls, chunks). Example: --n 512
    #[arg(long, value_name = "N")]
    pub n: Option<u64>,

    /// P: ranks of one pipeline, a power of two >= 2. Example: --p 8
    #[arg(long, value_name = "P")]
    pub p: Option<u64>,

    /// T_Comp: seconds of one task. Example: --t-comp 1.39
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub t_comp: Option<f64>,

    /// L: bytes of one message (one partial result), with an optional prefix k, M, G or T read
    /// as --units says. Example: --message-bytes 8M (or 8e6)
    #[arg(long, value_name = "BYTES", value_parser = quantity)]
    pub message_bytes: Option<String>,

    /// C: capacity of a link in bit/s, with an optional prefix k, M, G or T read as --units says.
    /// Example: --capacity 1.28G (or 1.28e9)
    #[arg(long, value_name = "BIT/S", value_parser = quantity)]
    pub capacity: Option<String>,

    /// G: pipelines side by side, each on N/G of the tasks (rounded up). Example: --groups 8
    #[arg(long, value_name = "G", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub groups: u64,

    /// T_Merge: seconds of one merge, used by the drain terms (default: T_Comp, as the paper).
    /// Example: --t-merge 0.2
    #[arg(long, value_name = "SECONDS", value_parser = non_negative_seconds)]
    pub t_merge: Option<f64>,

    /// tau: propagation delay of each hop, seconds (the paper: 0). Example: --tau 5e-6
    #[arg(long, value_name = "SECONDS", default_value = "0", value_parser = non_negative_seconds)]
    pub tau: f64,

    /// Add eq. 6's drain terms lg P x T_Merge + lg P x T_Comm (the paper's worked examples leave
    /// them out).
    #[arg(long)]
    pub drain: bool,

    /// How the prefixes k, M, G, T of --message-bytes and --capacity are read: decimal (1e3, 1e6,
    /// 1e9, 1e12) or binary (2^10, 2^20, 2^30, 2^40).
    #[arg(long, value_name = "UNITS", default_value = "decimal", value_parser = units)]
    pub units: Units,

    /// What is done to each hop's delay before summing: none (exact), hop-2dp (rounded to two
    /// decimals) or hop-2dp-trunc (truncated to two decimals).
    #[arg(long, value_name = "MODE", default_value = "none", value_parser = rounding)]
    pub rounding: Rounding,

    /// Arrival multiplier of each hop of the path, comma-separated (messages into the hop per
    /// T_Comp). Default: 8,16,8, the paper's leaf-spine-leaf path. Example: --fan-ins 4,4
    #[arg(long, value_name = "F1,F2,...", value_parser = fan_ins)]
    pub fan_ins: Option<FanIns>,

    /// Reproduce a worked example of the paper (eq12 or eq13) under every convention, beside the
    /// value the paper prints.
    #[arg(long, value_name = "EXAMPLE", value_parser = paper,
          conflicts_with_all = ["n", "p", "t_comp", "message_bytes", "capacity", "groups", "t_merge", "tau", "drain", "units", "rounding", "fan_ins", "from_report"])]
    pub paper: Option<PaperExample>,

    /// Take N (chunks), P (p) and T_Comp (sequential_cost_s / chunks), and T_Merge and L from a
    /// loop's "reduction" object when present, from a JSON Lines report written with
    /// DLS_REPORT=FILE. Flags given as well override the report. Example: --from-report run.jsonl
    #[arg(long, value_name = "FILE")]
    pub from_report: Option<PathBuf>,

    /// With --from-report: only the loops of this name (default: every loop of the file).
    #[arg(long = "loop", value_name = "NAME", requires = "from_report")]
    pub loop_name: Option<String>,

    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The value of `--fan-ins` (a newtype, so that clap takes the list as one value).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FanIns(pub Vec<f64>);

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not a number of seconds > 0 (e.g. 1.39)"
        )),
    }
}

fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not a number of seconds >= 0 (e.g. 0.2)"
        )),
    }
}

/// Checks the syntax now (so that clap names the flag); the value is read once --units is known.
fn quantity(text: &str) -> Result<String, String> {
    parse_quantity(text, Units::Decimal).map(|_| text.to_string())
}

fn units(text: &str) -> Result<Units, String> {
    text.parse()
}

fn rounding(text: &str) -> Result<Rounding, String> {
    text.parse()
}

fn paper(text: &str) -> Result<PaperExample, String> {
    text.parse()
}

fn fan_ins(text: &str) -> Result<FanIns, String> {
    let values: Result<Vec<f64>, ()> = text
        .split(',')
        .map(|s| match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
            _ => Err(()),
        })
        .collect();
    match values {
        Ok(v) if !v.is_empty() => Ok(FanIns(v)),
        _ => Err(format!(
            "`{text}` is not a list of numbers > 0, one per hop, comma-separated (e.g. 8,16,8)"
        )),
    }
}

/// A model error as the user sees it: a setting is named by its flag.
fn model_error(e: ModelError) -> CliError {
    match e {
        ModelError::Invalid { setting, message } => {
            CliError::Message(format!("--{}: {message}", setting.replace('_', "-")))
        }
        other => CliError::Message(other.to_string()),
    }
}

/// Runs `dls predict`.
pub(crate) fn run(a: &PredictArgs) -> Result<(), CliError> {
    if let Some(example) = a.paper {
        return run_paper(example, a.json);
    }
    if let Some(path) = &a.from_report {
        return run_report(a, path);
    }
    let missing: Vec<&str> = [
        ("--n", a.n.is_none()),
        ("--p", a.p.is_none()),
        ("--t-comp", a.t_comp.is_none()),
        ("--message-bytes", a.message_bytes.is_none()),
        ("--capacity", a.capacity.is_none()),
    ]
    .into_iter()
    .filter_map(|(flag, absent)| absent.then_some(flag))
    .collect();
    if !missing.is_empty() {
        return Err(CliError::Message(format!(
            "missing {}: give --n, --p, --t-comp, --message-bytes and --capacity, or \
             --paper eq12|eq13, or --from-report FILE",
            missing.join(", ")
        )));
    }
    let mut sources = Sources::default();
    let inputs = a.inputs(
        a.n.unwrap_or_default(),
        a.p.unwrap_or_default(),
        a.t_comp.unwrap_or_default(),
        &mut sources,
    )?;
    let inputs = PipelineInputs {
        message_bytes: a.quantity_of(&a.message_bytes, "--message-bytes")?,
        ..inputs
    };
    sources.t_merge = match a.t_merge {
        Some(_) => "--t-merge".into(),
        None => "= T_Comp, as the paper; --t-merge sets it".into(),
    };
    let e = Evaluation::new(None, inputs, a.units, sources, None)?;
    if a.json {
        print_json(&e)
    } else {
        print(&e.to_text())
    }
}

impl PredictArgs {
    /// The inputs from the flags, given N, P and T_Comp; `message_bytes` is left at 0.
    fn inputs(
        &self,
        n: u64,
        p: u64,
        t_comp: f64,
        sources: &mut Sources,
    ) -> Result<PipelineInputs, CliError> {
        let mut i = PipelineInputs::new(n, p, t_comp, 0.0, 0.0);
        i.capacity = self.quantity_of(&self.capacity, "--capacity")?;
        i.groups = self.groups;
        i.t_merge = self.t_merge;
        i.tau = self.tau;
        i.drain = self.drain;
        i.rounding = self.rounding;
        if let Some(f) = &self.fan_ins {
            i.fan_ins = f.0.clone();
            sources.fan_ins = "--fan-ins".into();
        } else {
            sources.fan_ins = "the paper's leaf-spine-leaf path".into();
        }
        Ok(i)
    }

    fn quantity_of(&self, text: &Option<String>, flag: &str) -> Result<f64, CliError> {
        let text = text
            .as_deref()
            .ok_or_else(|| CliError::Message(format!("{flag} is missing")))?;
        parse_quantity(text, self.units).map_err(|e| CliError::Message(format!("{flag}: {e}")))
    }
}

/// Where each input came from, for the text output.
#[derive(Debug, Default, Clone, Serialize)]
struct Sources {
    n: String,
    p: String,
    t_comp: String,
    t_merge: String,
    message_bytes: String,
    fan_ins: String,
}

/// One prediction with what it needs for printing.
#[derive(Debug, Serialize)]
struct Evaluation {
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    loop_name: Option<String>,
    units: Units,
    inputs: PipelineInputs,
    prediction: Prediction,
    /// The project's own estimates of master and tree reductions on the same G x P ranks.
    own_estimates: OwnEstimates,
    speedup_parallel: f64,
    speedup_overall: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<Measured>,
    #[serde(skip)]
    sources: Sources,
}

/// What the report says the loop took.
#[derive(Debug, Clone, Serialize)]
struct Measured {
    parallel_time_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    strategy: Option<String>,
}

impl Evaluation {
    fn new(
        loop_name: Option<String>,
        inputs: PipelineInputs,
        units: Units,
        sources: Sources,
        measured: Option<Measured>,
    ) -> Result<Self, CliError> {
        let prediction = predict(&inputs).map_err(model_error)?;
        let size = PipelineSize::new(prediction.p).map_err(model_error)?;
        let own = own_estimates(
            inputs.n,
            inputs.p * inputs.groups,
            inputs.t_comp,
            prediction.t_merge,
            prediction.t_comm,
        );
        Ok(Evaluation {
            loop_name,
            units,
            inputs,
            prediction,
            own_estimates: own,
            speedup_parallel: size.speedup_parallel(),
            speedup_overall: size.speedup_overall(),
            measured,
            sources,
        })
    }

    fn to_text(&self) -> String {
        let (i, p, s) = (&self.inputs, &self.prediction, &self.sources);
        let mut t = String::new();
        if let Some(name) = &self.loop_name {
            let _ = writeln!(t, "loop `{name}`:");
        }
        let _ = writeln!(
            t,
            "run time of a parallel-pipeline reduction (Kuntraruk, Pottenger & Ross 2005, eq. 6)"
        );
        let _ = writeln!(
            t,
            "conventions: units {} ({}), rounding {} ({}), drain {}",
            self.units,
            units_meaning(self.units),
            p.rounding,
            rounding_meaning(p.rounding),
            if p.drain {
                "on (lg P x T_Merge + lg P x T_Comm added)"
            } else {
                "off (as the paper's worked examples; --drain adds it)"
            }
        );
        let _ = writeln!(t, "inputs:");
        let _ = writeln!(
            t,
            "  N = {} tasks{}, G = {} group(s), N per group = ceil(N/G) = {}",
            p.n,
            paren(&s.n),
            p.groups,
            p.n_per_group
        );
        let _ = writeln!(
            t,
            "  P = {} ranks per pipeline{}, lg P = {}, pipeline depth 2 lg P + 1 = {}",
            p.p,
            paren(&s.p),
            p.lg_p,
            p.depth
        );
        let _ = writeln!(t, "  T_Comp = {} s{}", num(p.t_comp), paren(&s.t_comp));
        let _ = writeln!(t, "  T_Merge = {} s{}", num(p.t_merge), paren(&s.t_merge));
        let _ = writeln!(
            t,
            "  L = {} bytes{}, C = {} bit/s, L x 8 / C = {} s, tau = {} s",
            num(i.message_bytes),
            paren(&s.message_bytes),
            num(i.capacity),
            num(p.wire_time),
            num(i.tau)
        );
        let fan: Vec<String> = i.fan_ins.iter().map(|f| num(*f)).collect();
        let _ = writeln!(t, "  fan-ins {}{}", fan.join(","), paren(&s.fan_ins));
        let _ = writeln!(
            t,
            "steps = ceil((N/G - P) / (P/2)) = {}; levels until rank P-1 holds the result = steps + lg P = {}",
            p.steps, p.levels
        );
        let _ = writeln!(
            t,
            "hops (M/M/1, eq. 7: lambda = fan-in / T_Comp, rho = lambda x L x 8 / C, D = (L x 8 / C) / (1 - rho) + tau):"
        );
        let _ = writeln!(
            t,
            "  {:<8} {:>8} {:>14} {:>12} {:>14} {:>14}",
            "hop", "fan-in", "lambda_1/s", "rho", "D_exact_s", "D_used_s"
        );
        for h in &p.hops {
            let _ = writeln!(
                t,
                "  {:<8} {:>8} {:>14} {:>12} {:>14} {:>14}",
                h.name,
                num(h.fan_in),
                num(h.arrival_rate),
                num(h.utilisation),
                num(h.exact_delay),
                num(h.delay)
            );
        }
        let _ = writeln!(t, "T_Comm = sum of D_used = {} s (eq. 11)", num(p.t_comm));
        let _ = writeln!(
            t,
            "compute term (steps + 1) x T_Comp = {} s",
            num(p.compute_term)
        );
        let _ = writeln!(t, "comm term steps x T_Comm = {} s", num(p.comm_term));
        if p.drain {
            let _ = writeln!(
                t,
                "drain term lg P x T_Merge + lg P x T_Comm = {} s",
                num(p.drain_term)
            );
        } else {
            let _ = writeln!(t, "drain term = 0 s (drain off)");
        }
        let _ = writeln!(t, "T_Total = {} s", num(p.total));
        if let Some(m) = &self.measured {
            let strategy = m
                .strategy
                .as_deref()
                .map(|s| format!(", reduction strategy {s}"))
                .unwrap_or_default();
            let _ = writeln!(
                t,
                "measured parallel time (the report) = {} s{strategy}",
                num(m.parallel_time_s)
            );
        }
        let _ = writeln!(
            t,
            "speedup model (eqs. 4-5): S_Par = P / (2 lg P + 1) = {}, S_overall = 2 P lg P / (2 lg P + 1) = {}",
            num(self.speedup_parallel),
            num(self.speedup_overall)
        );
        let o = &self.own_estimates;
        let _ = writeln!(
            t,
            "the project's own estimates (not from the paper), {} ranks each folding its tasks into one partial, combined once at the end:",
            o.ranks
        );
        let _ = writeln!(
            t,
            "  compute ceil(N / ranks) x T_Comp = {} s; master + (ranks - 1) x (T_Merge + T_Comm) = {} s; binomial tree + ceil(lg ranks) x (T_Merge + T_Comm) = {} s",
            num(o.compute),
            num(o.master),
            num(o.tree)
        );
        t
    }
}

fn paren(source: &str) -> String {
    if source.is_empty() {
        String::new()
    } else {
        format!(" ({source})")
    }
}

fn units_meaning(u: Units) -> &'static str {
    match u {
        Units::Decimal => "k, M, G, T = 1e3, 1e6, 1e9, 1e12",
        Units::Binary => "k, M, G, T = 2^10, 2^20, 2^30, 2^40",
    }
}

fn rounding_meaning(r: Rounding) -> &'static str {
    match r {
        Rounding::None => "exact hop delays",
        Rounding::Hop2dp => "each hop's delay rounded to two decimals before summing",
        Rounding::Hop2dpTruncate => "each hop's delay truncated to two decimals before summing",
    }
}

/// A number to 7 significant digits without trailing zeros, without exponent for the usual
/// magnitudes.
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

fn print_json<T: Serialize>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::Message(format!("cannot write JSON: {e}")))?;
    print(&format!("{text}\n"))
}

// ---------------------------------------------------------------------------------------------
// --paper

/// One convention's result for a worked example.
#[derive(Debug, Serialize)]
struct PaperRow {
    units: Units,
    rounding: Rounding,
    drain: bool,
    t_comm: f64,
    comm_term: f64,
    total: f64,
    /// True when T_Total equals the paper's printed value to its two decimals.
    reproduces_paper: bool,
}

#[derive(Debug, Serialize)]
struct PaperReport {
    example: PaperExample,
    description: &'static str,
    paper_compute_term: f64,
    paper_comm_term: f64,
    paper_total: f64,
    compute_term: f64,
    steps: u64,
    rows: Vec<PaperRow>,
    reproduced_by: Vec<String>,
}

fn run_paper(example: PaperExample, json: bool) -> Result<(), CliError> {
    let printed = example.printed();
    let mut rows = Vec::new();
    let mut compute_term = 0.0;
    let mut steps = 0;
    for drain in [false, true] {
        for units in Units::ALL {
            let roundings: &[Rounding] = if drain {
                &[Rounding::None]
            } else {
                &Rounding::ALL
            };
            for &rounding in roundings {
                let mut i = example.inputs(units);
                i.rounding = rounding;
                i.drain = drain;
                let p = predict(&i).map_err(model_error)?;
                compute_term = p.compute_term;
                steps = p.steps;
                rows.push(PaperRow {
                    units,
                    rounding,
                    drain,
                    t_comm: p.t_comm,
                    comm_term: p.comm_term,
                    total: p.total,
                    reproduces_paper: !drain && (p.total - printed.total).abs() < 0.005,
                });
            }
        }
    }
    let reproduced_by: Vec<String> = rows
        .iter()
        .filter(|r| r.reproduces_paper)
        .map(|r| format!("{} units + rounding {}", r.units, r.rounding))
        .collect();
    let report = PaperReport {
        example,
        description: example.describe(),
        paper_compute_term: printed.compute_term,
        paper_comm_term: printed.comm_term,
        paper_total: printed.total,
        compute_term,
        steps,
        rows,
        reproduced_by,
    };
    if json {
        return print_json(&report);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Kuntraruk, Pottenger & Ross (2005), {}",
        report.description
    );
    let _ = writeln!(
        t,
        "the paper prints: {} + {} = {} s (drain left out)",
        printed.compute_term, printed.comm_term, printed.total
    );
    let _ = writeln!(
        t,
        "steps = {}, compute term (steps + 1) x T_Comp = {} s under every convention",
        report.steps,
        num(report.compute_term)
    );
    let _ = writeln!(
        t,
        "{:<8} {:<14} {:<6} {:>14} {:>14} {:>12}  paper's {}?",
        "units", "rounding", "drain", "T_Comm_s", "comm_term_s", "T_Total_s", printed.total
    );
    for r in &report.rows {
        let _ = writeln!(
            t,
            "{:<8} {:<14} {:<6} {:>14} {:>14} {:>12}  {}",
            r.units.name(),
            r.rounding.name(),
            if r.drain { "on" } else { "off" },
            num(r.t_comm),
            num(r.comm_term),
            format!("{:.4}", r.total),
            if r.reproduces_paper { "yes" } else { "no" }
        );
    }
    if report.reproduced_by.is_empty() {
        let exact = &report.rows[0];
        let _ = writeln!(
            t,
            "no convention reproduces the paper's {} s: its communication term {} s is {:.1} times the formula's {} s (decimal units, exact delays)",
            printed.total,
            printed.comm_term,
            printed.comm_term / exact.comm_term,
            num(exact.comm_term)
        );
    } else {
        let _ = writeln!(
            t,
            "the paper's {} s is reproduced by: {} (each hop's delay cut to two decimals before summing); the exact formula gives {:.4} s (decimal units) or {:.4} s (binary)",
            printed.total,
            report.reproduced_by.join(", "),
            report.rows[0].total,
            report.rows[3].total
        );
    }
    print(&t)
}

// ---------------------------------------------------------------------------------------------
// --from-report

fn run_report(a: &PredictArgs, path: &Path) -> Result<(), CliError> {
    let reports =
        crate::reports::read(path).map_err(|e| CliError::Message(format!("--from-report: {e}")))?;
    let lines = crate::reports::of_loop(reports, a.loop_name.as_deref(), path)?;
    let mut out = Vec::new();
    for line in &lines {
        out.push(evaluate_line(a, line)?);
    }
    if a.json {
        return print_json(&out);
    }
    let text: Vec<String> = out.iter().map(Evaluation::to_text).collect();
    print(&text.join("\n"))
}

fn evaluate_line(a: &PredictArgs, line: &LoopReport) -> Result<Evaluation, CliError> {
    let name = &line.name;
    let mut sources = Sources::default();
    let n = match a.n {
        Some(n) => {
            sources.n = format!("--n; the report has {} chunks", line.chunks);
            n
        }
        None => {
            sources.n = "the report's chunks".into();
            line.chunks
        }
    };
    if line.chunks == 0 {
        return Err(CliError::Message(format!(
            "--from-report: loop `{name}` has no chunks, so T_Comp = sequential_cost_s / chunks is undefined"
        )));
    }
    // Nonsense numbers are refused, not modelled.
    if !line.sequential_cost_s.is_finite() || line.sequential_cost_s < 0.0 {
        return Err(CliError::Message(format!(
            "--from-report: loop `{name}`: `sequential_cost_s` is {}: a time is finite and >= 0",
            line.sequential_cost_s
        )));
    }
    if line.p == 0 && a.p.is_none() {
        return Err(CliError::Message(format!(
            "--from-report: loop `{name}`: `p` is 0: a loop has at least one worker"
        )));
    }
    let p = match a.p {
        Some(p) => {
            sources.p = format!("--p; the report has p = {}", line.p);
            p
        }
        None => {
            sources.p = "the report's p".into();
            let p = line.p as u64;
            if PipelineSize::new(p).is_err() {
                return Err(CliError::Message(format!(
                    "loop `{name}`: {}; give --p",
                    ModelError::NotPowerOfTwo { p }
                )));
            }
            p
        }
    };
    let t_comp = match a.t_comp {
        Some(t) => {
            sources.t_comp = "--t-comp".into();
            t
        }
        None => {
            let t = line.sequential_cost_s / line.chunks as f64;
            sources.t_comp = format!(
                "the report's sequential_cost_s / chunks = {} / {}",
                num(line.sequential_cost_s),
                line.chunks
            );
            t
        }
    };
    if a.capacity.is_none() {
        return Err(CliError::Message(
            "--capacity is required with --from-report: the report does not say the link \
             capacity C (e.g. --capacity 1.28G)"
                .into(),
        ));
    }
    let mut inputs = a.inputs(n, p, t_comp, &mut sources)?;
    // A reduction that merged nothing measured no merge time (and a value size of 0 is none).
    let reduction = line.reduction.as_ref();
    let report_merge = reduction.filter(|r| r.merges > 0).map(|r| r.merge_time_s);
    let report_bytes = reduction
        .filter(|r| r.value_bytes > 0)
        .map(|r| r.value_bytes as f64);
    match (a.t_merge, report_merge) {
        (Some(_), _) => sources.t_merge = "--t-merge".into(),
        (None, Some(m)) => {
            inputs.t_merge = Some(m);
            sources.t_merge = "the report's reduction.merge_time_s".into();
        }
        (None, None) => {
            sources.t_merge =
                "= T_Comp: the report has no reduction.merge_time_s; --t-merge sets it".into()
        }
    }
    inputs.message_bytes = match (&a.message_bytes, report_bytes) {
        (Some(_), _) => {
            sources.message_bytes = "--message-bytes".into();
            a.quantity_of(&a.message_bytes, "--message-bytes")?
        }
        (None, Some(b)) => {
            sources.message_bytes = "the report's reduction.value_bytes".into();
            b
        }
        (None, None) => {
            return Err(CliError::Message(format!(
                "loop `{name}`: the report has no reduction.value_bytes (the mean bytes of one \
                 partial result): give --message-bytes{}",
                if report_merge.is_none() {
                    " (and --t-merge for reduction.merge_time_s, else T_Merge = T_Comp)"
                } else {
                    ""
                }
            )))
        }
    };
    let measured = Measured {
        parallel_time_s: line.parallel_time_s,
        strategy: reduction
            .map(|r| r.strategy.clone())
            .filter(|s| !s.is_empty()),
    };
    Evaluation::new(Some(name.clone()), inputs, a.units, sources, Some(measured))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dls_model::pipeline_model::DEFAULT_FAN_INS;

    #[test]
    fn numbers_keep_seven_significant_digits() {
        assert_eq!(num(209.06330), "209.0633");
        assert_eq!(num(0.2582007), "0.2582007");
        assert_eq!(num(4.494950e-4), "0.000449495");
        assert_eq!(num(1.39), "1.39");
        assert_eq!(num(208.03), "208.03");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.28e9), "1280000000");
    }

    #[test]
    fn fan_ins_parse() {
        assert_eq!(fan_ins("8,16,8"), Ok(FanIns(DEFAULT_FAN_INS.to_vec())));
        assert!(fan_ins("8,,8").is_err());
        assert!(fan_ins("8,-1").is_err());
    }
}
