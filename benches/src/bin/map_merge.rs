//! The cost of merging large maps (issue 29): bigram counting, one iterate per text position,
//! into a `HashMap<String, u64>` keyed `"w1 w2"` (the issue's case: about 225,000 distinct
//! bigrams), with the workers' maps merged after the loop by adding counts.
//!
//! The text is a deterministic stream of `WORDS` words drawn with Zipf's law (exponent 1) from a
//! vocabulary of `VOCABULARY` made-up words (xorshift64*, fixed seed; the same on every rank).
//! Ways, taking turns in each round:
//!
//! - `serial`: the serial loop counts every bigram (rank 0; the baseline: serial counting time);
//! - `hand merge`: the text cut into P equal parts, each counted into its own map (not timed),
//!   then the P maps merged into one by hand, the smaller into the larger (timed): the merge's
//!   intrinsic cost, without dls;
//! - `dls +`: `#[par_doall(schedule = "fac2", reduce(+: counts))]` (a map's values added key by
//!   key), the default reduction strategy;
//! - `dls + tree`: the same with `reduction = "tree"` (under mpirun a binomial tree; on threads
//!   every strategy combines the workers' values in memory);
//! - `dls merge fn`: `reduce(merge_counts, unordered: counts)` with a merge function of the
//!   user's that adds the smaller map into the larger.
//!
//! For each dls way the loop's time and, from its loop report (`DLS_REPORT`, set by the program
//! to a file in the temporary folder unless it names a file already), the combine time (end of
//! the last chunk to the loop's end: the merges and, under mpirun, the messages), the strategy,
//! and the merges on rank 0 with their mean time. The figure of issue 29 is combine time /
//! serial counting time (target ≤ 0.3 at P = 2, falling as P grows); medians over the rounds.
//!
//! ```text
//! DLS_THREADS=2 cargo run --release -p dls-bench --bin map_merge [rounds]
//! cargo build --release -p dls-bench --features mpi --bin map_merge
//! mpirun --oversubscribe -np 2 target/release/map_merge [rounds]
//! ```

use std::time::Instant;

#[path = "../bigrams.rs"]
mod bigrams;
use bigrams::{bigram, count_serial, merge_counts, text, Counts, VOCABULARY};

#[dls::parallel]
fn count_plus(vocab: &[String], words: &[u32]) -> Counts {
    let mut counts = Counts::new();
    #[par_doall(schedule = "fac2", reduce(+: counts), name = "bigrams +")]
    for i in 0..words.len() - 1 {
        *counts.entry(bigram(vocab, words, i)).or_insert(0) += 1;
    }
    counts
}

#[dls::parallel]
fn count_plus_tree(vocab: &[String], words: &[u32]) -> Counts {
    let mut counts = Counts::new();
    #[par_doall(schedule = "fac2", reduce(+: counts), reduction = "tree", name = "bigrams + tree")]
    for i in 0..words.len() - 1 {
        *counts.entry(bigram(vocab, words, i)).or_insert(0) += 1;
    }
    counts
}

#[dls::parallel]
fn count_merge_fn(vocab: &[String], words: &[u32]) -> Counts {
    let mut counts = Counts::new();
    #[par_doall(schedule = "fac2", reduce(merge_counts, unordered: counts), name = "bigrams merge fn")]
    for i in 0..words.len() - 1 {
        *counts.entry(bigram(vocab, words, i)).or_insert(0) += 1;
    }
    counts
}

/// The figures of a loop's report that this benchmark prints.
#[derive(Clone, Default)]
struct Figures {
    combine_s: f64,
    strategy: String,
    merges: u64,
    merge_s: f64,
}

