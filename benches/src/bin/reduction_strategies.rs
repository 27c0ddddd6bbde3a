//! Master vs binomial tree vs parallel pipeline (Kuntraruk, Pottenger & Ross, 2005, Tables VI–XI
//! in spirit), with sleep-modelled costs, beside the models' predictions.
//!
//! N tasks (SS: one iterate per chunk) each take `T_comp` (a sleep) and yield one output; merging
//! two non-empty outputs takes `T_merge` (a sleep), whether the merge happens in a worker's own
//! accumulator (the body folds a task's output into it) or between ranks (the loop's combine). So
//! under `master` and `tree` every rank pays a merge for each of its tasks after the first, and
//! the partial results of the P ranks then take P − 1 (master, at rank 0) or ⌈lg P⌉ (tree)
//! merges; under `pipeline` a chunk's output travels to a receiving rank, which merges it while
//! its sender computes the next task. The paper's own binary-tree baseline (its Tables IX–XI) is
//! different from dls's `tree`: rounds in which every rank computes one task and the P outputs
//! are merged up a tree while the other ranks idle; it is measured too (⌈N/P⌉ loops of P
//! iterates, predicted ⌈N/P⌉·(T_comp + (lg P + 1)·T_merge)). For each ratio T_merge / T_comp the
//! table gives the median
//! of `runs` wall times (rank 0, from the loop start to the total on every rank) and the
//! predictions: eq. (6) of the paper with its drain terms for the pipeline (step time
//! max(T_comp, T_merge), T_Comm ≈ 0 as messages are a few bytes), and the project's own models
//! for master ⌈N/P⌉·T_comp + (⌈N/P⌉ − 1)·T_merge + (P − 1)·T_merge and tree (the same with
//! ⌈lg P⌉·T_merge at the end).
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin reduction_strategies
//! mpirun --oversubscribe -np 8 target/release/reduction_strategies [N] [T_comp_ms] [runs]
//! ```
//!
//! The costs are sleeps, so 8 ranks on a 2-core machine measure the schedule, not the cores.

use std::error::Error;
use std::time::{Duration, Instant};

use dls::pipeline_model::{predict, PipelineInputs};
use dls::Strategy;

/// The output of some tasks: how many, and how many merges built it (for a check).
#[derive(Debug, Default, Clone, Copy, dls::serde::Serialize, dls::serde::Deserialize)]
#[serde(crate = "dls::serde")]
struct Output {
    tasks: u64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(Ok(400), |a| a.parse())?;
    let t_comp_ms: f64 = args.next().map_or(Ok(2.0), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let rt = dls::init()?;
    let p = rt.size() as u64;
    let t_comp = t_comp_ms / 1e3;
    if rt.rank() == 0 {
        println!(
            "reduction_strategies: N = {n} tasks of {t_comp_ms} ms (SS), P = {p}, median of \
             {runs} runs, seconds (measured / predicted)"
        );
        if p > 2 {
            println!("note: {p} ranks on this machine's 2 cores; the costs are sleeps, so the schedule is measured, not the cores");
        }
        println!(
            "| T_merge / T_comp | master | tree | pipeline | tree / pipeline | the paper's tree \
             | paper's tree / pipeline |"
        );
        println!("|---|---|---|---|---|---|---|");
    }
    for ratio in [0.25, 0.5, 1.0, 2.0] {
        let t_merge = t_comp * ratio;
        let sleep_merge = Duration::from_secs_f64(t_merge);
        let sleep_comp = Duration::from_secs_f64(t_comp);
        let mut cells = Vec::new();
        let mut measured = Vec::new();
        // The paper's binary tree (its Tables IX–XI): every rank computes one task, the P
        // outputs are merged up a tree (the other ranks idle), the round's result is merged into
        // the total, and the next P tasks start: ⌈N/P⌉ rounds of one loop of P iterates each.
        let rounds = n.div_ceil(p);
        let mut times = Vec::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let tree = rt.with_reduction(Strategy::Tree);
            let mut total = Output::default();
            for round in 0..rounds {
                let tasks = p.min(n - round * p);
                let (out, _) = tree.doall_reduce(
                    "bt-round",
                    0..tasks,
                    "ss".parse()?,
                    Output::default,
                    |_, acc: &mut Output| {
                        std::thread::sleep(sleep_comp);
                        if acc.tasks > 0 {
                            std::thread::sleep(sleep_merge);
                        }
                        acc.tasks += 1;
                    },
                    |a, b| {
                        if a.tasks > 0 && b.tasks > 0 {
                            std::thread::sleep(sleep_merge);
                        }
                        Output {
                            tasks: a.tasks + b.tasks,
                        }
                    },
                )?;
                if total.tasks > 0 {
                    std::thread::sleep(sleep_merge);
                }
                total.tasks += out.tasks;
            }
            assert_eq!(total.tasks, n, "paper's tree: every task counted once");
            times.push(t0.elapsed().as_secs_f64());
        }
        let lg = f64::from(p.next_power_of_two().trailing_zeros());
        let bt_predicted = rounds as f64 * (t_comp + (lg + 1.0) * t_merge);
        let bt = median(times);
        let bt_cell = format!("{bt:.3} / {bt_predicted:.3}");
        for strategy in [Strategy::Master, Strategy::Tree, Strategy::Pipeline] {
            let rt = rt.with_reduction(strategy);
            let mut times = Vec::new();
            for _ in 0..runs {
                let t0 = Instant::now();
                let (out, _) = rt.doall_reduce(
                    "tasks",
                    0..n,
                    "ss".parse()?,
                    Output::default,
                    |_, acc: &mut Output| {
                        std::thread::sleep(sleep_comp);
                        if acc.tasks > 0 {
                            std::thread::sleep(sleep_merge);
                        }
                        acc.tasks += 1;
                    },
                    |a, b| {
                        if a.tasks > 0 && b.tasks > 0 {
                            std::thread::sleep(sleep_merge);
                        }
                        Output {
                            tasks: a.tasks + b.tasks,
                        }
                    },
                )?;
                times.push(t0.elapsed().as_secs_f64());
                assert_eq!(out.tasks, n, "{strategy}: every task counted once");
            }
            let per_rank = n.div_ceil(p) as f64;
            let lg = f64::from(p.next_power_of_two().trailing_zeros());
            let predicted = match strategy {
                Strategy::Master => {
                    per_rank * t_comp + (per_rank - 1.0) * t_merge + (p - 1) as f64 * t_merge
                }
                Strategy::Tree => per_rank * t_comp + (per_rank - 1.0) * t_merge + lg * t_merge,
                _ => {
                    let p2 = if p.is_power_of_two() {
                        p
                    } else {
                        p.next_power_of_two() / 2
                    };
                    if p2 >= 2 {
                        let mut inputs =
                            PipelineInputs::new(n, p2, t_comp.max(t_merge), 16.0, 1e15);
                        inputs.t_merge = Some(t_merge);
                        inputs.drain = true;
                        predict(&inputs).map_or(f64::NAN, |pr| pr.total)
                    } else {
                        f64::NAN
                    }
                }
            };
            let m = median(times);
            measured.push(m);
            cells.push(format!("{m:.3} / {predicted:.3}"));
        }
        if rt.rank() == 0 {
            println!(
                "| {ratio} | {} | {} | {} | {:.2} | {bt_cell} | {:.2} |",
                cells[0],
                cells[1],
                cells[2],
                measured[1] / measured[2],
                bt / measured[2]
            );
        }
    }
    Ok(())
}
