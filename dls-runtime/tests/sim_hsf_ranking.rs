//! Hummel, Schonberg & Flynn (CACM 1992), reproduced in the simulator: the qualitative ranking of
//! STATIC, SS, GSS and FAC across iterate-time variance and scheduling overhead.

use dls_runtime::sim::{HsfGrid, HsfTable};

fn table() -> HsfTable {
    // N/P = 1024 as in the default grid; 3 replications per cell keep the test fast.
    let grid = HsfGrid {
        n: 16_384,
        p: 16,
        replications: 3,
        seed: 11,
        ..HsfGrid::default()
    };
    let t = grid.run().unwrap();
    println!("{t}");
    t
}

#[test]
fn hsf_qualitative_ranking() {
    let t = table();
    let r = |cov: f64, h: f64, name: &str| t.ratio(cov, h, name).unwrap();

    // FAC holds up: within 10 % of the best technique in every cell.
    for c in &t.cells {
        let fac = r(c.cov, c.overhead, "fac");
        assert!(
            fac <= 1.10 * c.best_ratio(),
            "cov {} h {}: fac {fac} vs best {}",
            c.cov,
            c.overhead,
            c.best_ratio()
        );
    }

    // SS collapses under overhead: it gets worse as h grows, and is far behind FAC at high h.
    for cov in [0.0, 0.5, 1.0, 2.0] {
        let ss: Vec<f64> = [0.0, 0.01, 0.1, 1.0]
            .iter()
            .map(|&h| r(cov, h, "ss"))
            .collect();
        assert!(ss.windows(2).all(|w| w[1] > w[0]), "cov {cov}: ss {ss:?}");
        assert!(r(cov, 0.1, "ss") > 1.3 * r(cov, 0.1, "fac"), "cov {cov}");
        assert!(r(cov, 1.0, "ss") > 5.0 * r(cov, 1.0, "fac"), "cov {cov}");
    }

    // STATIC collapses under variance: it gets worse as the variance grows, and is clearly behind
    // FAC at high variance without overhead.
    let st: Vec<f64> = [0.0, 0.5, 1.0, 2.0]
        .iter()
        .map(|&c| r(c, 0.0, "static"))
        .collect();
    assert!(st.windows(2).all(|w| w[1] > w[0]), "static {st:?}");
    assert!(r(2.0, 0.0, "static") > 1.07 * r(2.0, 0.0, "fac"));
    assert!(r(1.0, 0.0, "static") > 1.03 * r(1.0, 0.0, "fac"));

    // Without variance or overhead every technique is perfect.
    for name in ["static", "ss", "gss", "fac", "fac2"] {
        assert!((r(0.0, 0.0, name) - 1.0).abs() < 1e-9, "{name}");
    }
}
