//! Parsing, display, serde and validation of technique specifications; random text into the
//! parser never panics.

use dls_technique::{format_duration, parse_duration, Kind, ThetaCriterion, ThetaModel};
use dls_technique::{ChunkScheduler, Technique, TechniqueError};
use proptest::prelude::*;

fn parse(text: &str) -> Result<Technique, TechniqueError> {
    text.parse()
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn sched_err(text: &str, p: usize) -> String {
    ChunkScheduler::new(&parse(text).unwrap(), 100, p)
        .unwrap_err()
        .to_string()
}

#[test]
fn every_name_parses_case_insensitively() {
    for kind in Kind::ALL {
        assert_eq!(parse(kind.name()).unwrap().kind, kind);
        assert_eq!(parse(&kind.name().to_uppercase()).unwrap().kind, kind);
        assert!(!kind.description().is_empty());
        let ex = parse(kind.example()).unwrap();
        assert!(
            ChunkScheduler::new(&ex, 1000, 4).is_ok(),
            "{}",
            kind.example()
        );
    }
    assert_eq!(parse("af").unwrap().kind, Kind::Af);
    assert_eq!(parse("AWF-B").unwrap().kind, Kind::AwfB);
    assert_eq!(parse(" Theta ").unwrap().kind, Kind::Theta);
}

#[test]
fn parameters_from_the_issue() {
    let t = parse("fsc,h=200us,sigma=50us").unwrap();
    assert_eq!((t.params.h, t.params.sigma), (Some(200e-6), Some(50e-6)));
    assert_eq!(parse("fac2,min=4").unwrap().params.min_chunk, 4);
    let w = parse("wf,weights=1:1:1:3").unwrap().params.weights.unwrap();
    assert_eq!(w, [1.0, 1.0, 1.0, 3.0]);
    assert_eq!(parse("fiss,b=3").unwrap().params.b, Some(3));
    assert_eq!(parse("viss,x=4").unwrap().params.x, Some(4.0));
    assert_eq!(parse("rnd,max=50").unwrap().params.max_chunk, Some(50));
    assert_eq!(parse("pls,swr=0.5").unwrap().params.swr, Some(0.5));
    assert_eq!(parse("tap,alpha=1.3").unwrap().params.alpha, Some(1.3));
    let th = parse("theta,criterion=a,model=exp").unwrap();
    assert_eq!(th.params.criterion, Some(ThetaCriterion::A));
    assert_eq!(th.params.model, Some(ThetaModel::Exponential));
    assert_eq!(parse("gss,seed=7").unwrap().params.seed, 7);
    let up = parse("FSC, H = 0.2MS , Sigma=100US").unwrap();
    assert_eq!(up.params.h, Some(0.0002));
    assert_eq!(up.params.sigma, Some(0.0001));
}

#[test]
fn durations_with_units() {
    assert_eq!(parse_duration("5ns"), Some(5e-9));
    assert_eq!(parse_duration("5us"), Some(5e-6));
    assert_eq!(parse_duration("5µs"), Some(5e-6));
    assert_eq!(parse_duration("5ms"), Some(5e-3));
    assert_eq!(parse_duration("5s"), Some(5.0));
    assert_eq!(parse_duration("5"), Some(5.0));
    assert_eq!(parse_duration("1e-3"), Some(1e-3));
    assert_eq!(parse_duration("5 min"), None);
    assert_eq!(parse_duration("ms"), None);
    assert_eq!(format_duration(5e-9), "5ns");
    assert_eq!(format_duration(0.25), "250ms");
    assert_eq!(format_duration(2.0), "2s");
}

#[test]
fn unknown_name_lists_every_valid_name() {
    let e = err("guided");
    assert!(e.contains("`guided`"), "{e}");
    for kind in Kind::ALL {
        assert!(e.contains(kind.name()), "{e} lacks {}", kind.name());
    }
    assert!(err("").contains("valid techniques"));
}

#[test]
fn unknown_parameter_is_named_with_the_valid_ones() {
    let e = err("gss,h=1ms");
    assert!(e.contains("gss") && e.contains("`h`"), "{e}");
    assert!(e.contains("min, max, seed"), "{e}");
    let e = err("fiss,x=3");
    assert!(e.contains("`x`") && e.contains("b, min, max, seed"), "{e}");
    let e = err("fac2,min");
    assert!(e.contains("`min`") && e.contains("key=value"), "{e}");
    let e = err("fac2,min=2,min=3");
    assert!(e.contains("`min`") && e.contains("twice"), "{e}");
    assert!(err("fac2,").contains("fac2"));
}

#[test]
fn ill_typed_values_name_the_parameter() {
    for (text, param) in [
        ("fac2,min=two", "`min`"),
        ("fac2,min=-1", "`min`"),
        ("fac2,max=1.5", "`max`"),
        ("gss,seed=x", "`seed`"),
        ("fsc,h=fast,sigma=1ms", "`h`"),
        ("fsc,h=1ms,sigma=1 hour", "`sigma`"),
        ("wf,weights=1:x:2", "`weights`"),
        ("fiss,b=2.5", "`b`"),
        ("viss,x=many", "`x`"),
        ("pls,swr=half", "`swr`"),
        ("tap,alpha=?", "`alpha`"),
        ("theta,criterion=d", "`criterion`"),
        ("theta,model=gamma", "`model`"),
        ("theta,model=uniform2,m=big", "`m`"),
        ("af,probe=-3", "`probe`"),
        ("awf-c,probe=0.5", "`probe`"),
    ] {
        let e = err(text);
        assert!(e.contains(param), "{text}: {e}");
        let name = text.split(',').next().unwrap();
        assert!(e.starts_with(name), "{text}: {e}");
    }
    assert!(err("theta,criterion=d").contains("a, b or c"));
}

#[test]
fn zero_negative_and_nan_values_are_errors_naming_parameter_and_technique() {
    for (text, param) in [
        ("fsc,h=0,sigma=1ms", "`h`"),
        ("fsc,h=-1ms,sigma=1ms", "`h`"),
        ("fsc,h=NaN,sigma=1ms", "`h`"),
        ("fsc,h=inf,sigma=1ms", "`h`"),
        ("fsc,h=1ms,sigma=0", "`sigma`"),
        ("fac,mu=0,sigma=1ms", "`mu`"),
        ("fac,mu=1ms,sigma=-2us", "`sigma`"),
        ("tap,mu=nan,sigma=1ms", "`mu`"),
        ("theta,model=normal,mu=0,sigma=1ms", "`mu`"),
        ("wf,weights=1:0:1", "`weights`"),
        ("awf-b,weights=1:-1", "`weights`"),
        ("awf,weights=1:NaN", "`weights`"),
        ("fac2,min=0", "`min`"),
        ("fiss,b=1", "`b`"),
        ("viss,x=0", "`x`"),
        ("pls,swr=1.5", "`swr`"),
        ("tap,mu=1ms,sigma=1ms,alpha=-1", "`alpha`"),
        ("theta,model=uniform2,m=0.5", "`m`"),
    ] {
        let e = err(text);
        let name = text.split(',').next().unwrap();
        assert!(e.contains(param) && e.starts_with(name), "{text}: {e}");
    }
}

#[test]
fn min_above_max_is_an_error() {
    let e = err("gss,min=10,max=5");
    assert!(
        e.contains("gss") && e.contains("`min`") && e.contains("`max`"),
        "{e}"
    );
    assert!(parse("gss,min=5,max=5").is_ok());
}

#[test]
fn weights_count_must_be_p() {
    let e = sched_err("wf,weights=1:2:3", 4);
    assert!(
        e.contains("wf") && e.contains("`weights`") && e.contains("3 values"),
        "{e}"
    );
    let mut s = ChunkScheduler::new(&parse("awf").unwrap(), 100, 2).unwrap();
    let e = s.set_weights(vec![1.0]).unwrap_err().to_string();
    assert!(e.contains("awf") && e.contains("`weights`"), "{e}");
    let mut g = ChunkScheduler::new(&parse("gss").unwrap(), 100, 2).unwrap();
    assert!(g
        .set_weights(vec![1.0, 1.0])
        .unwrap_err()
        .to_string()
        .contains("gss"));
    assert!(ChunkScheduler::new(&parse("gss").unwrap(), 100, 0).is_err());
}

#[test]
fn required_parameters_are_checked_when_the_loop_starts() {
    // Parsing accepts half of a pair (a caller such as the simulator may fill in the other) but
    // the scheduler does not.
    for (text, param) in [
        ("fsc,sigma=1ms", "`h`"),
        ("fsc,h=1ms", "`sigma`"),
        ("fac,sigma=1ms", "`mu`"),
        ("tap,mu=1ms", "`sigma`"),
        ("theta,model=normal", "`mu`"),
        ("theta,model=uniform2", "`m`"),
    ] {
        let e = sched_err(text, 4);
        let name = text.split(',').next().unwrap();
        assert!(e.contains(param) && e.starts_with(name), "{text}: {e}");
        assert!(e.contains("required") && e.contains("for example"), "{e}");
    }
    let e = err("theta,m=3");
    assert!(e.contains("`m`") && e.contains("uniform2"), "{e}");
    let e = err("theta,mu=1ms");
    assert!(e.contains("`mu`") && e.contains("normal"), "{e}");
}

#[test]
fn programmatic_parameters_the_technique_does_not_take_are_rejected() {
    let mut t = Technique::new(Kind::Gss);
    t.params.h = Some(1e-3);
    let e = ChunkScheduler::new(&t, 10, 2).unwrap_err().to_string();
    assert!(e.contains("gss") && e.contains("`h`"), "{e}");
    let mut t = Technique::new(Kind::Fac2);
    t.params.probe = Some(4);
    let e = ChunkScheduler::new(&t, 10, 2).unwrap_err().to_string();
    assert!(e.contains("fac2") && e.contains("`probe`"), "{e}");
}

#[test]
fn probe_is_a_parameter_of_the_adaptive_techniques_only() {
    // The sampling phase belongs to the techniques that measure ranks (AWF on its first time
    // step); every other technique rejects `probe` and names its valid parameters.
    for kind in Kind::ALL {
        let text = format!("{},probe=8", kind.name());
        let takes = matches!(
            kind,
            Kind::Af | Kind::AfA | Kind::Awf | Kind::AwfB | Kind::AwfC | Kind::AwfD | Kind::AwfE
        );
        let names: Vec<&str> = kind.parameters().iter().map(|p| p.name).collect();
        assert_eq!(names.contains(&"probe"), takes, "{kind}: {names:?}");
        match parse(&text) {
            Ok(t) => {
                assert!(takes, "{text} parsed");
                assert_eq!(t.params.probe, Some(8));
                assert_eq!(t.to_string(), text);
            }
            Err(e) => {
                let e = e.to_string();
                assert!(!takes, "{text}: {e}");
                assert!(
                    e.contains("`probe`") && e.contains("valid parameters"),
                    "{e}"
                );
            }
        }
    }
    let names = |t: &str| -> Vec<&'static str> {
        parse(t)
            .unwrap()
            .parameters()
            .iter()
            .map(|p| p.name)
            .collect()
    };
    assert_eq!(names("af"), ["probe", "local", "min", "max", "seed"]);
    assert_eq!(
        names("awf-b"),
        ["weights", "probe", "local", "min", "max", "seed"]
    );
    assert_eq!(
        names("awf"),
        ["weights", "probe", "local", "min", "max", "seed"]
    );
    assert_eq!(names("wf"), ["weights", "min", "max", "seed"]);
    assert_eq!(names("fac2"), ["min", "max", "seed"]);
    // probe=0 (phase off) is valid and kept in the text form.
    assert_eq!(parse("AF,PROBE=0").unwrap().to_string(), "af,probe=0");
}

