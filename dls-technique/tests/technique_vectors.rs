//! Exact chunk sequences: the published test vectors of each technique's paper, hand-computed cases for FAC, WF,
//! AWF (across time steps and within the loop) and AF, θ against Wegman's (c. 2000) closed forms, and the
//! edge cases where existing tools lose iterates.

mod technique_support;

use dls_technique::{AwfHistory, Kind, OrderMoments, ThetaCriterion};
use dls_technique::{Chunk, ChunkScheduler, ChunkTiming, Technique};
use technique_support::{repeat, round_robin};

fn sched(spec: &str, n: u64, p: usize) -> ChunkScheduler {
    ChunkScheduler::new(&spec.parse::<Technique>().unwrap(), n, p).unwrap()
}

fn timing(iterates: u64, work_s: f64, elapsed_s: f64) -> ChunkTiming {
    ChunkTiming {
        iterates,
        work_s,
        elapsed_s,
    }
}

// ---- published test vectors (N = 1000, P = 4, min chunk 1) ----

#[test]
fn gss_vector() {
    assert_eq!(
        round_robin("gss", 1000, 4),
        [250, 188, 141, 106, 79, 59, 45, 33, 25, 19, 14, 11, 8, 6, 4, 3, 3, 2, 1, 1, 1, 1]
    );
}

#[test]
fn fac2_vector() {
    let mut expected = repeat(&[(125, 4), (63, 4), (31, 4), (16, 4), (8, 4), (4, 4), (2, 4)]);
    expected.extend([1, 1, 2]);
    assert_eq!(expected.len(), 31);
    assert_eq!(round_robin("fac2", 1000, 4), expected);
}

/// `auto` where no choice is made (the scheduler alone, the simulator): FAC2's vector, its
/// measuring run.
#[test]
fn auto_unresolved_vector() {
    assert_eq!(round_robin("auto", 1000, 4), round_robin("fac2", 1000, 4));
}

#[test]
fn tss_vector() {
    assert_eq!(
        round_robin("tss", 1000, 4),
        [125, 117, 109, 101, 92, 84, 76, 68, 59, 51, 43, 35, 26, 14]
    );
}

#[test]
fn fiss_vector() {
    let mut expected = repeat(&[(50, 4), (83, 4), (116, 4)]);
    expected.push(4);
    assert_eq!(round_robin("fiss,b=3", 1000, 4), expected);
    assert_eq!(round_robin("fiss", 1000, 4), expected, "B defaults to 3");
}

#[test]
fn tfss_vector() {
    let mut expected = repeat(&[(113, 4), (80, 4), (47, 4)]);
    expected.extend([14, 14, 12]);
    assert_eq!(round_robin("tfss", 1000, 4), expected);
}

#[test]
fn fsc_vector() {
    let sizes = round_robin("fsc,h=200us,sigma=100us", 1000, 4);
    assert_eq!(sizes[0], 72);
    assert!(sizes[..13].iter().all(|&c| c == 72));
    assert_eq!(sizes[13], 1000 - 13 * 72);
}

#[test]
fn mfsc_vector() {
    let sizes = round_robin("mfsc", 1000, 4);
    assert!(sizes[..32].iter().all(|&c| c == 31));
    assert_eq!(sizes[32..], [1000 - 32 * 31]);
}

#[test]
fn static_and_ss() {
    assert_eq!(round_robin("static", 10, 4), [3, 3, 3, 1]);
    assert_eq!(round_robin("ss", 5, 2), [1; 5]);
}

// ---- hand-computed cases ----

#[test]
fn fac_hand_computed() {
    // mu = sigma (only sigma/mu matters), N = 1000, P = 4.
    // batch 0: b = 4·1/(2·sqrt 1000) = 0.0632456, x0 = 1 + b² + b·sqrt(b² + 2) = 1.0935308,
    //          c = ceil(1000/(4·1.0935308)) = ceil(228.617) = 229  -> R = 84
    // batch 1: b = 4/(2·sqrt 84) = 0.2182179, x = 2 + b² + b·sqrt(b² + 4) = 2.4866460,
    //          c = ceil(84/(4·2.4866460)) = ceil(8.445) = 9  -> R = 48
    // batch 2: b = 4/(2·sqrt 48) = 0.2886751, x = 2 + 1/12 + b·sqrt(b² + 4) = 2.6666667,
    //          c = ceil(48/(4·2.6666667)) = ceil(4.5) = 5  -> R = 28
    let sizes = round_robin("fac,mu=1ms,sigma=1ms", 1000, 4);
    assert_eq!(sizes[..12], repeat(&[(229, 4), (9, 4), (5, 4)]));
    assert_eq!(sizes.iter().sum::<u64>(), 1000);
}

#[test]
fn wf_hand_computed() {
    // weights 1:1:1:3 normalised to sum P = 4: (2/3, 2/3, 2/3, 2).
    // batch 0: ceil(1000/8) = 125 -> ceil(83.3) = 84, 84, 84, 250  (R = 498)
    // batch 1: ceil(498/8) = 63  -> 42, 42, 42, 126                (R = 246)
    // batch 2: ceil(246/8) = 31  -> ceil(20.7) = 21, 21, 21, 62    (R = 121)
    let sizes = round_robin("wf,weights=1:1:1:3", 1000, 4);
    assert_eq!(
        sizes[..12],
        [84, 84, 84, 250, 42, 42, 42, 126, 21, 21, 21, 62]
    );
    assert_eq!(sizes.iter().sum::<u64>(), 1000);
    let s = sched("wf,weights=1:1:1:3", 1000, 4);
    let w = s.weights();
    assert!((w[0] - 2.0 / 3.0).abs() < 1e-12 && (w[3] - 2.0).abs() < 1e-12);
}

