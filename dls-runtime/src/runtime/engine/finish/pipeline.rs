//! The pipeline finish (`reduction = "pipeline"` under MPI, one thread per rank): the ranks
//! pass their values along a pipeline while they run (`combine/pipeline.rs`). It runs without
//! re-execution and checkpoints, and says so when they were asked for.

use crate::runtime::annotate::sync::Mutex;

use crate::runtime::combine::pipeline;
use crate::runtime::engine::plan::LoopConfig;
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::{Iterates, Loop};
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::loops::reduction::Reduction;
use crate::runtime::observe::stats::LoopStats;
use crate::runtime::sync::lock;
use crate::runtime::Wire;

/// Runs `lp` pipelined with `red` and ends it: its value and statistics (none where nobody
/// reads them).
pub(crate) fn run<I, T, Id, B, C>(
    config: &LoopConfig,
    lp: Loop<I>,
    red: &Reduction<Id, B, C>,
) -> Result<(T, Option<LoopStats>), DlsError>
where
    I: LoopIndex,
    T: Send + Wire,
    Id: Fn() -> T + Sync,
    B: Fn(Iterates<I>, &mut T) + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let Some(x) = lp.core().source().exchange() else {
        return Err(DlsError::Mpi(format!(
            "loop `{}` was planned as a pipeline without processes to pass values to \
             (internal error)",
            lp.name()
        )));
    };
    runs_without(config, lp.name(), x.rank());
    let (value, reduction) = pipeline::run(&lp, x, &red.identity, &red.body, &red.combine)?;
    lp.core().note_reduction(reduction);
    Ok((value, super::end(lp, config)))
}

/// A pipelined loop runs without re-execution and checkpoints: when one is asked for
/// (`DLS_CHECKPOINT`, `DLS_REEXECUTE=on`), rank 0 says so at the loop's start, once per loop
/// name, instead of dropping them silently.
fn runs_without(config: &LoopConfig, name: &str, rank: usize) {
    let mut asked = Vec::new();
    if config.checkpoints {
        asked.push("checkpoints (DLS_CHECKPOINT)");
    }
    if config.reexecute_asked {
        asked.push("re-execution (DLS_REEXECUTE=on)");
    }
    if asked.is_empty() || rank != 0 {
        return;
    }
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut said = lock(&SAID);
    if said.iter().any(|n| n == name) {
        return;
    }
    said.push(name.to_string());
    panic_ctx::say_line(&format!(
        "dls: warning: loop `{name}` runs with reduction = \"pipeline\", which has no {}: they \
         are off for this loop; choose another strategy (DLS_REDUCTION=tree, or reduction = \
         \"tree\") to have them",
        asked.join(" and ")
    ));
}