/// The last loop's report, from the `DLS_REPORT` file (rank 0 appends one JSON line per loop).
fn last_report(path: &Option<String>) -> Option<Figures> {
    let text = std::fs::read_to_string(path.as_ref()?).ok()?;
    let r: dls::LoopReport = serde_json::from_str(text.lines().last()?).ok()?;
    let red = r.reduction.unwrap_or_default();
    Some(Figures {
        combine_s: r.combine_time_s,
        strategy: red.strategy,
        merges: red.merges,
        merge_s: red.merge_time_s,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("rounds must be a whole number, got `{r}`"))?,
        None => 5,
    };
    // The loop reports go to a file that this program reads after each loop (rank 0 writes it;
    // every rank sets the same value, as dls requires).
    let report_path = match std::env::var("DLS_REPORT") {
        Ok(v) if v.contains('/') || v.contains('.') => Some(v),
        Ok(_) => None,
        Err(_) => {
            let p = std::env::temp_dir().join("dls_map_merge_report.jsonl");
            let p = p.to_string_lossy().into_owned();
            // SAFETY: the benchmark's own threads read the environment only through std, which
            // locks it, and the runtime reads its settings at start; a benchmark accepts the race
            // left with an MPI library's own threads under mpirun.
            unsafe { std::env::set_var("DLS_REPORT", &p) };
            Some(p)
        }
    };
    let rt = dls::init()?;
    let (root, p) = (rt.rank() == 0, rt.workers());
    let (vocab, words) = text();
    let n = words.len() - 1;
    let mpi = matches!(rt.backend(), dls::Backend::Mpi { .. });
    let cores = dls::report::Oversubscribed::node_cores(mpi);
    let want = if root {
        count_serial(&vocab, &words, 0..n)
    } else {
        Counts::new()
    };
    if root {
        println!(
            "map_merge: {n} bigrams of a {VOCABULARY}-word Zipf text, {} distinct keys \
             (HashMap<String, u64>, keys \"w1 w2\"); P = {p} ({:?}); this machine has {cores} \
             core(s); {rounds} rounds, ways taking turns",
            want.len(),
            rt.backend()
        );
        if p > cores {
            println!(
                "note: {p} workers on {cores} cores (oversubscribed): the times mislead, the \
                 merge's share of the loop is shown but the workers shared the cores"
            );
        }
        if report_path.is_none() {
            println!("note: DLS_REPORT names no file: the combine times are not read");
        }
    }
    type Way<'a> = (&'a str, Box<dyn Fn() -> Counts + 'a>);
    let ways: Vec<Way> = vec![
        ("dls +", Box::new(|| count_plus(&vocab, &words))),
        ("dls + tree", Box::new(|| count_plus_tree(&vocab, &words))),
        ("dls merge fn", Box::new(|| count_merge_fn(&vocab, &words))),
    ];
    let mut serial_t = Vec::new();
    let mut hand_t = Vec::new();
    let mut loop_t = vec![Vec::new(); ways.len()];
    let mut figs: Vec<Vec<Figures>> = vec![Vec::new(); ways.len()];
    // Round 0 is a warm-up (pools started, pages touched), not counted.
    for r in 0..=rounds {
        if root {
            let t = Instant::now();
            let c = count_serial(&vocab, &words, 0..n);
            let s = t.elapsed().as_secs_f64();
            assert_eq!(c.len(), want.len());
            drop(c);
            // P parts counted apart, then merged by hand: only the merge is timed.
            let parts: Vec<Counts> = (0..p)
                .map(|k| count_serial(&vocab, &words, k * n / p..(k + 1) * n / p))
                .collect();
            let t = Instant::now();
            let merged = parts.into_iter().reduce(merge_counts).unwrap_or_default();
            let h = t.elapsed().as_secs_f64();
            assert_eq!(
                merged, want,
                "hand merge: the counts differ from the serial loop's"
            );
            if r > 0 {
                serial_t.push(s);
                hand_t.push(h);
            }
        }
        for j in 0..ways.len() {
            let k = (j + r) % ways.len();
            let t = Instant::now();
            let got = (ways[k].1)();
            let s = t.elapsed().as_secs_f64();
            if root {
                assert!(
                    got == want,
                    "{}: the counts differ from the serial loop's",
                    ways[k].0
                );
                if r > 0 {
                    loop_t[k].push(s);
                    if let Some(f) = last_report(&report_path) {
                        figs[k].push(f);
                    }
                }
            }
        }
    }
    if !root {
        return Ok(());
    }
    let serial = median(serial_t.clone());
    println!(
        "serial counting: median {serial:.4} s; hand merge of {p} parts: median {:.4} s = {:.3} of \
         the serial count",
        median(hand_t.clone()),
        median(hand_t.iter().zip(&serial_t).map(|(h, s)| h / s).collect())
    );
    println!(
        "| way | loop (s) | serial / loop | combine (s) | combine / serial count | strategy | merges on rank 0 × mean (ms) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (k, (name, _)) in ways.iter().enumerate() {
        let speedup = median(
            loop_t[k]
                .iter()
                .zip(&serial_t)
                .map(|(l, s)| s / l)
                .collect(),
        );
        let f = &figs[k];
        let (combine, share, strategy, merges) = if f.len() == loop_t[k].len() && !f.is_empty() {
            let c = median(f.iter().map(|x| x.combine_s).collect());
            let share = median(
                f.iter()
                    .zip(&serial_t)
                    .map(|(x, s)| x.combine_s / s)
                    .collect(),
            );
            let m = median(f.iter().map(|x| x.merge_s * 1e3).collect());
            (
                format!("{c:.4}"),
                format!("{share:.3}"),
                f[0].strategy.clone(),
                format!("{} × {m:.2}", f[0].merges),
            )
        } else {
            ("–".into(), "–".into(), "–".into(), "–".into())
        };
        println!(
            "| {name} | {:.4} | {speedup:.2} | {combine} | {share} | {strategy} | {merges} |",
            median(loop_t[k].clone())
        );
    }
    if let Some(path) = report_path.filter(|p| p.contains("dls_map_merge_report")) {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
