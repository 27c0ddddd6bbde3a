//! Iterate times measured in a real loop, as a model for the simulator: what
//! `dls compare --from-report` simulates other techniques with.
//!
//! A loop report gives, per chunk, the iterates it held (`chunk_map`) and how long its worker
//! took (`chunk_times`: end − start is the worker's measured work time for the chunk). Dividing
//! gives the chunk's mean time per iterate, which stands for every iterate of the chunk: a
//! piecewise-constant profile over the index, one step per chunk. Iterates of chunks without
//! times (beyond `DLS_CHUNK_MAP`, or whose timing never arrived) take the mean of the measured
//! ones.
//!
//! **Limits.** (1) The resolution is the chunk: variation inside a chunk is averaged away, so
//! large early chunks (STATIC, GSS, FAC) flatten the profile where they ran, and a technique that
//! would split them differently sees their mean, not their spread; single-iterate chunks (SS)
//! give each iterate its own time. (2) A chunk's time is its worker's wall time: it includes that
//! worker's speed (a slow node's chunks look like expensive iterates), its cache state, and time
//! waiting for a core when workers outnumbered cores (the report's `cpu_time_s` and
//! `oversubscribed` say when that happened). (3) The simulation replays these times exactly: the
//! seed changes nothing, and a second run of the program would differ by its noise.

use super::error::SimError;
use super::iterate_time::IterateTimeModel;
use crate::LoopReport;

/// Per-iterate times read from a loop report (see the documentation of `dls-model/src/sim/measured.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredTimes {
    /// The times as a recorded model, one per iterate of the loop.
    pub model: IterateTimeModel,
    /// Iterates whose time was measured (the others took the mean).
    pub measured: u64,
    /// Chunks whose times were used.
    pub chunks: u64,
    /// The measured workers' CPU time over their work time, when measured (below about 0.8 the
    /// times include waiting for a core).
    pub cpu_share: Option<f64>,
}

/// Builds per-iterate times from `report`'s chunk map and chunk times; `source` names the report
/// in the model's text and in errors.
///
/// ```
/// use dls_model::sim::{measured_iterate_times, simulate, SimConfig};
/// use dls_model::report::LoopReport;
/// // Two chunks of 2 iterates: the first took 2 ms (1 ms per iterate), the second 8 ms.
/// let report = LoopReport {
///     n: 4,
///     p: 2,
///     chunk_map: vec![[0, 2, 0], [2, 2, 1]],
///     chunk_times: vec![Some([0.0, 0.002]), Some([0.0, 0.008])],
///     ..Default::default()
/// };
/// let m = measured_iterate_times(&report, "run.jsonl").unwrap();
/// assert_eq!(m.measured, 4);
/// assert_eq!(m.model.moments(4).unwrap().0, 0.0025);
/// let mut c = SimConfig::new("ss".parse().unwrap(), 4, 2);
/// c.iterate_time = m.model;
/// // SS on 2 ranks: 1 ms + 1 ms on one rank, 4 ms + 4 ms shared: makespan 5 ms.
/// assert!((simulate(&c).unwrap().report.parallel_time_s - 0.005).abs() < 1e-12);
/// ```
pub fn measured_iterate_times(
    report: &LoopReport,
    source: &str,
) -> Result<MeasuredTimes, SimError> {
    let what = format!("{source}, loop `{}`", report.name);
    if report.chunk_times.iter().all(Option::is_none) {
        return Err(SimError::new(format!(
            "{what}: the report has no chunk times (chunk_times), which give the iterate times: \
             two-level loops have none, and reports written before dls recorded them; run the \
             program again with DLS_REPORT=FILE"
        )));
    }
    if report.n == 0 {
        return Err(SimError::new(format!("{what}: the loop has no iterates")));
    }
    let n = usize::try_from(report.n)
        .map_err(|_| SimError::new(format!("{what}: n = {} is too large", report.n)))?;
    let mut times: Vec<Option<f64>> = vec![None; n];
    let mut chunks = 0u64;
    for (c, t) in report.chunk_map.iter().zip(&report.chunk_times) {
        let Some([start, end]) = *t else { continue };
        let [first, size, _] = *c;
        let last = first
            .checked_add(size)
            .filter(|&l| l <= report.n && size > 0);
        let Some(last) = last else {
            return Err(SimError::new(format!(
                "{what}: chunk [{first}, {size}] lies outside the loop's {} iterates",
                report.n
            )));
        };
        let per = (end - start).max(0.0) / size as f64;
        for slot in &mut times[first as usize..last as usize] {
            *slot = Some(per);
        }
        chunks += 1;
    }
    let known: Vec<f64> = times.iter().flatten().copied().collect();
    let measured = known.len() as u64;
    let mean = known.iter().sum::<f64>() / known.len().max(1) as f64;
    let times: Vec<f64> = times.into_iter().map(|t| t.unwrap_or(mean)).collect();
    Ok(MeasuredTimes {
        model: IterateTimeModel::recorded(format!("{what}, measured"), times)?,
        measured,
        chunks,
        cpu_share: report.cpu_share(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> LoopReport {
        LoopReport {
            name: "l".into(),
            n: 6,
            p: 2,
            chunk_map: vec![[0, 3, 0], [3, 1, 1], [4, 2, 1]],
            chunk_times: vec![Some([0.0, 0.3]), Some([0.0, 0.5]), None],
            chunk_map_dropped: 0,
            ..Default::default()
        }
    }

    #[test]
    fn each_iterate_takes_its_chunks_mean_and_unmeasured_ones_the_overall_mean() {
        let m = measured_iterate_times(&report(), "r").unwrap();
        assert_eq!((m.measured, m.chunks), (4, 2));
        let mut s = m.model.sampler(6, 1);
        let got: Vec<f64> = (0..6).map(|_| s.next_time()).collect();
        let mean = (0.3 + 0.5) / 4.0;
        let want = [0.1, 0.1, 0.1, 0.5, mean, mean];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn a_report_without_chunk_times_or_with_a_chunk_outside_the_loop_is_an_error() {
        let mut r = report();
        r.chunk_times.clear();
        let e = measured_iterate_times(&r, "run.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("run.jsonl, loop `l`") && e.contains("no chunk times"),
            "{e}"
        );
        let mut r = report();
        r.chunk_map[0] = [5, 3, 0];
        let e = measured_iterate_times(&r, "run.jsonl")
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside"), "{e}");
    }
}
