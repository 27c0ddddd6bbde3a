//! The facade `dls` re-exports what a user's program names (as crossbeam's facade re-exports its
//! sub-crates): the macros of `dls-macros`, and the runtime's entry points and types from
//! `dls-runtime` (which takes the techniques from `dls-technique`). The packages' own behaviour
//! is tested in their own `tests/` folders; this file only checks that the names resolve through
//! `dls` and lead to working items.

// The attributes a program writes: `#[dls::main]`, `#[dls::parallel]`.
#[allow(unused_imports)]
use dls::{main as _, parallel as _};

/// `#[dls::parallel]` rewrites the `#[par_doall]` loop inside (`par_doall` is no item of its own:
/// the outer attribute consumes it).
#[dls::parallel]
fn sum_of_squares(n: u64) -> u64 {
    let mut total = 0_u64;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += i * i;
    }
    total
}

#[test]
fn the_macros_resolve_through_the_facade() {
    assert_eq!(
        sum_of_squares(100),
        (0..100_u64).map(|i| i * i).sum::<u64>()
    );
}

#[test]
fn the_runtime_entry_points_resolve_through_the_facade() {
    let init: fn() -> Result<dls::Runtime, dls::DlsError> = dls::init;
    let current: fn() -> Result<dls::Runtime, dls::DlsError> = dls::current;
    let rt: dls::Runtime = init().expect("a threads runtime").with_statistics(true);
    assert!(current().is_ok());
    assert!(dls::is_root());
    let technique: dls::Technique = "gss".parse().unwrap();
    let stats: dls::LoopStats = rt.doall(0..10_u32, technique, |_| {}).unwrap();
    let report: &dls::LoopReport = &stats.report;
    assert_eq!(report.technique, "gss");
    assert_eq!(dls::region("setup", || 42), 42);
}

#[test]
fn the_technique_types_resolve_through_the_facade() {
    let bad: Result<dls::Technique, dls::TechniqueError> = "fastest".parse();
    assert!(bad.is_err());
    let mut scheduler = dls::ChunkScheduler::new(&"ss".parse().unwrap(), 3, 1).unwrap();
    let chunk: Option<dls::Chunk> = scheduler.next_chunk(0);
    assert!(chunk.is_some());
    let strategy: dls::Strategy = "tree".parse().unwrap();
    assert_eq!(strategy.to_string(), "tree");
}

/// serde and its derives, for a program's own types, with `dls` as the only dependency.
#[test]
fn serde_resolves_through_the_facade() {
    #[derive(Debug, PartialEq, dls::Serialize, dls::Deserialize)]
    #[serde(crate = "dls::serde")]
    struct Cell {
        hits: u64,
    }
    let text = serde_json::to_string(&Cell { hits: 1 }).unwrap();
    assert_eq!(text, r#"{"hits":1}"#);
    assert_eq!(
        serde_json::from_str::<Cell>(&text).unwrap(),
        Cell { hits: 1 }
    );
}

/// The one loop engine and its options, at the top and in `dls::runtime`, compose an ordered
/// merge with a check.
#[test]
fn the_engine_and_its_options_resolve_through_the_facade() {
    let rt = dls::init().unwrap().with_statistics(true);
    let options = dls::LoopOptions::new("words", "ss".parse().unwrap())
        .ordered()
        .check(dls::Check::default());
    let same: &dls::runtime::options::LoopOptions = &options;
    let (s, stats) = rt
        .run(
            same,
            0..4_u8,
            String::new,
            |i, s: &mut String| {
                s.push(char::from(b'a' + i));
                f64::from(i % 2)
            },
            |a, b| a + &b,
        )
        .unwrap();
    assert_eq!(s, "abcd");
    assert!(stats.report.check.is_some());
    let _: dls::runtime::checked::CheckMode = Default::default();
    let _: dls::runtime::settings::Settings = Default::default();
    // The parsers and the list of settings are the runtime's, not the facade's.
    assert!(dls_runtime::runtime::settings::SETTINGS.contains(&"DLS_SCHEDULE"));
    let _: fn(&str) -> Result<dls::Technique, dls::DlsError> =
        dls_runtime::runtime::settings::parse_schedule;
    let _: dls::group::GroupSpec = dls::group::GroupSpec::new(1, 2);
    let _: dls::reduce::Sum = dls::reduce::Sum;
    let _: u64 = dls::input::MAX_INPUT;
}