#[test]
fn display_round_trips_and_serde_uses_the_text() {
    for text in [
        "fsc,h=200us,sigma=50us",
        "fac,mu=1.5ms,sigma=1ms,min=2,max=100",
        "wf,weights=1:1:1:3",
        "awf-e,weights=0.5:2",
        "awf-b,weights=1:3,probe=0",
        "af,probe=20,min=2",
        "fiss,b=5",
        "viss,x=2.5",
        "rnd,min=2,max=50,seed=9",
        "pls,swr=0.25",
        "tap,mu=1ms,sigma=2ms,alpha=1.3",
        "theta,criterion=c,model=uniform2,m=3",
        "theta,criterion=b,model=normal,mu=10ns,sigma=3s",
    ] {
        let t = parse(text).unwrap();
        assert_eq!(t.to_string(), text);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        assert_eq!(serde_json::from_str::<Technique>(&json).unwrap(), t);
    }
    assert_eq!(parse("FAC2,MIN=1").unwrap().to_string(), "fac2");
    let bad = serde_json::from_str::<Technique>("\"fsc,q=1\"").unwrap_err();
    assert!(bad.to_string().contains("`q`"));
}

#[test]
fn parameters_and_descriptions_for_help() {
    let t = parse("theta").unwrap();
    let names: Vec<&str> = t.parameters().iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "criterion",
            "model",
            "m",
            "mu",
            "sigma",
            "min",
            "max",
            "seed"
        ]
    );
    assert!(t.description().contains("Wegman c. 2000"));
    for kind in Kind::ALL {
        for p in kind.parameters() {
            assert!(
                !p.value.is_empty() && !p.help.is_empty(),
                "{kind} {}",
                p.name
            );
        }
    }
}

