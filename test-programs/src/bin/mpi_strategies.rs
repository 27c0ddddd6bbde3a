//! Every reduction strategy gives the serial result under mpirun (run it with `DLS_REDUCTION` set
//! to each strategy): for N in {0, 1, P − 1, 2P + 1, 997} an integer sum, a float sum (within a
//! tolerance: the strategies combine in different orders), a `HashMap<String, u64>` merge, a
//! `Vec` append (compared as a multiset, and in the serial order with `doall_reduce_ordered`) and an element-wise `Vec<f64>` sum through the explicit
//! API; a `#[par_doall]` loop with `reduce` and `gather` clauses; `reduce(+)` of a `HashMap` and
//! of a `BTreeMap` of vectors (merged key by key as they are read); and a two-level loop whose outer
//! and inner loops reduce. Checks that the report's `reduction` entry names the strategy that ran.
//! Prints `strategies OK: P=<ranks> <strategy>` on rank 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_strategies
//! DLS_REDUCTION=tree mpirun -n 5 --oversubscribe -x DLS_REDUCTION target/debug/mpi_strategies
//! ```

use std::collections::{BTreeMap, HashMap};

fn merge_counts(mut a: HashMap<String, u64>, b: HashMap<String, u64>) -> HashMap<String, u64> {
    for (k, v) in b {
        *a.entry(k).or_default() += v;
    }
    a
}

fn cat(a: String, b: String) -> String {
    a + &b
}

#[dls::parallel]
fn clauses(n: u64) -> (u64, Vec<u64>, String, Vec<f64>, Vec<u64>) {
    let mut total = 0_u64;
    let mut squares = vec![0_u64; n as usize];
    // The built-in element-wise sum (N-body forces) and the order-keeping append.
    let mut forces = vec![0.0_f64; 5];
    let mut list = Vec::new();
    // A merge that depends on order: combined in the iterates' order by default.
    let mut text = String::new();
    #[par_doall(
        schedule = "fac2",
        reduction = "tree",
        reduce(+: total),
        gather(squares),
        reduce(cat: text),
        reduce(+: forces),
        reduce(append: list)
    )]
    for i in 0..n {
        total += i;
        squares[i as usize] = i * i;
        text.push_str(&format!("{i},"));
        forces[i as usize % 5] += 1.0;
        forces[(i as usize + 2) % 5] -= 0.25;
        list.push(i);
    }
    (total, squares, text, forces, list)
}

/// Maps that `reduce(+)` merges key by key as another rank's bytes are read (`Keyed`), under the
/// strategy of `DLS_REDUCTION`: word counts, and per-key vectors added element by element.
#[dls::parallel]
fn keyed(n: u64) -> (HashMap<String, u64>, BTreeMap<u64, Vec<u64>>) {
    let mut counts: HashMap<String, u64> = HashMap::from([("w0".to_string(), 100)]);
    let mut rows: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    #[par_doall(schedule = "gss", reduce(+: counts, rows))]
    for i in 0..n {
        *counts.entry(format!("w{}", i * i % 13)).or_insert(0) += 1;
        let row = rows.entry(i % 7).or_insert_with(|| vec![0; 3]);
        row[(i % 3) as usize] += i;
    }
    (counts, rows)
}

fn keyed_serial(n: u64) -> (HashMap<String, u64>, BTreeMap<u64, Vec<u64>>) {
    let mut counts: HashMap<String, u64> = HashMap::from([("w0".to_string(), 100)]);
    let mut rows: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for i in 0..n {
        *counts.entry(format!("w{}", i * i % 13)).or_insert(0) += 1;
        let row = rows.entry(i % 7).or_insert_with(|| vec![0; 3]);
        row[(i % 3) as usize] += i;
    }
    (counts, rows)
}

