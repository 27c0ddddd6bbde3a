//! Ranks that disagree at a collective step (issue 17 case 6): rank 1 returns from `main` early,
//! skips a loop, starts loops in another order, or with another range or technique. Before the
//! loop-start check the other ranks waited forever; now the job ends at once, rank 0 naming what
//! each rank was doing. `agree` is the control: the same loops on every rank, exit 0.
//!
//! ```text
//! mpirun -n 2 --oversubscribe target/debug/mpi_disagree early-return
//! ```

use std::error::Error;

/// A `#[par_doall]` loop named `a` whose partial results travel along a pipeline.
#[dls::parallel]
fn sum_pipeline(n: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(name = "a", schedule = "fac2", reduction = "pipeline", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}

/// The same loop with the strategy left to dls.
#[dls::parallel]
fn sum_auto(n: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(name = "a", schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}

fn main() -> Result<(), Box<dyn Error>> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "agree".into());
    let rt = if mode == "threads-api" {
        // Issue 43 R4-4: each rank asks for another number of threads through the API
        // (`1 + rank`), read here from the launcher before dls starts.
        let rank: usize = std::env::var("OMPI_COMM_WORLD_RANK")
            .or_else(|_| std::env::var("PMI_RANK"))
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(0);
        dls::init_with_threads(1 + rank)?
    } else {
        dls::init()?
    };
    let odd = rt.rank() == 1;
    let fac2: dls::Technique = "fac2".parse()?;
    let run =
        |name: &str, n: u32, t: &dls::Technique| rt.doall_named(name, 0..n, t.clone(), |_| {});
    match mode.as_str() {
        "agree" => {
            run("a", 100, &fac2)?;
            run("b", 100, &fac2)?;
        }
        "early-return" => {
            if odd {
                return Err("rank 1 gives up before the loop".into());
            }
            run("a", 100, &fac2)?;
        }
        "skip" => {
            if !odd {
                run("a", 100, &fac2)?;
            }
            run("b", 100, &fac2)?;
        }
        "order" => {
            let (first, second) = if odd { ("b", "a") } else { ("a", "b") };
            run(first, 100, &fac2)?;
            run(second, 100, &fac2)?;
        }
        "range" => {
            run("a", if odd { 101 } else { 100 }, &fac2)?;
        }
        "technique" => {
            run("a", 100, &if odd { "gss".parse()? } else { fac2 })?;
        }
        // Issue 27 case 5: the same N from another first index.
        "first" => {
            let range = if odd { 10..110u32 } else { 0..100u32 };
            rt.doall_named("a", range, fac2, |_| {})?;
        }
        // Issue 27 case 5: a checked loop on one rank, the same loop unchecked on the other.
        "checked" => {
            let body = |i: u32, s: &mut f64| {
                let y = f64::from(i % 7);
                *s += y;
                y
            };
            if odd {
                let check = dls::runtime::checked::Check::default();
                let options = dls::runtime::options::LoopOptions::new("a", fac2).check(check);
                rt.run(&options, 0..100u32, || 0.0, body, |a, b| a + b)?;
            } else {
                rt.doall_reduce(
                    "a",
                    0..100u32,
                    fac2,
                    || 0.0,
                    |i, s| {
                        body(i, s);
                    },
                    |a, b| a + b,
                )?;
            }
        }
        // Issue 27: two OS threads of every rank starting top-level loops at once (hung in 2 of
        // 3 runs): the one that did not call dls::init is refused, naming the one-thread rule.
        "threads" => {
            let (a, b) = std::thread::scope(|s| {
                let other = s.spawn(|| {
                    rt.doall_named("b", 0..100u32, fac2.clone(), |_| {})
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                });
                let mine = run("a", 100, &fac2).map(|_| ()).map_err(|e| e.to_string());
                (mine, other.join().unwrap())
            });
            a?;
            b?;
        }
        // Issue 27: a panic the program catches outside every loop (a library that recovers, a
        // helper thread whose join is handled) does not end the job.
        "caught-panic" => {
            let recovered = std::panic::catch_unwind(|| -> u32 { panic!("a library gave up") });
            assert!(recovered.is_err());
            let helper = std::thread::spawn(|| -> u32 { panic!("a helper thread failed") });
            assert!(helper.join().is_err());
            run("a", 100, &fac2)?;
        }
        // A loop started from a thread that did not call dls::init, while no loop runs: refused.
        "other-thread" => {
            std::thread::scope(|s| {
                s.spawn(|| {
                    rt.doall_named("b", 0..100u32, fac2.clone(), |_| {})
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
                .join()
                .unwrap()
            })?;
        }
        // Another kind of loop: one with a result on one rank, one without on the other.
        "kind" => {
            if odd {
                rt.doall_reduce("a", 0..100u32, fac2, || 0u64, |_, _| {}, |a, b| a + b)?;
            } else {
                run("a", 100, &fac2)?;
            }
        }
        // Issue 43 R4-4: threads through the API, a number per rank (set above); the loop is
        // where they would first disagree.
        "threads-api" => {
            rt.doall_reduce(
                "a",
                0..100u32,
                fac2,
                || 0u64,
                |i, s| *s += u64::from(i),
                |a, b| a + b,
            )?;
        }
        // Issue 43 F13: `reduction = "pipeline"` on one rank only (the same loop, named alike).
        "strategy" => {
            let total = if odd {
                sum_pipeline(100)
            } else {
                sum_auto(100)
            };
            assert_eq!(total, 4950);
        }
        // Issue 43 R4-4: another loop option on one rank: re-execution off.
        "reexecute" => {
            let mut options = dls::runtime::options::LoopOptions::new("a", fac2);
            if odd {
                options = options.reexecute(false);
            }
            rt.run(
                &options,
                0..100u32,
                || 0u64,
                |i, s| *s += u64::from(i),
                |a, b| a + b,
            )?;
        }
        // Issue 43 R4-4: an order-keeping merge on one rank only.
        "ordered" => {
            let mut options = dls::runtime::options::LoopOptions::new("a", fac2);
            if odd {
                options = options.ordered();
            }
            rt.run(
                &options,
                0..100u32,
                || 0u64,
                |i, s| *s += u64::from(i),
                |a, b| a + b,
            )?;
        }
        // Issue 43 R4-4: the same checked loop with another significance level on one rank.
        "check-alpha" => {
            let mut check = dls::runtime::checked::Check::default();
            if odd {
                check.alpha = 1e-3;
            }
            let options = dls::runtime::options::LoopOptions::new("a", fac2).check(check);
            rt.run(
                &options,
                0..100u32,
                || 0.0,
                |i, s: &mut f64| {
                    let y = f64::from(i % 7);
                    *s += y;
                    y
                },
                |a, b| a + b,
            )?;
        }
        // Issue 43 R4-3: a setting changed on one rank after dls::init (the job hung at its end).
        "set-delay" => {
            if odd {
                // SAFETY: the runtime's threads read the environment only at start, and std's
                // reads lock it; this test program accepts the race left with Open MPI's own
                // threads: it reproduces a change a user's program makes after dls::init.
                unsafe { std::env::set_var("DLS_DELAY", "body:1us") };
            }
            run("a", 100, &fac2)?;
        }
        other => return Err(format!("unknown mode `{other}`").into()),
    };
    if dls::is_root() {
        println!("disagree {mode}: OK");
    }
    Ok(())
}
