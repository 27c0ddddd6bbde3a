//! The scheduler's service thread: answers the workers' requests while rank 0 computes.

use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::super::loop_handle::lock;
use super::super::sched_core::SchedCore;
use super::comm::LoopComm;
use super::messages::{Reply, Request, REQUEST_WORDS, TAG_REPLY, TAG_REQUEST};

/// Pure spinning on the probe after the last message.
const SPIN: Duration = Duration::from_micros(50);
/// Then yielding the CPU between probes, up to this idle time.
const YIELD: Duration = Duration::from_millis(2);
/// Then sleeping this long between probes (the worst-case added latency).
const SLEEP: Duration = Duration::from_micros(50);

/// Waits between probes: spin, then yield, then sleep.
struct Backoff {
    idle_since: Option<Instant>,
}

impl Backoff {
    fn reset(&mut self) {
        self.idle_since = None;
    }

    fn wait(&mut self) {
        let idle = self.idle_since.get_or_insert_with(Instant::now).elapsed();
        if idle < SPIN {
            std::hint::spin_loop();
        } else if idle < YIELD {
            thread::yield_now();
        } else {
            thread::sleep(SLEEP);
        }
    }
}

/// Serves requests until each of the `workers` ranks (1..=workers) has been told `Done` or has
/// left.
pub(crate) fn serve(comm: &LoopComm, core: &Mutex<SchedCore>, workers: usize) {
    let comm = &comm.0;
    let mut active = workers;
    let mut backoff = Backoff { idle_since: None };
    let mut buf = [0u64; REQUEST_WORDS];
    while active > 0 {
        let Some((msg, status)) = comm
            .any_process()
            .immediate_matched_probe_with_tag(TAG_REQUEST)
        else {
            backoff.wait();
            continue;
        };
        backoff.reset();
        msg.matched_receive_into(&mut buf[..]);
        let rank = status.source_rank();
        match Request::decode(&buf) {
            Some(Request::Next(timing)) => {
                let chunk = lock(core).serve(rank as usize, timing);
                let reply = match chunk {
                    Some(c) => Reply::Chunk(c),
                    None => {
                        active -= 1;
                        Reply::Done
                    }
                };
                comm.process_at_rank(rank)
                    .send_with_tag(&reply.encode()[..], TAG_REPLY);
            }
            Some(Request::Leave(timing)) => {
                if let Some(t) = timing {
                    lock(core).record(rank as usize, t);
                }
                active -= 1;
            }
            None => panic!("dls: malformed request from rank {rank}: {buf:?} (internal error)"),
        }
    }
}
