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
    // What the program chose per rank for the loop (strategy, re-execution, …), named option by
    // option where the ranks start loops.
    let options = gather_values(&world, &step.options().to_vec()).unwrap_or_default();
    let end = Step::End.encode();
    let some_ended = all.chunks(STEP_WORDS).any(|r| r == end);
    let ending = matches!(step, Step::End);
    if world.0.rank() == 0 {
        crate::runtime::loops::panic_ctx::say_line(&disagreement(&said, &options));
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
/// every rank) and made the same choices through the API (`chosen`: `(what, value)` pairs, such as
/// the thread count given to `dls::init_with_threads`); otherwise rank 0 prints each setting and
/// choice that differs with each rank's value and ends the job. A setting exported without
/// `mpirun -x`, set differently on one node, or a thread count computed from the rank, would
/// otherwise make the ranks schedule, check, combine or checkpoint differently (issue 43 R4-4:
/// `init_with_threads(1 + rank)` ended in `MPI_ERR_TRUNCATE`). Returns this rank's settings as
/// read (`(name, value)` of those set), which [`settings_changed`] compares at the end.
pub(crate) fn agree_settings(chosen: &[(String, String)]) -> Vec<(String, String)> {
    use crate::runtime::settings::{differing_settings, settings_set};
    let world = LoopComm(SimpleCommunicator::world());
    let mine = (settings_set(|k| std::env::var(k).ok()), chosen.to_vec());
    let all = match gather_values(&world, &mine) {
        Ok(all) => all,
        Err(e) => {
            crate::runtime::loops::panic_ctx::say_line(&format!(
                "dls: cannot compare the settings of the ranks: {e}; aborting the MPI job"
            ));
            super::comm::abort_job(&world.0, 3);
        }
    };
    let (settings, choices): (Vec<_>, Vec<_>) = all.into_iter().unzip();
    let differ = differing_settings(&settings);
    let differ_chosen = differing_settings(&choices);
    if differ.is_empty() && differ_chosen.is_empty() {
        return mine.0;
    }
    if world.0.rank() == 0 {
        crate::runtime::loops::panic_ctx::say_line(&settings_disagreement(&differ, &differ_chosen));
        super::comm::abort_job(&world.0, 3);
    }
    std::thread::sleep(std::time::Duration::from_secs(5));
    super::comm::abort_job(&world.0, 3);
}

/// Collective over `MPI_COMM_WORLD`, at the end once every rank agreed that it ends: the error,
/// the same on every rank, naming each setting a rank changed after `dls::init` (`at_start`: its
/// [`agree_settings`] value), or `None`. dls reads its settings once, at the start, so a change
/// has no effect; before, `set_var("DLS_DELAY", …)` on one rank after `init` made that rank alone
/// enter the end's check of the delays, and the job hung (issue 43 R4-3).
pub(crate) fn settings_changed(at_start: &[(String, String)]) -> Option<String> {
    use crate::runtime::settings::{changed_message, changed_since};
    let world = LoopComm(SimpleCommunicator::world());
    let mine = changed_since(at_start, |k| std::env::var(k).ok());
    let all = gather_values(&world, &mine).unwrap_or_else(|e| vec![vec![e.to_string()]]);
    let lines: Vec<String> = all
        .iter()
        .enumerate()
        .flat_map(|(rank, lines)| lines.iter().map(move |l| format!("rank {rank}: {l}")))
        .collect();
    (!lines.is_empty()).then(|| changed_message(&lines))
}

/// The error text of [`agree_settings`]: the settings that differ, then the program's choices.
fn settings_disagreement(settings: &[String], chosen: &[String]) -> String {
    let mut out = String::new();
    if !settings.is_empty() {
        out.push_str(
            "dls: error: the ranks see different dls settings, so they would not run the same \
             loops; set each on every rank (`mpirun -x NAME`, or in the job script before \
             mpirun/srun), or on none:",
        );
        for line in settings {
            out.push_str(&format!("\ndls:   {line}"));
        }
        out.push('\n');
    }
    if !chosen.is_empty() {
        out.push_str(
            "dls: error: the program chose differently on different ranks when it started dls, \
             so the ranks would not run the same loops; make every rank make the same call with \
             the same value (not one computed from the rank):",
        );
        for line in chosen {
            out.push_str(&format!("\ndls:   {line}"));
        }
        out.push('\n');
    }
    out.push_str("dls: aborting the MPI job");
    out
}

/// The error text: what each rank was doing, ranks that did the same grouped; then, where every
/// rank starts a loop, each of the loop's options that differs, with each rank's value.
fn disagreement(said: &[String], options: &[Vec<(String, String)>]) -> String {
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
         length), technique, kind of loop (result type, checked or not) and options (what the \
         program chose for the loop on each rank: its reduction strategy, re-execution, \
         order-keeping merge, check):",
    );
    for (text, ranks) in groups {
        let who = if ranks.len() == 1 { "rank" } else { "ranks" };
        let list: Vec<String> = ranks.iter().map(usize::to_string).collect();
        out.push_str(&format!("\ndls:   {who} {}: {text}", list.join(", ")));
    }
    if options.len() == said.len() && options.iter().all(|o| !o.is_empty()) {
        for line in crate::runtime::settings::differing_settings(options) {
            out.push_str(&format!("\ndls:   differs: {line}"));
        }
    }
    out.push_str("\ndls: aborting the MPI job");
    out
}

#[cfg(test)]
mod tests {
    use super::{disagreement, settings_disagreement};

    /// Issue 43 R4-4: threads given through the API differ per rank.
    #[test]
    fn the_message_names_a_choice_of_the_program() {
        let m = settings_disagreement(
            &[],
            &["threads given to dls::init_with_threads: rank 0 `1`, rank 1 `2`".into()],
        );
        assert!(m.contains("the program chose differently"), "{m}");
        assert!(m.contains("rank 1 `2`"), "{m}");
        assert!(!m.contains("different dls settings"), "{m}");
    }

    #[test]
    fn the_message_names_each_rank_and_what_it_did() {
        let said = [
            "starts loop `a`".to_string(),
            "ends".into(),
            "starts loop `a`".into(),
        ];
        let m = disagreement(&said, &[]);
        assert!(m.contains("ranks 0, 2: starts loop `a`"), "{m}");
        assert!(m.contains("rank 1: ends"), "{m}");
        assert!(!m.contains("differs"), "{m}");
    }

    /// Issue 43 R4-4: a loop option the program chose on one rank only is named with each
    /// rank's value.
    #[test]
    fn the_message_names_an_option_that_differs() {
        let said = vec!["starts loop `a`".to_string(); 3];
        let opt = |v: &str| {
            vec![
                ("reduction".to_string(), v.to_string()),
                ("re-execution".to_string(), "on".to_string()),
            ]
        };
        let m = disagreement(&said, &[opt("auto"), opt("pipeline"), opt("auto")]);
        assert!(
            m.contains("differs: reduction: ranks 0, 2 `auto`, rank 1 `pipeline`"),
            "{m}"
        );
        assert!(!m.contains("re-execution:"), "{m}");
    }
}