#[test]
fn awf_history_hand_computed() {
    // step 1: (iterates, seconds) = (100, 1), (100, 2), (100, 4)
    // step 2:                       (200, 2), (100, 2), (50, 2)
    // pi_0 = (1·1 + 2·2)/(1·100 + 2·200) = 0.01, pi_1 = (2 + 4)/(100 + 200) = 0.02,
    // pi_2 = (4 + 4)/(100 + 100) = 0.04; mean pi = 0.07/3;
    // rho = mean/pi = (2.333, 1.1667, 0.5833), w = 3·rho/Σrho = (12/7, 6/7, 3/7).
    let mut h = AwfHistory::new(3);
    h.update(&[(100, 1.0), (100, 2.0), (100, 4.0)]).unwrap();
    h.update(&[(200, 2.0), (100, 2.0), (50, 2.0)]).unwrap();
    let w = h.weights();
    for (got, want) in w.iter().zip([12.0 / 7.0, 6.0 / 7.0, 3.0 / 7.0]) {
        assert!((got - want).abs() < 1e-12, "{w:?}");
    }
    // AWF then runs WF with these weights: ceil(700/6) = 117 ->
    // ceil(12/7·117 = 200.6) = 201, ceil(6/7·117 = 100.3) = 101, ceil(3/7·117 = 50.1) = 51.
    let mut s = sched("awf", 700, 3);
    s.set_weights(w).unwrap();
    let sizes: Vec<u64> = (0..3).map(|r| s.next_chunk(r).unwrap().size).collect();
    assert_eq!(sizes, [201, 101, 51]);
    // The weights parameter is the same thing as set_weights.
    assert_eq!(
        round_robin("awf,weights=12:6:3", 700, 3)[..3],
        [201, 101, 51]
    );
}

#[test]
fn awf_b_and_d_hand_computed() {
    // The published rule (probe=0: no sampling phase).
    // P = 2, N = 1000. Batch 0 has no measurements: weights 1, ceil(1000/4) = 250 each.
    // Rank 0: 250 iterates in 2.5 s work (0.01/iterate), 3.0 s elapsed;
    // rank 1: 250 iterates in 7.5 s work (0.03/iterate), 7.5 s elapsed.
    // AWF-B (work): 1/pi = (100, 33.3), w = 2·(100, 33.3)/133.3 = (1.5, 0.5);
    //   batch 1: ceil(500/4) = 125 -> ceil(187.5) = 188, ceil(62.5) = 63.
    // AWF-D (elapsed): pi = (0.012, 0.03), 1/pi = (83.3, 33.3), w = (1.428571, 0.571429);
    //   batch 1: ceil(178.57) = 179, ceil(71.43) = 72.
    for (spec, want) in [("awf-b,probe=0", [188, 63]), ("awf-d,probe=0", [179, 72])] {
        let mut s = sched(spec, 1000, 2);
        assert_eq!(
            s.next_chunk(0),
            Some(Chunk {
                start: 0,
                size: 250
            })
        );
        assert_eq!(
            s.next_chunk(1),
            Some(Chunk {
                start: 250,
                size: 250
            })
        );
        s.record(0, timing(250, 2.5, 3.0));
        s.record(1, timing(250, 7.5, 7.5));
        let got = [s.next_chunk(0).unwrap().size, s.next_chunk(1).unwrap().size];
        assert_eq!(got, want, "{spec}");
    }
}

