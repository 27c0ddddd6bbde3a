//! Property tests for every technique, over random N (0 to 10^6), P (1 to 1024), minimum and
//! maximum chunk, parameters, weights and measured statistics (random per-rank speeds and noisy
//! timings fed through `record`): the chunks cover [0, N) exactly once, in order; no chunk is 0
//! or larger than R; every chunk respects `max`, and every chunk but the last respects `min`;
//! the sequence ends within N chunks.

mod technique_support;

use dls_technique::Kind;
use dls_technique::{ChunkScheduler, Technique};
use proptest::prelude::*;
use technique_support::{coverage_gap, drive, mix, places_chunks};

/// Random knobs from which a specification and a workload are built.
#[derive(Debug, Clone)]
struct Knobs {
    min: u64,
    max: Option<u64>,
    seed: u64,
    h_us: f64,
    sigma_us: f64,
    mu_us: f64,
    b: u64,
    x: f64,
    swr: f64,
    alpha: f64,
    criterion: usize,
    model: usize,
    m: f64,
    weighted: bool,
    spread: u64,
    overhead: f64,
    probe: Option<u64>,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        (
            prop_oneof![Just(1u64), 1u64..=64],
            prop::option::of(100u64..=200_000),
            any::<u64>(),
            10.0f64..=1000.0,
            10.0f64..=1000.0,
            1.0f64..=1000.0,
        ),
        (
            2u64..=8,
            0.5f64..=64.0,
            0.0f64..=1.0,
            0.0f64..=3.0,
            0usize..3,
            0usize..4,
            1.0f64..=10.0,
        ),
        (
            any::<bool>(),
            1u64..=10,
            0.0f64..=1e-3,
            prop::option::of(prop_oneof![Just(0u64), 1u64..=5_000]),
        ),
    )
        .prop_map(
            |(
                (min, max, seed, h_us, sigma_us, mu_us),
                (b, x, swr, alpha, criterion, model, m),
                (weighted, spread, overhead, probe),
            )| Knobs {
                min,
                max: max.map(|m| m + min),
                seed,
                h_us,
                sigma_us,
                mu_us,
                b,
                x,
                swr,
                alpha,
                criterion,
                model,
                m,
                weighted,
                spread,
                overhead,
                probe,
            },
        )
}

/// The specification of `kind` with parameters drawn from the knobs.
fn spec(kind: Kind, p: usize, k: &Knobs) -> String {
    let mut s = kind.name().to_string();
    let mut add = |part: String| {
        s.push(',');
        s.push_str(&part);
    };
    match kind {
        // `weighted` also decides whether the statistics techniques get their statistics.
        Kind::Fsc if k.weighted => {
            add(format!("h={}us", k.h_us));
            add(format!("sigma={}us", k.sigma_us));
        }
        Kind::Bold if k.weighted => {
            add(format!("mu={}us", k.mu_us));
            add(format!("sigma={}us", k.sigma_us));
            add(format!("h={}us", k.h_us));
        }
        Kind::AfA => add(format!("divider={}", k.b)),
        Kind::Fac | Kind::Faca | Kind::Tap if k.weighted => {
            add(format!("mu={}us", k.mu_us));
            add(format!("sigma={}us", k.sigma_us));
            if kind == Kind::Tap {
                add(format!("alpha={}", k.alpha));
            }
        }
        Kind::Wf | Kind::Awf | Kind::AwfB | Kind::AwfC | Kind::AwfD | Kind::AwfE if k.weighted => {
            let w: Vec<String> = (0..p)
                .map(|i| format!("{}", 1 + mix(k.seed ^ i as u64) % 100))
                .collect();
            add(format!("weights={}", w.join(":")));
        }
        Kind::Fiss => add(format!("b={}", k.b)),
        Kind::Viss => add(format!("x={}", k.x)),
        Kind::Pls => add(format!("swr={}", k.swr)),
        Kind::Theta => {
            add(format!("criterion={}", ["a", "b", "c"][k.criterion]));
            let model = ["exp", "uniform", "uniform2", "normal"][k.model];
            add(format!("model={model}"));
            if model == "uniform2" {
                add(format!("m={}", k.m));
            }
            if model == "normal" {
                add(format!("mu={}us", k.mu_us));
                add(format!("sigma={}us", k.sigma_us));
            }
        }
        _ => {}
    }
    let takes_probe = kind.parameters().iter().any(|p| p.name == "probe");
    if let (true, Some(probe)) = (takes_probe, k.probe) {
        add(format!("probe={probe}"));
    }
    if k.min != 1 {
        add(format!("min={}", k.min));
    }
    if let Some(max) = k.max {
        add(format!("max={max}"));
    }
    add(format!("seed={}", k.seed));
    s
}

/// Runs the loop with random per-rank speeds and noisy timings and checks every property.
fn check(kind: Kind, n: u64, p: usize, k: &Knobs) -> Result<(), TestCaseError> {
    let text = spec(kind, p, k);
    let t: Technique = text
        .parse()
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(t.to_string().parse::<Technique>().unwrap(), t.clone());
    let mut s = ChunkScheduler::new(&t, n, p).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let per_iterate: Vec<f64> = (0..p)
        .map(|r| 1e-6 * (1 + mix(k.seed.rotate_left(7) ^ r as u64) % k.spread) as f64)
        .collect();
    let chunks = drive(&mut s, &per_iterate, k.overhead, k.seed).map_err(TestCaseError::fail)?;
    let max = k.max.unwrap_or(u64::MAX);
    for (i, (_, c)) in chunks.iter().enumerate() {
        prop_assert!(c.size <= max, "{}: chunk {:?} above max", text, c);
        // The last chunk may be short; static-steal's short piece is the loop's last piece,
        // which its owner may take before others.
        let last = i + 1 == chunks.len() || (places_chunks(&t) && c.start + c.size == n);
        if !last {
            prop_assert!(c.size >= k.min, "{}: chunk {:?} below min", text, c);
        }
    }
    Ok(())
}