fn any_name() -> impl Strategy<Value = String> {
    (0..Kind::ALL.len(), any::<bool>()).prop_map(|(i, upper)| {
        let n = Kind::ALL[i].name();
        if upper {
            n.to_uppercase()
        } else {
            n.to_string()
        }
    })
}

fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{1,20}",
        "-?[0-9]{0,3}\\.?[0-9]{0,3}(e-?[0-9])?(ns|us|ms|s|µs)?",
        "[0-9]{1,3}(:[0-9]{1,2}){0,5}",
        "(a|b|c|d|exp|uniform|uniform2|normal|nan|inf|-inf)",
        ".{0,6}",
    ]
}

fn any_param() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        "(min|max|seed|h|sigma|mu|weights|b|x|swr|alpha|criterion|model|m|probe)",
        "[a-z]{1,3}",
    ];
    (key, any_value()).prop_map(|(k, v)| format!("{k}={v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary text never panics the parser.
    #[test]
    fn random_text_never_panics(text in ".{0,40}") {
        let _ = parse(&text);
    }

    /// Near-valid specifications: never a panic; what parses round-trips through Display, and
    /// the scheduler either accepts it or says why, for any P.
    #[test]
    fn near_valid_specs(
        name in any_name(),
        params in prop::collection::vec(any_param(), 0..5),
        p in 1usize..=8,
        n in prop_oneof![Just(50u64), any::<u64>()],
    ) {
        let text = std::iter::once(name).chain(params).collect::<Vec<_>>().join(",");
        if let Ok(t) = parse(&text) {
            let shown = t.to_string();
            prop_assert_eq!(parse(&shown).unwrap(), t.clone(), "{} -> {}", text, shown);
            if let Ok(mut s) = ChunkScheduler::new(&t, n, p) {
                // the whole loop when small, its first chunks when huge
                let mut total = 0u64;
                for _ in 0..if n <= 50 { 50 } else { 5 } {
                    let remaining = s.remaining();
                    let Some(c) = s.next_chunk(0) else { break };
                    prop_assert!(c.size >= 1 && c.size <= remaining);
                    total += c.size;
                }
                if n <= 50 {
                    prop_assert_eq!(total, n);
                }
            }
        }
    }

    /// Every positive duration formats to text that parses back to the same value.
    #[test]
    fn durations_round_trip(x in 1e-12f64..1e6) {
        prop_assert_eq!(parse_duration(&format_duration(x)), Some(x));
    }
}

#[test]
fn extreme_settings_do_not_panic() {
    for text in [
        "fiss,b=18446744073709551615",
        "fac2,min=18446744073709551615",
        "rnd,max=18446744073709551615,seed=18446744073709551615",
        "viss,x=1e-300",
        "viss,x=1e300",
        "tap,mu=1ns,sigma=1e300s,alpha=1e300",
        "fsc,h=1e300s,sigma=1e-300s",
        "fac,mu=1e-300s,sigma=1e300s",
        "pls,swr=0",
        "pls,swr=1",
    ] {
        let t = parse(text).unwrap();
        for (n, p) in [(u64::MAX, 3), (1_000, 7), (1, 1)] {
            let mut s = ChunkScheduler::new(&t, n, p).unwrap();
            let c = s.next_chunk(0).unwrap();
            assert!(c.size >= 1 && c.size <= n, "{text}");
        }
    }
}

#[test]
fn statistics_techniques_without_statistics_fall_back() {
    // FSC without h and sigma uses mFSC's chunk, FAC without mu and sigma is FAC2 (x = 2, the
    // paper's rule for unknown statistics), TAP without them has v = 0, which is GSS.
    let run = |spec: &str| {
        let mut s = ChunkScheduler::new(&parse(spec).unwrap(), 1000, 4).unwrap();
        std::iter::from_fn(|| s.next_chunk(0).map(|c| c.size)).collect::<Vec<_>>()
    };
    assert_eq!(run("fsc"), run("mfsc"));
    assert_eq!(run("fac"), run("fac2"));
    assert_eq!(run("tap"), run("gss"));
    for kind in Kind::ALL {
        assert!(
            ChunkScheduler::new(&Technique::new(kind), 10, 3).is_ok(),
            "{kind}"
        );
    }
}
