//! A panic at each place a program can panic during a loop, on one rank (issue 17, "panic
//! anywhere"): `iterate` (rank 1's iterate body), `scheduler` (rank 0's iterate body), `merge`
//! (rank 1's reduction merge function), `gather` (rank 1 writes a gathered element out of
//! bounds), `thread` (a thread rank 1 spawns inside an iterate panics, and the iterate passes the
//! panic on). The job must end within seconds, naming the rank (and the iterate where there is
//! one) and the message. `caught` and `thread-caught`: panics an iterate handles itself (caught,
//! or a helper thread's whose join fails) are no failure.
//!
//! ```text
//! mpirun --oversubscribe -np 8 target/debug/mpi_panic_sites merge
//! ```

#[dls::parallel]
fn gathered(n: usize, victim: bool) -> Vec<u64> {
    let mut out = vec![0u64; n];
    #[par_doall(schedule = "ss", gather(out))]
    for i in 0..n {
        std::thread::sleep(std::time::Duration::from_millis(2));
        let at = if victim && i == 7 { n + 5 } else { i };
        out[at] = i as u64;
    }
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let site = std::env::args().nth(1).unwrap_or_default();
    let rt = dls::init()?;
    let rank = rt.rank();
    let ms = std::time::Duration::from_millis(2);
    match site.as_str() {
        "iterate" | "scheduler" => {
            let victim = if site == "iterate" { 1 } else { 0 };
            rt.doall_named("sites", 0..400u32, "ss".parse()?, |i| {
                if rank == victim && i >= 20 {
                    panic!("boom at {i}");
                }
                std::thread::sleep(ms);
            })?;
        }
        "merge" => {
            rt.doall_reduce(
                "merging",
                0..400u32,
                "ss".parse()?,
                || 0u64,
                |i, acc| {
                    std::thread::sleep(ms);
                    *acc += u64::from(i);
                },
                |a, b| {
                    if rank == 1 {
                        panic!("merge failed on rank 1");
                    }
                    a + b
                },
            )?;
        }
        "gather" => {
            // Every rank runs `gathered`; only where iterate 7 lands does the write go astray.
            let _ = gathered(400, true);
        }
        // A helper thread's panic that the iterate passes on (it panics when the join fails):
        // the panic escapes the iterate and ends the job.
        "thread" => {
            rt.doall_named("spawning", 0..400u32, "ss".parse()?, |i| {
                if rank == 1 && i >= 20 {
                    let joined = std::thread::spawn(|| panic!("helper thread failed")).join();
                    if joined.is_err() {
                        panic!("helper thread failed, so iterate {i} cannot go on");
                    }
                }
                std::thread::sleep(ms);
            })?;
        }
        // Issue 43 F3: a helper thread's panic that the iterate handles (its join fails, and the
        // iterate goes on) is no failure: only a panic that escapes the iterate ends the job, as
        // on threads.
        "thread-caught" => {
            let (sum, _) = rt.doall_reduce(
                "helping",
                0..400u64,
                "ss".parse()?,
                || 0u64,
                |i, acc| {
                    if i % 50 == 7 {
                        let joined = std::thread::spawn(move || -> u64 {
                            panic!("helper thread failed at {i}")
                        })
                        .join();
                        assert!(joined.is_err());
                    }
                    *acc += i;
                },
                |a, b| a + b,
            )?;
            assert_eq!(sum, 399 * 400 / 2);
            if rank == 0 {
                println!("thread-caught: OK, sum {sum}");
            }
            return Ok(());
        }
        "caught" => {
            // A panic the iterate catches itself is no failure: the loop goes on, loses nothing.
            let (sum, _) = rt.doall_reduce(
                "catching",
                0..400u64,
                "ss".parse()?,
                || 0u64,
                |i, acc| {
                    if i % 50 == 7 {
                        let caught = std::panic::catch_unwind(|| panic!("caught at {i}"));
                        assert!(caught.is_err());
                    }
                    *acc += i;
                },
                |a, b| a + b,
            )?;
            assert_eq!(sum, 399 * 400 / 2);
            if rank == 0 {
                println!("caught: OK, sum {sum}");
            }
            return Ok(());
        }
        other => return Err(format!("unknown site `{other}`").into()),
    }
    if matches!(site.as_str(), "merge" | "gather" | "iterate" | "thread") && rank != 1 {
        // Only rank 1 (or whichever rank runs the bad iterate) fails; the others may finish.
        return Ok(());
    }
    eprintln!("rank {rank}: `{site}` finished without the expected panic");
    Ok(())
}