const CASES: u32 = 24;

macro_rules! coverage {
    ($($name:ident: $kind:expr, $max_n:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(CASES))]
            $(
                #[test]
                fn $name(n in 0u64..=$max_n, p in 1usize..=1024, k in knobs()) {
                    check($kind, n, p, &k)?;
                }
            )*
        }
    };
}

// SS hands out one chunk per iterate, and FSC and static-steal (one piece of `min` iterates
// per request) can come close to it: their N is capped so that
// a case stays fast in a debug build.
coverage! {
    covers_static: Kind::Static, 1_000_000;
    covers_ss: Kind::Ss, 20_000;
    covers_fsc: Kind::Fsc, 200_000;
    covers_mfsc: Kind::Mfsc, 1_000_000;
    covers_gss: Kind::Gss, 1_000_000;
    covers_tss: Kind::Tss, 1_000_000;
    covers_fac: Kind::Fac, 1_000_000;
    covers_fac2: Kind::Fac2, 1_000_000;
    covers_wf: Kind::Wf, 1_000_000;
    covers_awf: Kind::Awf, 1_000_000;
    covers_awf_b: Kind::AwfB, 1_000_000;
    covers_awf_c: Kind::AwfC, 1_000_000;
    covers_awf_d: Kind::AwfD, 1_000_000;
    covers_awf_e: Kind::AwfE, 1_000_000;
    covers_af: Kind::Af, 1_000_000;
    covers_tfss: Kind::Tfss, 1_000_000;
    covers_fiss: Kind::Fiss, 1_000_000;
    covers_viss: Kind::Viss, 1_000_000;
    covers_rnd: Kind::Rnd, 1_000_000;
    covers_pls: Kind::Pls, 1_000_000;
    covers_tap: Kind::Tap, 1_000_000;
    covers_theta: Kind::Theta, 1_000_000;
    covers_fac2a: Kind::Fac2a, 1_000_000;
    covers_faca: Kind::Faca, 1_000_000;
    covers_af_a: Kind::AfA, 1_000_000;
    covers_bold: Kind::Bold, 1_000_000;
    covers_static_steal: Kind::StaticSteal, 20_000;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Small loops, where off-by-one errors live: every technique, N up to 3·P.
    #[test]
    fn small_loops_every_technique(p in 1usize..=16, extra in 0u64..=48, k in knobs()) {
        let n = extra.min(3 * p as u64);
        for kind in Kind::ALL {
            check(kind, n, p, &k)?;
        }
    }

    /// Any rank order: ranks ask in a random order (some never), still exact coverage.
    #[test]
    fn any_request_order(n in 0u64..=5_000, p in 1usize..=64, order_seed in any::<u64>()) {
        for kind in Kind::ALL {
            let t: Technique = kind.example().replace(",min=4", "").parse().unwrap();
            let mut s = ChunkScheduler::new(&t, n, p).unwrap();
            let live = 1 + (order_seed % p as u64) as usize;
            let mut next = 0;
            let mut i = 0u64;
            let mut chunks = Vec::new();
            while let Some(c) = s.next_chunk((mix(order_seed ^ i) % live as u64) as usize) {
                if !places_chunks(&t) {
                    prop_assert_eq!(c.start, next);
                }
                prop_assert!(c.size >= 1);
                next += c.size;
                chunks.push(c);
                i += 1;
                prop_assert!(i <= n);
            }
            prop_assert_eq!(next, n, "{}", t);
            prop_assert_eq!(coverage_gap(chunks.into_iter(), n), None, "{}", t);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A technique that does not learn (`ChunkScheduler::learns` false) hands out the same
    /// chunks whether the timings are recorded or not: a scheduler may answer a request before
    /// it records the timing the request carried (the MPI service does).
    #[test]
    fn only_learning_techniques_size_chunks_from_timings(
        n in 0u64..=5_000,
        p in 1usize..=16,
        k in knobs(),
    ) {
        for kind in Kind::ALL {
            let text = spec(kind, p, &k);
            let t: Technique = text.parse().unwrap();
            let mut timed = ChunkScheduler::new(&t, n, p).unwrap();
            if timed.learns() {
                continue;
            }
            let mut blind = ChunkScheduler::new(&t, n, p).unwrap();
            let mut i = 0u64;
            loop {
                let rank = (mix(k.seed ^ i) % p as u64) as usize;
                let (a, b) = (timed.next_chunk(rank), blind.next_chunk(rank));
                prop_assert_eq!(a, b, "{}", text);
                let Some(c) = a else { break };
                let work_s = 1e-6 * c.size as f64 * (1 + mix(k.seed ^ !i) % 50) as f64;
                timed.record(rank, dls_technique::ChunkTiming {
                    iterates: c.size,
                    work_s,
                    elapsed_s: work_s * 1.1,
                });
                i += 1;
            }
        }
    }
}
