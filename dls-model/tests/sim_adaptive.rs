//! Adaptive techniques in the simulator: they receive every chunk's timing through
//! `ChunkScheduler::record` and route work around slow ranks.

use dls_model::sim::{simulate, SimConfig, SimOutcome};

fn config(technique: &str, n: u64, p: usize, model: &str) -> SimConfig {
    let mut c = SimConfig::new(technique.parse().unwrap(), n, p);
    c.iterate_time = model.parse().unwrap();
    c
}

fn run(c: &SimConfig) -> SimOutcome {
    simulate(c).unwrap()
}

const ADAPTIVE: [&str; 5] = ["af", "awf-b", "awf-c", "awf-d", "awf-e"];

fn sizes(o: &SimOutcome) -> Vec<u64> {
    o.report.chunk_map.iter().map(|c| c[1]).collect()
}

#[test]
fn measurements_reach_adaptive_techniques_only() {
    // Same iterate times, with and without slow ranks: an adaptive technique sizes its chunks
    // from the measured times, so its chunk sequence changes; FAC2 and GSS do not look at
    // measurements, so theirs stays the same.
    let mut even = config("fac2", 20_000, 4, "exp:1ms");
    even.chunk_map = true;
    even.overhead_s = 5e-6;
    let mut uneven = even.clone();
    uneven.speeds = vec![1.0, 1.0, 3.0, 3.0];
    for name in ["fac2", "gss"] {
        even.technique = name.parse().unwrap();
        uneven.technique = even.technique.clone();
        assert_eq!(sizes(&run(&even)), sizes(&run(&uneven)), "{name}");
    }
    for name in ADAPTIVE {
        even.technique = name.parse().unwrap();
        uneven.technique = even.technique.clone();
        assert_ne!(sizes(&run(&even)), sizes(&run(&uneven)), "{name}");
    }
}

#[test]
fn slow_ranks_get_a_third_of_the_work() {
    // Half the ranks are 3x slower: they should run a third as many iterates as the fast ones,
    // and the loop should end close to its lower bound.
    let mut c = config("af", 100_000, 8, "exp:1ms");
    c.speeds = vec![1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0];
    c.overhead_s = 5e-6;
    for name in ADAPTIVE {
        c.technique = name.parse().unwrap();
        let o = run(&c);
        let it: Vec<u64> = o.report.ranks.iter().map(|r| r.iterates).collect();
        assert_eq!(it.iter().sum::<u64>(), 100_000);
        let share = it[4..].iter().sum::<u64>() as f64 / it[..4].iter().sum::<u64>() as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.03, "{name}: share {share}");
        assert!(o.makespan_over_lower_bound() < 1.05, "{name}");
    }
}

#[test]
fn per_request_adaptation_beats_fac2_on_one_slow_rank() {
    // One rank 3x slower: FAC2 hands it a first chunk of N/(2P) that it cannot finish in time;
    // AWF-C and AWF-E recompute every chunk from the measured speeds and end near the bound.
    let mut c = config("fac2", 100_000, 4, "exp:1ms");
    c.speeds = vec![1.0, 1.0, 1.0, 3.0];
    c.overhead_s = 5e-6;
    let fac2 = run(&c).makespan_over_lower_bound();
    assert!(fac2 > 1.2, "fac2 {fac2}");
    for name in ["awf-c", "awf-e"] {
        c.technique = name.parse().unwrap();
        let o = run(&c);
        let ratio = o.makespan_over_lower_bound();
        assert!(
            ratio < 1.05 && ratio < fac2,
            "{name}: {ratio} vs fac2 {fac2}"
        );
        let r = &o.report.ranks;
        let fast = r[..3].iter().map(|x| x.iterates).sum::<u64>() as f64 / 3.0;
        let share = r[3].iterates as f64 / fast;
        assert!((share - 1.0 / 3.0).abs() < 0.05, "{name}: share {share}");
    }
}

#[test]
fn sampling_phase_keeps_a_slow_rank_from_a_large_first_chunk() {
    // Benchmark (b) of the runtime issue in the simulator: N = 20,000 iterates of exp(1 ms) on
    // P = 8 ranks, one 3x slower. Published (probe=0), AF and AWF-B give the slow rank FAC2's
    // first chunk of 1,250 iterates (3.75 s, above the lower bound of about 2.7 s); with the
    // default sampling phase it first runs probe chunks of ceil(N/(40P)) = 63 and the loop ends
    // within 3% of the lower bound.
    let mut c = config("af", 20_000, 8, "exp:1ms");
    c.speeds = vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0];
    c.overhead_s = 20e-6;
    c.latency_s = 5e-6;
    for name in ["af", "awf", "awf-b", "awf-c", "awf-d", "awf-e"] {
        c.technique = name.parse().unwrap();
        let ratio = run(&c).makespan_over_lower_bound();
        assert!(ratio < 1.03, "{name}: {ratio}");
        if !["awf-c", "awf-e"].contains(&name) {
            c.technique = format!("{name},probe=0").parse().unwrap();
            let published = run(&c).makespan_over_lower_bound();
            assert!(published > 1.2, "{name},probe=0: {published}");
        }
    }
}