#[dls::parallel]
fn two_level(m: u64) -> u64 {
    let mut total = 0_u64;
    #[par_doall(schedule = "gss", group(min = 1, max = 2), reduce(+: total))]
    for j in 0..m {
        let mut s = 0_u64;
        #[par_doall(schedule = "fac2", reduce(+: s))]
        for i in 0..(j % 7 + 1) {
            s += i * (j + 1);
        }
        total += s;
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let p = rt.size() as u64;
    let strategy = rt.effective_strategy();
    // A job of one rank exchanges nothing, whatever the strategy: it combines in memory.
    let expect_ran = |ran: &str| match strategy {
        _ if p == 1 => ran == "local",
        dls::Strategy::Auto => ["allgather", "tree"].contains(&ran),
        s => ran == s.name(),
    };
    for n in [0, 1, p.saturating_sub(1), 2 * p + 1, 997] {
        let (sum, stats) = rt.doall_reduce(
            "int",
            0..n,
            "ss".parse()?,
            || 0_u64,
            |i, s| *s += i,
            |a, b| a + b,
        )?;
        assert_eq!(sum, n * n.saturating_sub(1) / 2, "int sum N={n}");
        let ran = stats.report.reduction.as_ref().expect("a reduction report");
        assert!(
            expect_ran(&ran.strategy),
            "{strategy} ran as {} ({})",
            ran.strategy,
            ran.why
        );

        let (x, _) = rt.doall_reduce(
            "float",
            0..n,
            "gss".parse()?,
            || 0.0_f64,
            |i, s| *s += 1.0 / (i as f64 + 1.0),
            |a, b| a + b,
        )?;
        let serial: f64 = (0..n).map(|i| 1.0 / (i as f64 + 1.0)).sum();
        assert!((x - serial).abs() <= 1e-12 * serial.max(1.0), "float N={n}");

        let (counts, _) = rt.doall_reduce(
            "map",
            0..n,
            "fac2".parse()?,
            HashMap::new,
            |i, m: &mut HashMap<String, u64>| *m.entry(format!("k{}", i % 13)).or_default() += i,
            merge_counts,
        )?;
        let mut serial = HashMap::new();
        for i in 0..n {
            *serial.entry(format!("k{}", i % 13)).or_default() += i;
        }
        assert_eq!(counts, serial, "map N={n}");

        let (mut list, _) = rt.doall_reduce(
            "append",
            0..n,
            "af".parse()?,
            Vec::new,
            |i, v: &mut Vec<u64>| v.push(i),
            |mut a, b| {
                a.extend(b);
                a
            },
        )?;
        list.sort_unstable();
        assert!(list.iter().copied().eq(0..n), "append N={n}");

        // An order-dependent merge: the serial order, whatever the schedule and strategy.
        let (ordered, _) = rt.doall_reduce_ordered(
            "ordered",
            0..n,
            "af".parse()?,
            Vec::new,
            |i, v: &mut Vec<u64>| v.push(i),
            |mut a, b| {
                a.extend(b);
                a
            },
        )?;
        assert!(ordered.iter().copied().eq(0..n), "ordered append N={n}");

        let len = 6;
        let (forces, _) = rt.doall_reduce(
            "elementwise",
            0..n,
            "tss".parse()?,
            || vec![0.0_f64; len],
            |i, f: &mut Vec<f64>| {
                f[i as usize % len] += 1.0;
                f[(i as usize + 1) % len] -= 0.5;
            },
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        )?;
        let mut serial = vec![0.0_f64; len];
        for i in 0..n as usize {
            serial[i % len] += 1.0;
            serial[(i + 1) % len] -= 0.5;
        }
        assert_eq!(forces, serial, "element-wise N={n}");

        let (total, squares, text, forces, list) = clauses(n);
        let mut serial_forces = vec![0.0_f64; 5];
        for i in 0..n as usize {
            serial_forces[i % 5] += 1.0;
            serial_forces[(i + 2) % 5] -= 0.25;
        }
        assert_eq!(forces, serial_forces, "reduce(+: forces) N={n}");
        assert_eq!(keyed(n), keyed_serial(n), "reduce(+) of maps N={n}");
        assert!(list.iter().copied().eq(0..n), "reduce(append: list) N={n}");
        let serial: String = (0..n).map(|i| format!("{i},")).collect();
        assert_eq!(text, serial, "ordered user merge N={n}");
        assert_eq!(total, n * n.saturating_sub(1) / 2, "clauses N={n}");
        assert!(
            squares
                .iter()
                .enumerate()
                .all(|(i, &q)| q == (i * i) as u64),
            "gather N={n}"
        );
    }
    let serial: u64 = (0..30_u64)
        .map(|j| (0..(j % 7 + 1)).map(|i| i * (j + 1)).sum::<u64>())
        .sum();
    assert_eq!(two_level(30), serial, "two-level");
    if dls::is_root() {
        println!("strategies OK: P={p} {strategy}");
    }
    Ok(())
}
