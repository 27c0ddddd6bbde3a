//! Hummel, Schonberg & Flynn (CACM 1992), reproduced in the simulator: the qualitative ranking of
//! STATIC, SS, GSS and FAC across iterate-time variance and scheduling overhead.

use dls_model::sim::{HsfGrid, ServiceModel};

/// N/P = 1024 as in the default grid; 3 replications per cell keep the test fast.
fn grid(service: ServiceModel) -> HsfGrid {
    HsfGrid {
        n: 16_384,
        p: 16,
        replications: 3,
        seed: 11,
        service,
        ..HsfGrid::default()
    }
}

#[test]
fn hsf_qualitative_ranking_under_the_papers_overhead_model() {
    let t = grid(ServiceModel::Parallel).run().unwrap();
    println!("{t}");
    let r = |cov: f64, h: f64, name: &str| t.ratio(cov, h, name).unwrap();

    // FAC holds up: within 5 % of the best technique in every cell.
    for c in &t.cells {
        let fac = r(c.cov, c.overhead, "fac");
        assert!(
            fac <= 1.05 * c.best_ratio(),
            "cov {} h {}: fac {fac} vs best {}",
            c.cov,
            c.overhead,
            c.best_ratio()
        );
    }

    // SS collapses under overhead: it gets worse as h grows and is far behind FAC at high h.
    for cov in [0.0, 0.5, 1.0, 2.0] {
        let ss: Vec<f64> = [0.0, 0.01, 0.1, 1.0]
            .iter()
            .map(|&h| r(cov, h, "ss"))
            .collect();
        assert!(ss.windows(2).all(|w| w[1] > w[0]), "cov {cov}: ss {ss:?}");
        assert!(r(cov, 0.1, "ss") > 1.05 * r(cov, 0.1, "fac"), "cov {cov}");
        assert!(r(cov, 1.0, "ss") > 1.5 * r(cov, 1.0, "fac"), "cov {cov}");
    }

    // STATIC collapses under variance: it gets worse as the variance grows and is clearly behind
    // FAC at high variance, with or without overhead.
    for h in [0.0, 0.01, 0.1, 1.0] {
        let st: Vec<f64> = [0.0, 0.5, 1.0, 2.0]
            .iter()
            .map(|&c| r(c, h, "static"))
            .collect();
        assert!(st.windows(2).all(|w| w[1] > w[0]), "h {h}: static {st:?}");
        assert!(r(2.0, h, "static") > 1.07 * r(2.0, h, "fac"), "h {h}");
        assert!(r(1.0, h, "static") > 1.03 * r(1.0, h, "fac"), "h {h}");
    }

    // Without variance or overhead every technique is (nearly) perfect.
    for name in ["static", "ss", "gss", "fac", "fac2"] {
        assert!(r(0.0, 0.0, name) < 1.002, "{name}");
    }
}

#[test]
fn a_central_scheduler_makes_ss_collapse_harder() {
    // With dls's central scheduler requests queue: SS, with one request per iterate, is bounded
    // by the scheduler (about N·h), while FAC stays within 20 % of the bound.
    let g = HsfGrid {
        covs: vec![0.0, 2.0],
        overheads: vec![0.1, 1.0],
        ..grid(ServiceModel::Serial)
    };
    let t = g.run().unwrap();
    println!("{t}");
    for cov in [0.0, 2.0] {
        let ss = t.ratio(cov, 1.0, "ss").unwrap();
        let fac = t.ratio(cov, 1.0, "fac").unwrap();
        assert!(ss > 10.0 && fac < 1.2, "cov {cov}: ss {ss}, fac {fac}");
        assert!(t.ratio(cov, 0.1, "ss").unwrap() > 1.3 * t.ratio(cov, 0.1, "fac").unwrap());
    }
}
