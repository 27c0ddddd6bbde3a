//! The check at every collective step of `MPI_COMM_WORLD` (a loop start, a group setup, the end
//! of the program) that all ranks are at the same step.
//!
//! Without it, ranks that disagree wait for each other forever: a rank that returned from `main`
//! early (say with an error) sits in `MPI_Finalize` while the others wait in the next loop's
//! start; a rank that skipped a loop, started loops in another order, or with another range or
//! technique, exchanges messages meant for another loop. With it, every rank all-gathers a
//! [`Step`] of four words first (one small collective, a few microseconds); when they differ,
//! rank 0 prints what each rank was doing and aborts the job, which ends within a second.

use mpi::collective::CommunicatorCollectives;
use mpi::topology::{Communicator, SimpleCommunicator};

use super::backoff;
use super::messages::{Step, STEP_WORDS};
use super::LoopComm;
use crate::runtime::combine::gather_values;

/// Collective over `MPI_COMM_WORLD`: returns `true` when every rank is at `step`; otherwise ends
/// the job with a message naming each rank and what it was doing. A rank that is at its end
/// ([`Step::End`]: its `main` returned, perhaps with an error) gets `false` instead of being
/// aborted at once: it leaves without finalising MPI, so that `main`'s error is printed before
/// the job ends (rank 0 gives it a second before it aborts the others).
pub(crate) fn agree(step: &Step) -> bool {
    let world = SimpleCommunicator::world();
    let mine = step.encode();
    let mut all = vec![0u64; STEP_WORDS * world.size() as usize];
    // Ranks reach a loop start at different times; the early ones wait here, polling politely
    // (spin briefly, then sleep) instead of busy-polling a core inside a blocking collective.
    mpi::request::scope(|scope| {
        backoff::complete_patiently(world.immediate_all_gather_into(scope, &mine[..], &mut all[..]))
    });
    if all.chunks(STEP_WORDS).all(|r| r == mine) {
        return true;
    }
    // Every rank got here and sees the same disagreement, so one more collective is safe.
    let world = LoopComm(world);
    let said = gather_values(&world, &step.describe())
        .unwrap_or_else(|e| vec![format!("(cannot tell: {e})")]);
    let end = Step::End.encode();
    let some_ended = all.chunks(STEP_WORDS).any(|r| r == end);
    let ending = matches!(step, Step::End);
    if world.0.rank() == 0 {
        crate::runtime::loops::panic_ctx::say_line(&disagreement(&said));
        if ending {
            // This process ends by itself (after main prints its error); the launcher then
            // ends the others.
            return false;
        }
        if some_ended {
            // Time for an ending rank to print main's error.
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        super::comm::abort_job(&world.0, 3);
    }
    if ending {
        return false;
    }
    // Rank 0 aborts the job; wait for it (and abort ourselves if it somehow does not).
    std::thread::sleep(std::time::Duration::from_secs(5));
    super::comm::abort_job(&world.0, 3);
}

/// Collective over `MPI_COMM_WORLD`, once at `dls::init` before any setting is parsed: returns
/// when every rank sees the same value of every dls setting (`settings::SETTINGS`, or none on
/// every rank); otherwise rank 0 prints each setting that differs with each rank's value and ends
/// the job. A setting exported without `mpirun -x`, or set differently on one node, would
/// otherwise make the ranks schedule, check, combine or checkpoint differently.
pub(crate) fn agree_settings() {
    use crate::runtime::settings::{differing_settings, settings_set};
    let world = LoopComm(SimpleCommunicator::world());
    let mine = settings_set(|k| std::env::var(k).ok());
    let all = match gather_values(&world, &mine) {
        Ok(all) => all,
        Err(e) => {
            crate::runtime::loops::panic_ctx::say_line(&format!(
                "dls: cannot compare the settings of the ranks: {e}; aborting the MPI job"
            ));
            super::comm::abort_job(&world.0, 3);
        }
    };
    let differ = differing_settings(&all);
    if differ.is_empty() {
        return;
    }
    if world.0.rank() == 0 {
        let mut out = String::from(
            "dls: error: the ranks see different dls settings, so they would not run the same \
             loops; set each on every rank (`mpirun -x NAME`, or in the job script before \
             mpirun/srun), or on none:",
        );
        for line in differ {
            out.push_str(&format!("\ndls:   {line}"));
        }
        out.push_str("\ndls: aborting the MPI job");
        crate::runtime::loops::panic_ctx::say_line(&out);
        super::comm::abort_job(&world.0, 3);
    }
    std::thread::sleep(std::time::Duration::from_secs(5));
    super::comm::abort_job(&world.0, 3);
}

/// The error text: what each rank was doing, ranks that did the same grouped.
fn disagreement(said: &[String]) -> String {
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (rank, text) in said.iter().enumerate() {
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, ranks)) => ranks.push(rank),
            None => groups.push((text, vec![rank])),
        }
    }
    let mut out = String::from(
        "dls: the ranks are at different collective steps, so the job cannot go on; every rank \
         must start the same loops in the same order, with the same range (first index and \
         length), technique and kind of loop (result type, checked or not):",
    );
    for (text, ranks) in groups {
        let who = if ranks.len() == 1 { "rank" } else { "ranks" };
        let list: Vec<String> = ranks.iter().map(usize::to_string).collect();
        out.push_str(&format!("\ndls:   {who} {}: {text}", list.join(", ")));
    }
    out.push_str("\ndls: aborting the MPI job");
    out
}

#[cfg(test)]
mod tests {
    use super::disagreement;

    #[test]
    fn the_message_names_each_rank_and_what_it_did() {
        let said = [
            "starts loop `a`".to_string(),
            "ends".into(),
            "starts loop `a`".into(),
        ];
        let m = disagreement(&said);
        assert!(m.contains("ranks 0, 2: starts loop `a`"), "{m}");
        assert!(m.contains("rank 1: ends"), "{m}");
    }
}
