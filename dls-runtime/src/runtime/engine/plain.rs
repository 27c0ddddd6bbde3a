//! The plain loop under every adaptor (ordered, checked): start the loop, resolve its plan,
//! run the plan's driver on every worker and its finish on their values. Each decision is the
//! plan's (`plan.rs`), each driver and finish a file of its own (`drive/`, `finish/`).

use super::drive::{self, Restart};
use super::finish::{self, fold, shards, tree, Ends};
use super::plan::{Finish, LoopPlan, Placement, Shape};
use super::plan::{Plan, Reach};
use super::start::{Described, StartFlags};
use crate::runtime::checkpoint::{self, LoopCheckpoints};
use crate::runtime::combine::{combine_partials, Merging};
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::{Iterates, Loop};
use crate::runtime::loops::options::LoopOptions;
use crate::runtime::loops::range::{LoopIndex, LoopRange};
use crate::runtime::loops::reduction::Reduction;
use crate::runtime::observe::stats::LoopStats;
use crate::runtime::{Runtime, Wire};

impl Runtime {
    /// The plain loop: `plan` says whose results it combines, a worker that takes no chunk and
    /// a look at the total before the report. Returns the loop's value and its statistics (none
    /// where the caller does not read them: [`LoopOptions`]' statistics).
    pub(crate) fn reduce_impl<R, T, Id, B, C>(
        &self,
        options: &LoopOptions,
        plan: Plan<'_, T>,
        range: R,
        red: Reduction<Id, B, C>,
    ) -> Result<(T, Option<LoopStats>), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(Iterates<R::Index>, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let config = self.loop_config(options);
        let shape = Shape {
            reach: plan.reach,
            skip: plan.skip,
            zero_sized: std::mem::size_of::<T>() == 0,
            shardable: plan.shard.is_some(),
            inspected: plan.inspect.is_some(),
        };
        let kind = || match (shape.reach, shape.inspected) {
            (Reach::ThisProcess, _) => "a loop without a result (doall)".to_string(),
            (Reach::AllProcesses, checked) => format!(
                "a {}loop with a result of type `{}`",
                if checked { "checked " } else { "" },
                std::any::type_name::<T>()
            ),
        };
        let (lp, placement) = self.make_loop(
            &config,
            &options.name,
            range,
            options.technique.clone(),
            Described {
                kind,
                options: || config.agreed(options),
            },
            StartFlags {
                tolerant: shape.tolerant(&config),
                sizing: shape.may_run_alone(),
            },
        )?;
        let mpi_rank = match self.backend() {
            crate::runtime::Backend::Mpi { rank, .. } => Some(rank),
            _ => None,
        };
        let panics = self.shared.platform.panics();
        let lplan = LoopPlan::resolve(&config, &shape, &lp, placement, panics, mpi_rank);
        if lplan.finish == Finish::Pipeline {
            return finish::pipeline::run(&config, lp, &red);
        }
        debug_assert!(
            !(lplan.reexecute && lp.core().source().tolerance().is_none()),
            "a loop that re-executes has a source that can (internal error)"
        );
        if lplan.reexecute {
            lp.core().reexecute(config.split);
        }
        let checkpoints = self.checkpoints_of(&lplan, &lp, &red)?;
        let restored = crate::runtime::annotate::sync::Mutex::new(
            checkpoints
                .as_ref()
                .and_then(|c| c.restored_value.lock().ok().and_then(|mut v| v.take())),
        );
        let restart = Restart {
            checkpoints: checkpoints.as_ref(),
            restored: &restored,
            process_rank: lp.core().source().rank(),
        };
        let ends = Ends::new(
            lplan.finish == Finish::Tree,
            lp.core().source().local_slots(),
        );
        let worker = |slot: usize| {
            if lplan.works(slot) {
                let done = drive::run(&lp, &lplan, slot, &red, &restart);
                ends.arrive(&lp, slot, done, &red.combine, lplan.panics);
            }
        };
        match lplan.placement {
            Placement::Nested => worker(0),
            Placement::AllWorkers => {
                let useful = usize::try_from(lp.len())
                    .unwrap_or(usize::MAX)
                    .min(lp.core().source().local_slots());
                self.shared
                    .platform
                    .run_workers(&worker, useful, lplan.first_sees_the_end);
            }
        }
        let collected = match ends.collect() {
            Ok(c) => c,
            Err(failure) => {
                let name = lp.name().to_string();
                drop(lp);
                failure.raise(&name)
            }
        };
        let restored = restored.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut values = fold::with_restored(collected.values, restored);
        let mut sharded = None;
        if let (Finish::Shards, Some(shard)) = (lplan.finish, plan.shard) {
            let (total, took) = shards::merge(self, &lp, shard, values);
            values = vec![total];
            sharded = took;
        }
        // This process's values, then (`fold::across`) the processes', combined by the strategy.
        let (value, mut reduction) = combine_partials(
            lp.name(),
            config.strategy,
            self.merge_time_of(lp.name()),
            fold::across(&lp, shape.reach),
            values,
            Merging::new(&red.identity, &red.combine).reading(plan.read),
        )?;
        tree::report(&mut reduction, collected.tree_merged);
        shards::report(&mut reduction, sharded);
        if reduction.merges > 0 {
            self.record_merge_time(lp.name(), reduction.merge_time_s);
        }
        lp.core().note_reduction(reduction);
        if let Some(c) = &checkpoints {
            let restored = lp.core().source().tolerance().map_or(0, |t| t.restored());
            lp.core().note_checkpoint(c.report(restored));
        }
        if let Some(count) = plan.logged {
            lp.core().note_logged_writes(count(&value));
        }
        if let Some(check) = plan.inspect.and_then(|look| look(&value)) {
            lp.core().note_check(check);
        }
        Ok((value, finish::end(lp, &config)))
    }

    /// The checkpoints of a loop whose plan writes them (`DLS_CHECKPOINT`), with what they
    /// restored.
    fn checkpoints_of<I, T, Id, B, C>(
        &self,
        lplan: &LoopPlan,
        lp: &Loop<I>,
        red: &Reduction<Id, B, C>,
    ) -> Result<Option<LoopCheckpoints<T>>, DlsError>
    where
        I: LoopIndex,
        T: Wire,
        Id: Fn() -> T,
        C: Fn(T, T) -> T,
    {
        match (&self.shared.settings.checkpoint, lplan.checkpoints) {
            (Some(dir), true) => checkpoint::start(
                &self.shared.checkpoints,
                self.shared.settings.checkpoint_every,
                lp,
                dir,
                &red.identity,
                &red.combine,
            )
            .map(Some),
            _ => Ok(None),
        }
    }
}