#[test]
fn awf_b_weights_stay_fixed_within_a_batch_but_awf_c_adapts_per_request() {
    // Same start as above. AWF-B: rank 0's record between its batch-1 requests changes nothing
    // until the next batch. AWF-C: the weights follow every record, and R is taken afresh.
    let mut b = sched("awf-b,probe=0", 1000, 2);
    let mut c = sched("awf-c,probe=0", 1000, 2);
    for s in [&mut b, &mut c] {
        s.next_chunk(0);
        s.next_chunk(1);
        s.record(0, timing(250, 2.5, 2.5));
    }
    // AWF-B: batch 1 starts now with only rank 0 measured: rank 1 counts as average -> w = (1, 1).
    assert_eq!(b.next_chunk(0).unwrap().size, 125);
    b.record(1, timing(250, 7.5, 7.5));
    assert_eq!(b.next_chunk(1).unwrap().size, 125);
    // AWF-C takes R afresh at every request: its first chunks were 250 and ceil(750/4) = 188
    // (R = 562). Rank 0 alone measured -> w = 1: ceil(562/4) = 141 (R = 421);
    // then rank 1 measured at 0.03 -> w1 = 0.5: ceil(0.5·ceil(421/4) = 53) = 53.
    assert_eq!(c.next_chunk(0).unwrap().size, 141);
    c.record(1, timing(250, 7.5, 7.5));
    assert_eq!(c.next_chunk(1).unwrap().size, 53);
    let w = c.weights();
    assert!((w[0] - 1.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12);
}

#[test]
fn awf_e_uses_elapsed_time() {
    // Equal work, but rank 1 waits 3x longer per chunk (overhead): AWF-C sees equal ranks,
    // AWF-E weights rank 0 three times rank 1 -> w = (1.5, 0.5).
    for (spec, want) in [("awf-c,probe=0", [1.0, 1.0]), ("awf-e,probe=0", [1.5, 0.5])] {
        let mut s = sched(spec, 1000, 2);
        s.next_chunk(0);
        s.next_chunk(1);
        s.record(0, timing(250, 2.5, 2.5));
        s.record(1, timing(250, 2.5, 7.5));
        let w = s.weights();
        assert!(
            (w[0] - want[0]).abs() < 1e-12 && (w[1] - want[1]).abs() < 1e-12,
            "{spec}: {w:?}"
        );
    }
}

#[test]
fn af_hand_computed() {
    // The published rule (probe=0: no sampling phase).
    // P = 2, N = 1000. Before sigma is known (two chunks), AF hands out FAC2 chunks:
    // batch 0: 250, 250; batch 1 (R_j = 500): 125, 125.
    let mut s = sched("af,probe=0", 1000, 2);
    let first: Vec<u64> = [0, 1, 0, 1]
        .iter()
        .map(|&r| s.next_chunk(r).unwrap().size)
        .collect();
    assert_eq!(first, [250, 250, 125, 125]);
    // Rank 0: 250 in 2.5 s, 125 in 1.5 s.  Rank 1: 250 in 5 s, 125 in 2 s.
    s.record(0, timing(250, 2.5, 2.5));
    s.record(0, timing(125, 1.5, 1.5));
    s.record(1, timing(250, 5.0, 5.0));
    s.record(1, timing(125, 2.0, 2.0));
    // mu_0 = 4/375 = 0.0106667; sigma_0² = (2.5²/250 + 1.5²/125 − 4²/375)/(2−1) = 3.3333e-4
    // mu_1 = 7/375 = 0.0186667; sigma_1² = (5²/250 + 2²/125 − 7²/375)/(2−1)   = 1.3333e-3
    let st = s.stats();
    assert!((st[0].mu.unwrap() - 4.0 / 375.0).abs() < 1e-15);
    assert!((st[0].sigma.unwrap().powi(2) - 1.0 / 3000.0).abs() < 1e-12);
    assert!((st[1].sigma.unwrap().powi(2) - 1.0 / 750.0).abs() < 1e-12);
    // D = Σ sigma²/mu = 0.03125 + 0.0714286 = 0.1026786; T = 1/(93.75 + 53.5714) = 0.00678788.
    // rank 0, R = 250: TR = 1.696970, c = (D + 2TR − sqrt(D² + 4·D·TR))/(2·mu_0)
    //                 = (3.496618 − 0.841138)/0.0213333 = 124.48 -> 125
    // rank 1, R = 125: TR = 0.848485, c = (1.799648 − 0.599189)/0.0373333 = 32.16 -> 33
    assert_eq!(s.next_chunk(0).unwrap().size, 125);
    assert_eq!(s.next_chunk(1).unwrap().size, 33);
    // Every iterate is still handed out, and per-rank chunk counts add up.
    let mut total = 1000 - s.remaining();
    while let Some(c) = s.next_chunk(0) {
        total += c.size;
    }
    assert_eq!(total, 1000);
}

#[test]
fn af_reports_iterates_for_every_rank() {
    // One public tool reports zero iterates for AF workers: per-rank counts must add up to N.
    let mut s = sched("af", 10_000, 4);
    let speeds = [1e-3, 2e-3, 1e-3, 4e-3];
    technique_support::drive(&mut s, &speeds, 1e-5, 3).unwrap();
    assert!(s.stats().iter().all(|r| r.iterates > 0));
    assert_eq!(s.stats().iter().map(|r| r.iterates).sum::<u64>(), 10_000);
}

// ---- sampling (probe) phase of the adaptive techniques ----

#[test]
fn probe_chunk_default_and_parameter() {
    // Default ceil(N/(40P)): N = 1000, P = 2 -> ceil(12.5) = 13; raised to the minimum chunk.
    for spec in ["af", "awf", "awf-b", "awf-c", "awf-d", "awf-e"] {
        assert_eq!(round_robin(spec, 1000, 2)[..2], [13, 13], "{spec}");
        let t: Technique = spec.parse().unwrap();
        assert_eq!(t.params.probe_chunk(1000, 2), 13, "{spec}");
        assert_eq!(t.params.probe_chunk(1, 2), 1, "{spec}"); // ceil(1/80) = 1
    }
    assert_eq!(round_robin("af,min=20", 1000, 2)[..2], [20, 20]);
    assert_eq!(round_robin("af,probe=7", 1000, 2)[..2], [7, 7]);
    // A probe below the minimum chunk is raised to it, like every chunk.
    assert_eq!(round_robin("awf-c,probe=5,min=10", 1000, 2)[..2], [10, 10]);
    // The probe never raises a chunk: FAC2's chunk ceil(100/4) = 25 is below probe=40.
    assert_eq!(round_robin("awf-b,probe=40", 100, 2)[..2], [25, 25]);
    // probe=0: the published first chunks, FAC2's ceil(1000/4) = 250 (AWF-C and AWF-E take R
    // afresh: then ceil(750/4) = 188).
    for (spec, want) in [
        ("af", [250, 250]),
        ("awf", [250, 250]),
        ("awf-b", [250, 250]),
        ("awf-d", [250, 250]),
        ("awf-c", [250, 188]),
        ("awf-e", [250, 188]),
    ] {
        let off = format!("{spec},probe=0");
        assert_eq!(round_robin(&off, 1000, 2)[..2], want, "{off}");
    }
    // Without measurements (round robin, nothing recorded) AWF-B stays in the sampling phase.
    assert!(round_robin("awf-b", 1000, 2)
        .iter()
        .rev()
        .skip(1)
        .all(|&c| c <= 13));
}

#[test]
fn af_probe_phase_hand_computed() {
    // local=0: times per iterate taken as speeds (the estimate before neighbouring comparison).
    // N = 1000, P = 2, probe = 13. Both ranks probe: 13, 13 (FAC2 would give 250).
    let mut s = sched("af,local=0", 1000, 2);
    assert_eq!(s.next_chunk(0).unwrap().size, 13);
    assert_eq!(s.next_chunk(1).unwrap().size, 13);
    // Rank 0 has mu but no sigma after one chunk: it probes again (batch 1, FAC2 would be
    // ceil(974/4) = 244).
    s.record(0, timing(13, 0.13, 0.13));
    assert_eq!(s.next_chunk(0).unwrap().size, 13);
    s.record(0, timing(13, 0.26, 0.26));
    s.record(1, timing(13, 0.39, 0.39));
    // Rank 0: mu = 0.39/26 = 0.015, sigma² = 0.13²/13 + 0.26²/13 − 0.39²/26 = 0.00065.
    // Rank 1 (no sigma yet) counts as the mean of the measured ranks, i.e. as rank 0:
    // D = 2·0.00065/0.015 = 0.0866667, T = 0.015/2 = 0.0075, R = 961, TR = 7.2075,
    // c = (D + 2TR − sqrt(D² + 4·D·TR))/(2·mu) = (14.501667 − 1.583070)/0.03 = 430.62 -> 431.
    assert_eq!(s.next_chunk(0).unwrap().size, 431);
    // Rank 1 has one chunk measured: still probing (FAC2 of batch 2 would be ceil(530/4) = 133).
    assert_eq!(s.next_chunk(1).unwrap().size, 13);
    assert_eq!(s.remaining(), 1000 - 13 * 4 - 431);
}

#[test]
fn awf_b_and_d_probe_phase_hand_computed() {
    // N = 1000, P = 2, probe = 13. Batch 0: 13, 13.
    for spec in ["awf-b,local=0", "awf-d,local=0", "awf,local=0"] {
        let mut s = sched(spec, 1000, 2);
        assert_eq!(s.next_chunk(0).unwrap().size, 13, "{spec}");
        assert_eq!(s.next_chunk(1).unwrap().size, 13, "{spec}");
        // Rank 0 measured at 0.01 s/iterate; batch 1 starts at its request (R_1 = 974) with
        // rank 1 unmeasured: it counts as average, w = (1, 1), rank 0 gets ceil(974/4) = 244.
        s.record(0, timing(13, 0.13, 0.13));
        assert_eq!(s.next_chunk(0).unwrap().size, 244, "{spec}");
        // Rank 1 measured at 0.03 s/iterate after batch 1 started: its batch-1 weight is not its
        // own, so it probes once more.
        s.record(1, timing(13, 0.39, 0.39));
        assert_eq!(s.next_chunk(1).unwrap().size, 13, "{spec}");
        // Batch 2 (R_2 = 717) weighs both: w = 2·(100, 33.3)/133.3 = (1.5, 0.5);
        // ceil(717/4) = 180 -> 270 and 90.
        assert_eq!(s.next_chunk(0).unwrap().size, 270, "{spec}");
        assert_eq!(s.next_chunk(1).unwrap().size, 90, "{spec}");
        let w = s.weights();
        assert!(
            (w[0] - 1.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12,
            "{spec}"
        );
    }
}

#[test]
fn awf_c_and_e_probe_phase_hand_computed() {
    // N = 1000, P = 2, probe = 13: 13, 13 (R = 974).
    for spec in ["awf-c,local=0", "awf-e,local=0"] {
        let mut s = sched(spec, 1000, 2);
        assert_eq!(s.next_chunk(0).unwrap().size, 13, "{spec}");
        assert_eq!(s.next_chunk(1).unwrap().size, 13, "{spec}");
        // Rank 0 measured, rank 1 counts as average: w0 = 1, ceil(974/4) = 244 (R = 730).
        s.record(0, timing(13, 0.13, 0.13));
        assert_eq!(s.next_chunk(0).unwrap().size, 244, "{spec}");
        // Rank 1 measured at 3x rank 0's time: w1 = 0.5, ceil(0.5·ceil(730/4)) = 92, at once.
        s.record(1, timing(13, 0.39, 0.39));
        assert_eq!(s.next_chunk(1).unwrap().size, 92, "{spec}");
    }
}

/// Runs `spec` on `p` ranks in turns (each rank records its chunk before asking again), iterate
/// i costing `(i + 1)·1us` times the rank's factor, for `rounds` rounds; the learnt weights.
fn triangular_weights(spec: &str, factor: &[f64], rounds: usize) -> Vec<f64> {
    let p = factor.len();
    let mut s = sched(spec, 100_000, p);
    let mut held: Vec<Option<dls_technique::Chunk>> = vec![None; p];
    for _ in 0..rounds {
        for r in 0..p {
            if let Some(c) = held[r].take() {
                let work = (c.start..c.start + c.size)
                    .map(|i| (i + 1) as f64 * 1e-6)
                    .sum::<f64>()
                    * factor[r];
                s.record(r, timing(c.size, work, work));
            }
            held[r] = s.next_chunk(r);
        }
    }
    s.weights()
}

#[test]
fn cost_that_follows_the_index_is_not_taken_for_speed() {
    // Triangular cost, equal ranks: every rank's later chunks are dearer. With local=1 (the
    // default) the ranks are compared on neighbouring iterates and weigh alike; with local=0
    // (time per iterate taken as speed) the ranks that drew the dearer iterates weigh less.
    for spec in ["awf-b", "awf-c", "awf-d", "awf-e"] {
        let spread = |w: &[f64]| w.iter().map(|x| (x - 1.0).abs()).fold(0.0, f64::max);
        let on = triangular_weights(spec, &[1.0, 1.0], 6);
        let off = triangular_weights(&format!("{spec},local=0"), &[1.0, 1.0], 6);
        assert!(spread(&on) < 0.1, "{spec}: {on:?}");
        assert!(spread(&on) < 0.75 * spread(&off), "{spec}: {off:?}");
    }
    // A rank 3x slower still shows: weights 1.5 and 0.5 (within 10%).
    for spec in ["awf-b", "awf-c"] {
        let w = triangular_weights(spec, &[1.0, 3.0], 8);
        assert!(
            (w[0] - 1.5).abs() < 0.15 && (w[1] - 0.5).abs() < 0.05,
            "{spec}: {w:?}"
        );
    }
}

#[test]
fn local_parameter_is_checked() {
    let e = "af,local=2".parse::<Technique>().unwrap_err().to_string();
    assert!(e.contains("`local`") && e.contains("0 or 1"), "{e}");
    assert!("fac2,local=1"
        .parse::<Technique>()
        .map_or(true, |t| t.validate(Some(2)).is_err()));
}

#[test]
fn awf_learns_only_on_its_first_time_step() {
    // Weights from the history (set_weights) or weights=: the published rule, no probe.
    let mut s = sched("awf", 1000, 2);
    s.set_weights(vec![1.0, 1.0]).unwrap();
    assert_eq!(s.next_chunk(0).unwrap().size, 250);
    s.record(0, timing(250, 2.5, 2.5));
    s.record(1, timing(1, 0.03, 0.03));
    assert_eq!(s.next_chunk(1).unwrap().size, 250);
    assert_eq!(s.next_chunk(0).unwrap().size, 125, "weights stay as given");
    assert_eq!(round_robin("awf,weights=1:1", 1000, 2)[..2], [250, 250]);
}

// ---- theta split (Wegman c. 2000, §4) ----

fn harmonic(k: usize) -> f64 {
    (1..=k).map(|i| 1.0 / i as f64).sum()
}

#[test]
fn theta_closed_forms() {
    for k in [1usize, 2, 3, 4, 8, 16, 32, 64, 128, 1000] {
        let kf = k as f64;
        let exp = OrderMoments::exponential(k);
        let h = harmonic(k);
        // exponential: θa = 1/H_k, θb = H_k/(2H_k − 1/k), θc = 1/(2 + 1/2 + ... + 1/(k−1))
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(exp.theta(ThetaCriterion::A), 1.0 / h), "k = {k}");
        assert!(close(
            exp.theta(ThetaCriterion::B),
            h / (2.0 * h - 1.0 / kf)
        ));
        let c = if k == 1 {
            1.0
        } else {
            1.0 / (1.0 + harmonic(k - 1))
        };
        assert!(close(exp.theta(ThetaCriterion::C), c), "k = {k}");
        // uniform case 1: θa = (k+1)/(2k), θb = k/(2k−1), θc = (k+1)/(3k−1)
        let uni = OrderMoments::uniform(k);
        assert!(close(uni.theta(ThetaCriterion::A), (kf + 1.0) / (2.0 * kf)));
        assert!(close(uni.theta(ThetaCriterion::B), kf / (2.0 * kf - 1.0)));
        assert!(close(
            uni.theta(ThetaCriterion::C),
            (kf + 1.0) / (3.0 * kf - 1.0)
        ));
    }
}

#[test]
fn theta_matches_seed_000_tables() {
    // Table 3 (exponential) θa and θc, table 4 (uniform 1), table 5 (uniform 2, m = 3), to the
    // three printed digits. (Table 3's θb column does not follow from formula b†, e.g. k = 2:
    // 1.5/(3 − 0.5) = 0.6 against the printed .800; the formula is what is implemented.)
    type Row = (usize, [f64; 2], [f64; 3], [f64; 3]);
    let rows: [Row; 4] = [
        (
            2,
            [0.667, 0.500],
            [0.750, 0.667, 0.600],
            [0.938, 0.889, 0.882],
        ),
        (
            4,
            [0.480, 0.353],
            [0.625, 0.571, 0.455],
            [0.893, 0.824, 0.806],
        ),
        (
            16,
            [0.296, 0.232],
            [0.531, 0.516, 0.362],
            [0.850, 0.769, 0.739],
        ),
        (
            128,
            [0.184, 0.156],
            [0.504, 0.502, 0.337],
            [0.835, 0.752, 0.717],
        ),
    ];
    let crit = [ThetaCriterion::A, ThetaCriterion::B, ThetaCriterion::C];
    for (k, exp, uni, uni2) in rows {
        let e = OrderMoments::exponential(k);
        assert!(
            (e.theta(ThetaCriterion::A) - exp[0]).abs() < 5e-4,
            "k = {k}"
        );
        assert!(
            (e.theta(ThetaCriterion::C) - exp[1]).abs() < 5e-4,
            "k = {k}"
        );
        for (i, c) in crit.iter().enumerate() {
            let u = OrderMoments::uniform(k).theta(*c);
            assert!((u - uni[i]).abs() < 5e-4, "uniform k = {k} {c}: {u}");
            let u2 = OrderMoments::shifted_uniform(k, 3.0).theta(*c);
            assert!((u2 - uni2[i]).abs() < 5e-4, "uniform2 k = {k} {c}: {u2}");
        }
    }
}

#[test]
fn theta_split_chunks() {
    // uniform, criterion a, P = 4: θ = 5/8. First chunks floor(0.625·250) = 156 for every rank,
    // then fillers of ceil((1000 − 4·156)/4) = 94.
    let t: Technique = "theta,criterion=a,model=uniform".parse().unwrap();
    let mut s = ChunkScheduler::new(&t, 1000, 4).unwrap();
    assert_eq!(s.theta(), 0.625);
    let sizes: Vec<u64> = (0..8).map(|i| s.next_chunk(i % 4).unwrap().size).collect();
    assert_eq!(sizes, [156, 156, 156, 156, 94, 94, 94, 94]);
    assert_eq!(s.next_chunk(0), None);
    // A rank that asks late still gets its first chunk: fillers never take it.
    let mut s = ChunkScheduler::new(&t, 1000, 4).unwrap();
    let mut got = vec![];
    for r in [0, 0, 0, 0, 0, 0, 1, 2, 3] {
        got.push(s.next_chunk(r).map(|c| c.size));
    }
    assert_eq!(
        got[..5],
        [Some(156), Some(94), Some(94), Some(94), Some(94)]
    );
    // Only the 3·156 = 468 owed iterates are left: idle rank 0 gets ceil(468/4) = 117 of them
    // rather than stalling; the late ranks then get 156, 156 and the last 39.
    assert_eq!(got[5..], [Some(117), Some(156), Some(156), Some(39)]);
    // exponential criterion a, P = 4: θ = 1/H_4 = 0.48 -> floor(120) = 120, fillers 130.
    assert_eq!(
        round_robin("theta", 1000, 4),
        [120, 120, 120, 120, 130, 130, 130, 130]
    );
}

#[test]
fn theta_from_measured_moments() {
    // model=normal: per-iterate mu = 1 ms, sigma = 1 ms, N/P = 100 iterates per rank: the task
    // time has mean 100 ms and sd 10 ms; P = 2: e_2 = 1/sqrt(pi), so
    // θa = 100 / (100 + 10/sqrt(pi)) = 0.946602.
    let t: Technique = "theta,model=normal,mu=1ms,sigma=1ms".parse().unwrap();
    let s = ChunkScheduler::new(&t, 200, 2).unwrap();
    let want = 100.0 / (100.0 + 10.0 / std::f64::consts::PI.sqrt());
    assert!((s.theta() - want).abs() < 1e-6, "{}", s.theta());
    // More variance, smaller θ; sigma -> 0 gives θ -> 1 (Wegman c. 2000: no split needed).
    let wide: Technique = "theta,model=normal,mu=1ms,sigma=10ms".parse().unwrap();
    assert!(ChunkScheduler::new(&wide, 200, 2).unwrap().theta() < s.theta());
    let narrow: Technique = "theta,model=normal,mu=1ms,sigma=1ns".parse().unwrap();
    assert!(ChunkScheduler::new(&narrow, 200, 2).unwrap().theta() > 0.9999);
}

// ---- other techniques, by their formulas ----

#[test]
fn viss_pls_tap_rnd() {
    // VISS, X = 4, N = 1000, P = 4: c0 = 1000/16 = 62.5 -> 62; c1 = 1.5·62.5 = 93.75 -> 93;
    // c2 = 1.75·62.5 = 109.375 -> 109.
    let mut expected = repeat(&[(62, 4), (93, 4), (109, 3)]);
    expected.push(1000 - 248 - 372 - 327);
    assert_eq!(round_robin("viss,x=4", 1000, 4), expected);
    // PLS, SWR = 0.5: 125 each statically, then GSS on the rest: ceil(500/4) = 125, 94, ...
    assert_eq!(
        round_robin("pls", 1000, 4)[..7],
        [125, 125, 125, 125, 125, 94, 71]
    );
    // TAP, v = 1.3·0.5 = 0.65, T = 250: c = ceil(250 + 0.21125 − 0.65·sqrt(500.105625))
    //      = ceil(235.675) = 236.
    assert_eq!(round_robin("tap,mu=2ms,sigma=1ms", 1000, 4)[0], 236);
    // RND: every chunk in [min, max]; the same seed replays, another seed differs.
    let a = round_robin("rnd,min=3,max=50,seed=7", 10_000, 4);
    assert!(a[..a.len() - 1].iter().all(|c| (3..=50).contains(c)));
    assert_eq!(a, round_robin("rnd,min=3,max=50,seed=7", 10_000, 4));
    assert_ne!(a, round_robin("rnd,min=3,max=50,seed=8", 10_000, 4));
}

#[test]
fn min_and_max_chunk_apply_to_every_technique() {
    for kind in Kind::ALL {
        let base: Vec<&str> = kind
            .example()
            .split(',')
            .filter(|p| !p.starts_with("min=") && !p.starts_with("max="))
            .collect();
        let spec = format!("{},min=5,max=40", base.join(","));
        let sizes = round_robin(&spec, 1000, 4);
        let (last, body) = sizes.split_last().unwrap();
        assert!(
            body.iter().all(|c| (5..=40).contains(c)),
            "{spec}: {sizes:?}"
        );
        assert!(*last <= 40, "{spec}");
        assert_eq!(sizes.iter().sum::<u64>(), 1000, "{spec}");
    }
}

// ---- edge cases where existing tools fail ----

#[test]
fn edge_cases_for_every_technique() {
    for kind in Kind::ALL {
        let spec = kind.example();
        let t: Technique = spec.parse().unwrap();
        // N = 0: nothing to hand out.
        let mut s = ChunkScheduler::new(&t, 0, 4).unwrap();
        assert!((0..4).all(|r| s.next_chunk(r).is_none()), "{spec}");
        // N = 1 on 4 ranks: exactly one chunk of the one iterate.
        let mut s = ChunkScheduler::new(&t, 1, 4).unwrap();
        assert_eq!(s.next_chunk(2), Some(Chunk { start: 0, size: 1 }), "{spec}");
        assert!((0..4).all(|r| s.next_chunk(r).is_none()), "{spec}");
        // N < P: every iterate runs once.
        let sizes = round_robin(spec, 3, 8);
        assert_eq!(sizes.iter().sum::<u64>(), 3, "{spec}");
        // N = 2 on 4 ranks.
        assert_eq!(round_robin(spec, 2, 4).iter().sum::<u64>(), 2, "{spec}");
    }
}

#[test]
fn ss_on_one_rank_runs_all_ten_iterates() {
    let mut s = sched("ss", 10, 1);
    let starts: Vec<u64> = std::iter::from_fn(|| s.next_chunk(0))
        .map(|c| {
            assert_eq!(c.size, 1);
            c.start
        })
        .collect();
    assert_eq!(starts, (0..10).collect::<Vec<_>>());
}

// ---- LB4OMP's techniques (Korndörfer et al., IEEE TPDS 33(4), 2022): hand-derived ----

#[test]
fn fac2a_vector() {
    // c_j = ceil(N/(P·2^(j+1))) from the batch index alone, N = 1000, P = 4:
    // j = 0: ceil(1000/8) = 125 -> R = 500;  j = 1: ceil(1000/16) = ceil(62.5) = 63 -> R = 248;
    // j = 2: ceil(1000/32) = ceil(31.25) = 32 -> R = 120;  j = 3: ceil(15.6) = 16 -> R = 56;
    // j = 4: ceil(7.8) = 8 -> R = 24;  j = 5: ceil(3.9) = 4 -> R = 8;  j = 6: ceil(1.95) = 2 -> R = 0.
    let expected = repeat(&[(125, 4), (63, 4), (32, 4), (16, 4), (8, 4), (4, 4), (2, 4)]);
    assert_eq!(expected.len(), 28);
    assert_eq!(round_robin("fac2a", 1000, 4), expected);
    // FAC2 sizes batch 2 from R_2 = 248 instead: ceil(248/8) = 31, where FAC2a keeps 32.
    assert_eq!(round_robin("fac2", 1000, 4)[8], 31);
}

#[test]
fn faca_vector() {
    // mu = sigma, N = 1000, P = 4: the batches of `fac_hand_computed` (229, 9, 5, ...), since
    // every chunk is its formula, R̂_j = R_j: 229×4 (R̂ = 84), 9×4 (48), 5×4 (28), 3×4 (16),
    // 2×4 (8), 1×8 (batches 5 and 6: x = 2 + b² + b·sqrt(b² + 4) with b = 2/sqrt(8) gives
    // ceil(8/(4·3.914)) = 1, then R̂ = 4 -> ceil(4/(4·4.618)) = 1 -> R̂ = 0).
    // (FAC merges its tail, 1 1 2; FACa, as LB4OMP, does not.)
    let fac = round_robin("fac,mu=1ms,sigma=1ms", 1000, 4);
    let want = repeat(&[(229, 4), (9, 4), (5, 4), (3, 4), (2, 4), (1, 8)]);
    assert_eq!(fac[..25], want[..25]);
    assert_eq!(fac[25..], [1, 2]);
    assert_eq!(round_robin("faca,mu=1ms,sigma=1ms", 1000, 4), want);
    // max=100 lowers batch 0 to 100×4 (R = 600). FAC measures R_1 = 600:
    // b = 2/sqrt(600) = 0.08165, x = 2 + b² + b·sqrt(b² + 4) = 2.17000, ceil(600/8.68) = 70.
    // FACa computes R̂_1 = 1000 − 4·229 = 84 and hands out its 9, 5, 3, 2, 1, 1 until
    // R̂_7 = 84 − 4·(9 + 5 + 3 + 2 + 1 + 1) = 0; then FAC's formula from the measured
    // R = 1000 − 400 − 4·21 = 516: b = 2/sqrt(516), x = 2.1841, ceil(516/8.7364) = 60.
    assert_eq!(
        round_robin("fac,mu=1ms,sigma=1ms,max=100", 1000, 4)[..8],
        repeat(&[(100, 4), (70, 4)])
    );
    let faca = round_robin("faca,mu=1ms,sigma=1ms,max=100", 1000, 4);
    let mut want = repeat(&[(100, 4), (9, 4), (5, 4), (3, 4), (2, 4), (1, 8), (60, 4)]);
    assert_eq!(faca[..want.len()], want);
    assert_eq!(faca.iter().sum::<u64>(), 1000);
    // Without mu and sigma, x = 2 throughout: FAC2's chunks.
    want = round_robin("fac2", 1000, 4);
    want.truncate(28);
    assert_eq!(round_robin("faca", 1000, 4)[..28], want);
}

#[test]
fn af_a_hand_computed() {
    // N = 1000, P = 2, divider = 2, probe = 0 (the published first chunk, FAC2's).
    // Rank 0: first chunk ceil(1000/4) = 250, handed out in sub-chunks of floor(250/2) = 125.
    // Rank 1: the same. Work times are all 1 s: only elapsed times count.
    let mut s = sched("af-a,probe=0,divider=2", 1000, 2);
    assert_eq!(s.next_chunk(0).unwrap().size, 125);
    assert_eq!(s.next_chunk(1).unwrap().size, 125);
    s.record(0, timing(125, 1.0, 1.25));
    assert_eq!(s.next_chunk(0).unwrap().size, 125); // rest of rank 0's first chunk
    s.record(1, timing(125, 1.0, 2.5));
    assert_eq!(s.next_chunk(1).unwrap().size, 125); // rest of rank 1's first chunk
    s.record(0, timing(125, 1.0, 1.875));
    // Rank 0's chunk is used up: samples (125, 1.25 s), (125, 1.875 s) ->
    // mu_0 = 3.125/250 = 0.0125; sigma_0² = (1.25²/125 + 1.875²/125 − 3.125²/250)/(2 − 1)
    //        = 0.0125 + 0.028125 − 0.0390625 = 0.0015625.
    // Rank 1 has not finished a chunk: it counts as average (mu 0.0125, sigma² 0.0015625).
    // D = 2·0.0015625/0.0125 = 0.25, T = 1/(2/0.0125) = 0.00625, R = 500, TR = 3.125:
    // c = (D + 2TR − sqrt(D² + 4·D·TR))/(2·mu_0) = (6.5 − sqrt(3.1875))/0.025
    //   = (6.5 − 1.785357)/0.025 = 188.59 -> 189, in sub-chunks floor(189/2) = 94 and 95.
    assert_eq!(s.next_chunk(0).unwrap().size, 94);
    s.record(0, timing(94, 1.0, 1.0));
    assert_eq!(s.next_chunk(0).unwrap().size, 95);
    // AF (work times, all equal) sizes differently from the same start.
    let mut af = sched("af,probe=0", 1000, 2);
    assert_eq!(af.next_chunk(0).unwrap().size, 250);
    // Every iterate is handed out exactly once.
    let mut total = 1000 - s.remaining();
    while let Some(c) = s.next_chunk(1) {
        total += c.size;
    }
    assert_eq!(total, 1000);
}

#[test]
fn af_a_divider_ten_and_small_chunks() {
    // Default divider 10: FAC2's 250 goes in sub-chunks of 25. On one rank the probe chunk
    // ceil(1000/40) = 25 >= 10 goes in sub-chunks of floor(25/10) = 2, the last taking the
    // 3 left when fewer than two sub-chunks remain: 25 = 11·2 + 3.
    assert_eq!(round_robin("af-a,probe=0", 1000, 2)[..4], [25, 25, 25, 25]);
    let mut s = sched("af-a", 1000, 1);
    let first: Vec<u64> = (0..12).map(|_| s.next_chunk(0).unwrap().size).collect();
    assert_eq!(first, [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3]);
    // A chunk below the divider goes whole: probe 7 < 10.
    assert_eq!(round_robin("af-a,probe=7", 1000, 2)[..2], [7, 7]);
    let e = "af-a,divider=0"
        .parse::<Technique>()
        .and_then(|t| ChunkScheduler::new(&t, 10, 2).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("divider") && e.contains(">= 1"), "{e}");
}

#[test]
fn bold_hand_computed() {
    // N = 1000, P = 4, mu = sigma = 1 ms, h = 100 µs.
    // a = 2·(sigma/mu)² = 2, b = 8a·ln(8a) = 16·ln 16 = 44.36142, ln b = 3.79237,
    // c1 = h/(mu·ln 2) = 0.144270, c2 = sqrt(2π)·c1 = 0.361630, c3 = ln c2 = −1.017134.
    // First request: R = 1000, q = 250, r = max(R, N̂ = 1000) = 1000, t = r/P = 250,
    //   ln q = 5.521461, v = q/(b + q) = 0.849296, d = R/(1 + 1/ln q − v) = 3013.72 > c2,
    //   s = a·(ln d − c3)·(1 + M/(r·P)) = 2·(8.01092 + 1.01713)·1.25 = 22.57016,
    //   w = ln(v·ln q) + ln b = 5.33767,
    //   c = t + s/2 − sqrt(s·(t + s/4)) + c1·w = 250 + 11.28508 − 75.95996 + 0.77006 = 186.095 -> 186.
    // No time passes (nothing recorded), so N̂ and M stay 1000 while R falls: the next chunks are
    // 187, 188, 189 (R = 814, 627, 439), then for rank 0 (its 186 count as done, none expected
    // done: N̂ = M = 814) 152 from R = 250, then the last 98.
    assert_eq!(
        round_robin("bold,mu=1ms,sigma=1ms,h=100us", 1000, 4),
        [186, 187, 188, 189, 152, 98]
    );
    // Time passes: rank 0 reports its 186 iterates after 0.1861 s (its clock). Speeds
    // k/(k·mu + h) of the four running chunks sum to S = 3997.87 iterates/s, so
    // N̂ = 1000 − (0.1861·S + 186 − 0.1861·186/0.1861) = 1000 − 743.99 = 256.0;
    // R = 250, q = 62.5, r = 256.0, t = 64.0, s = 24.98089, w = 4.67553 -> c = 35.27 -> 35.
    let mut s = sched("bold,mu=1ms,sigma=1ms,h=100us", 1000, 4);
    let first: Vec<u64> = (0..4).map(|r| s.next_chunk(r).unwrap().size).collect();
    assert_eq!(first, [186, 187, 188, 189]);
    s.record(0, timing(186, 0.186, 0.1861));
    assert_eq!(s.next_chunk(0).unwrap().size, 35);
    // Without statistics: FAC2's chunks (without FAC2's tail merge: 1 1 1 1 where FAC2 ends 1 1 2).
    let mut want = repeat(&[
        (125, 4),
        (63, 4),
        (31, 4),
        (16, 4),
        (8, 4),
        (4, 4),
        (2, 4),
        (1, 4),
    ]);
    assert_eq!(round_robin("bold", 1000, 4), want);
    want.truncate(30);
    assert_eq!(round_robin("fac2", 1000, 4)[..30], want);
    // h goes with mu and sigma.
    let t: Technique = "bold,mu=1ms,sigma=1ms".parse().unwrap();
    let e = ChunkScheduler::new(&t, 10, 2).unwrap_err().to_string();
    assert!(e.contains("`h`"), "{e}");
}

#[test]
fn static_steal_blocks_and_steals() {
    // N = 10, P = 2, min = 2: ntc = 5 pieces of 2, ⌊5/2⌋ = 2 each and one more for rank 0:
    // rank 0 owns pieces 0..3 = [0, 6), rank 1 owns pieces 3..5 = [6, 10).
    let at = |start, size| Chunk { start, size };
    let mut s = sched("static-steal,min=2", 10, 2);
    assert_eq!(s.next_chunk(0), Some(at(0, 2))); // rank 0 takes piece 0 of its own block
    assert_eq!(s.next_chunk(1), Some(at(6, 2))); // rank 1 takes piece 3 of its own block
    assert_eq!(s.next_chunk(1), Some(at(8, 2))); // piece 4: rank 1's block is now empty
                                                 // Rank 1 steals the second half of the largest remaining block, rank 0's pieces 1..3:
                                                 // ⌊2/2⌋ = 1 piece, piece 2 = [4, 6); rank 0 keeps piece 1.
    assert_eq!(s.next_chunk(1), Some(at(4, 2)));
    assert_eq!(s.next_chunk(0), Some(at(2, 2)));
    assert_eq!((s.next_chunk(0), s.next_chunk(1)), (None, None));

    // Rank 1 alone: its block, then ⌊3/2⌋ = 1 piece of rank 0's three (piece 2 = [4, 6)),
    // then ⌊2/2⌋ = 1 of the two left (piece 1), then the last piece, which it may also take.
    let mut s = sched("static-steal,min=2", 10, 2);
    let starts: Vec<u64> = std::iter::from_fn(|| s.next_chunk(1))
        .map(|c| c.start)
        .collect();
    assert_eq!(starts, [6, 8, 4, 2, 0]);

    // N = 1000, P = 4, min = 1: blocks of 250; round robin takes 0, 250, 500, 750, 1, 251, ...
    let mut s = sched("static-steal", 1000, 4);
    let first: Vec<u64> = (0..8).map(|i| s.next_chunk(i % 4).unwrap().start).collect();
    assert_eq!(first, [0, 250, 500, 750, 1, 251, 501, 751]);

    // A short last piece stays at the loop's end: N = 7, P = 2, min = 3 -> pieces [0,3), [3,6), [6,7).
    let mut s = sched("static-steal,min=3", 7, 2);
    assert_eq!(s.next_chunk(1), Some(at(6, 1)));
    assert_eq!(s.next_chunk(1), Some(at(3, 3))); // stolen: rank 0's block had pieces 0, 1
    assert_eq!(s.next_chunk(0), Some(at(0, 3)));
    // Fewer pieces than ranks: the next piece in order.
    assert_eq!(round_robin("static-steal,min=4", 10, 4), [4, 4, 2]);
}
