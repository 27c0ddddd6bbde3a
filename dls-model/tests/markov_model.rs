//! The Markov model of Casanova, Thomason & Dongarra (1999): exact small chains worked out by
//! hand with rational arithmetic (the paper's own distributions exist only as figures), the
//! chain against its own Monte Carlo simulation for p = 2, 3, 4, and the size limit.

use dls_model::markov::{
    build_chain, simulate_phases, solve_chain, ChainLimit, Discrete, MarkovError, MarkovInputs,
    PhaseMoments,
};

fn d(points: &[(u64, f64)]) -> Discrete {
    Discrete::new(points.to_vec()).unwrap()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (tolerance {tol})"
    );
}

/// Example 1: p = 2, synchronous, α¹ ∈ {1, 3} (1/2 each), α² ∈ {1 (1/4), 2 (3/4)}, messages 1.
fn example1() -> MarkovInputs {
    MarkovInputs::new(
        vec![d(&[(1, 0.5), (3, 0.5)]), d(&[(1, 0.25), (2, 0.75)])],
        Discrete::constant(1),
        1.0,
    )
}

/// Example 2: p = 3, synchronous, one random link pair (processors 0 and 2).
fn example2() -> MarkovInputs {
    let two = d(&[(1, 0.5), (2, 0.5)]);
    MarkovInputs::new(
        vec![
            d(&[(2, 0.5), (4, 0.5)]),
            Discrete::constant(3),
            d(&[(1, 1.0 / 3.0), (5, 2.0 / 3.0)]),
        ],
        Discrete::constant(1),
        1.0,
    )
    .with_link(2, 0, two.clone())
    .with_link(0, 2, two)
}

#[test]
fn example1_transition_matrix_is_exact() {
    let chain = build_chain(&example1(), &ChainLimit::default()).unwrap();
    assert_eq!(chain.states().len(), 3);
    // Rows from, columns to, in the order (0, -1, +1).
    let at: Vec<usize> = [0, -1, 1]
        .iter()
        .map(|&x| chain.index_of(&[0, x]).unwrap())
        .collect();
    let want = [
        [1.0 / 8.0, 3.0 / 8.0, 1.0 / 2.0],
        [3.0 / 8.0, 0.0, 5.0 / 8.0],
        [3.0 / 8.0, 1.0 / 2.0, 1.0 / 8.0],
    ];
    for (from, row) in want.iter().enumerate() {
        for (to, &q) in row.iter().enumerate() {
            let got = chain.probability(at[from], at[to]);
            close(got, q, 1e-15, &format!("P[{from}][{to}]"));
        }
    }
}

#[test]
fn example1_stationary_distribution_moments_and_levels_are_exact() {
    let r = solve_chain(&example1(), &ChainLimit::default()).unwrap();
    for (x, want) in [(0, 3.0 / 10.0), (-1, 37.0 / 120.0), (1, 47.0 / 120.0)] {
        let k = r.states.iter().position(|s| s == &[0, x]).unwrap();
        close(r.pi[k], want, 1e-14, &format!("pi(0, {x})"));
    }
    let phi: Vec<f64> = r.phase_time.iter().map(|p| p.0).collect();
    assert_eq!(phi, [1.0, 2.0, 3.0, 4.0]);
    for (got, want) in
        r.phase_time
            .iter()
            .zip([37.0 / 960.0, 49.0 / 320.0, 247.0 / 480.0, 47.0 / 160.0])
    {
        close(got.1, want, 1e-14, "P(Phi)");
    }
    close(r.moments.mean_phi, 2941.0 / 960.0, 1e-13, "E[Phi]");
    close(r.moments.var_phi, 550199.0 / 921600.0, 1e-12, "Var[Phi]");
    assert_eq!((r.moments.mean_n, r.moments.var_n), (1.0, 0.0));
    let c = r.moments.convergence(6.0, 0.05).unwrap();
    close(c.iterations, 120.0, 1e-9, "iterations");
    close(c.theta1, 367.625, 1e-9, "Theta1");
    close(
        c.sigma,
        (120.0 * 550199.0 / 921600.0f64).sqrt(),
        1e-9,
        "sigma",
    );
    close(c.sigma, 8.464071, 1e-6, "sigma");
}

#[test]
fn example2_eight_states_and_their_stationary_probabilities_are_exact() {
    let r = solve_chain(&example2(), &ChainLimit::default()).unwrap();
    let want: [([i64; 3], f64); 8] = [
        ([0, 0, 0], 13227.0 / 104209.0),
        ([0, -1, 0], 12841.0 / 104209.0),
        ([0, 0, -1], 3176.0 / 14887.0),
        ([0, -1, -2], 3176.0 / 14887.0),
        ([0, 1, 1], 18063.0 / 208418.0),
        ([0, 1, 2], 18063.0 / 208418.0),
        ([0, -1, -1], 916.0 / 14887.0),
        ([0, 0, 1], 9202.0 / 104209.0),
    ];
    assert_eq!(r.states.len(), 8, "{:?}", r.states);
    for (state, pi) in want {
        let k = r
            .states
            .iter()
            .position(|s| s == &state)
            .unwrap_or_else(|| panic!("state {state:?} missing from {:?}", r.states));
        close(r.pi[k], pi, 1e-13, &format!("pi{state:?}"));
    }
    // Lemma B.1: |X_i| <= M = 2.
    assert_eq!(r.m, 2);
    assert!(r.states.iter().flatten().all(|x| x.abs() <= 2));
    close(r.moments.mean_phi, 1130167.0 / 208418.0, 1e-12, "E[Phi]");
    close(
        r.moments.var_phi,
        102344461021.0 / 43438062724.0,
        1e-11,
        "Var[Phi]",
    );
}

#[test]
fn example1_asynchronous_variants_under_this_projects_convention() {
    let one = solve_chain(
        &example1().with_asynchrony(vec![1, 1], vec![1, 1]),
        &ChainLimit::default(),
    )
    .unwrap();
    close(one.moments.mean_n, 3469.0 / 1920.0, 1e-13, "E[N], B = 1");
    close(one.moments.var_n, 0.1558917, 1e-7, "Var[N], B = 1");
    close(one.moments.cov_n_phi, 0.0146219, 1e-7, "Cov[N, Phi], B = 1");
    // Eq. 7 does not involve B: the phase time is the synchronous one.
    close(one.moments.mean_phi, 2941.0 / 960.0, 1e-13, "E[Phi], B = 1");
    let two = solve_chain(
        &example1().with_asynchrony(vec![1, 1], vec![2, 2]),
        &ChainLimit::default(),
    )
    .unwrap();
    close(two.moments.mean_n, 30749.0 / 15360.0, 1e-13, "E[N], B = 2");
    close(two.moments.mean_phi, 2941.0 / 960.0, 1e-13, "E[Phi], B = 2");
}

#[test]
fn level2_with_a_random_iteration_count_uses_the_conditional_deviation() {
    let m = PhaseMoments {
        mean_phi: 3.0,
        var_phi: 0.5,
        mean_n: 2.0,
        var_n: 0.2,
        cov_n_phi: 0.1,
    };
    let c = m.convergence(4.0, 0.1).unwrap();
    // 40 iterations, 20 phases: sigma_X^2 = 4, sigma_Y^2 = 10, sigma_XY = 2.
    close(c.phases, 20.0, 1e-12, "phases");
    close(c.theta1, 60.0, 1e-12, "Theta1");
    let r = 2.0 / (4.0f64.sqrt() * 10.0f64.sqrt());
    close(
        c.sigma,
        10.0f64.sqrt() * (1.0 - r * r).sqrt(),
        1e-12,
        "sigma",
    );
}

/// The chain's figures against the simulation's: within `tol` (relative) each.
fn agree(inputs: &MarkovInputs, phases: u64, tol: f64) -> Vec<(String, f64)> {
    let chain = solve_chain(inputs, &ChainLimit::default()).unwrap().moments;
    let sim = simulate_phases(inputs, phases, 2024, false)
        .unwrap()
        .moments;
    let rows = [
        ("E[Phi]", chain.mean_phi, sim.mean_phi),
        ("sd[Phi]", chain.sd_phi(), sim.sd_phi()),
        ("E[N]", chain.mean_n, sim.mean_n),
        ("S", chain.speed(), sim.speed()),
    ];
    let mut out = Vec::new();
    for (what, c, s) in rows {
        let rel = (s - c).abs() / c.abs();
        assert!(
            rel <= tol,
            "p = {}: {what}: chain {c}, simulation {s}, {:.3}% apart",
            inputs.p(),
            100.0 * rel
        );
        out.push((what.to_string(), rel));
    }
    println!("p = {}, B = {:?}: {out:?}", inputs.p(), inputs.b);
    out
}

fn uneven(p: usize) -> MarkovInputs {
    // Heterogeneous processors, two random links into processor 0.
    let u = [
        d(&[(2, 0.5), (5, 0.5)]),
        d(&[(3, 0.25), (4, 0.75)]),
        d(&[(1, 0.4), (6, 0.6)]),
        d(&[(2, 0.7), (7, 0.3)]),
    ];
    let mut i = MarkovInputs::new(u[..p].to_vec(), Discrete::constant(1), 1e-3);
    for j in 1..p {
        i = i.with_link(j, 0, d(&[(1, 0.5), (2, 0.5)]));
    }
    i
}

#[test]
fn chain_and_simulation_agree_within_one_percent_for_p_2_3_4() {
    // Seeded, so the outcome is fixed; 300,000 phases put the sampling error of each figure
    // near 0.2%, well inside the 1%.
    for p in [2, 3, 4] {
        let sync = uneven(p);
        agree(&sync, 300_000, 0.01);
        let asynchronous = uneven(p).with_asynchrony(vec![1; p], vec![2; p]);
        agree(&asynchronous, 300_000, 0.01);
    }
}

#[test]
fn simulation_visits_states_as_often_as_pi_says() {
    let r = solve_chain(&example2(), &ChainLimit::default()).unwrap();
    let sim = simulate_phases(&example2(), 400_000, 5, true).unwrap();
    assert_eq!(sim.state_frequencies.len(), r.states.len());
    for (state, freq) in &sim.state_frequencies {
        let k = r.states.iter().position(|s| s == state).unwrap();
        close(*freq, r.pi[k], 0.004, &format!("frequency of {state:?}"));
    }
}

#[test]
fn a_state_space_beyond_the_limit_is_an_error_before_building() {
    // p = 8, messages up to 40 ticks: (2 x 40 + 1)^7 states bound.
    let u = d(&[(10, 0.5), (20, 0.5)]);
    let n = d(&[(1, 0.5), (40, 0.5)]);
    let inputs = MarkovInputs::new(vec![u; 8], n, 1e-3);
    let size = inputs.size();
    assert_eq!(size.states_bound, 81u128.pow(7));
    let e = build_chain(&inputs, &ChainLimit::default()).unwrap_err();
    let MarkovError::TooLarge {
        states_bound,
        outcomes,
        ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(*states_bound, 81u128.pow(7));
    assert_eq!(*outcomes, size.outcomes);
    assert!(e.to_string().contains("Monte Carlo"), "{e}");
    // A small limit stops a chain that would otherwise be built.
    let small = ChainLimit {
        max_states: 2,
        ..ChainLimit::default()
    };
    assert!(matches!(
        build_chain(&example2(), &small),
        Err(MarkovError::TooLarge { .. })
    ));
    // The simulation still answers.
    assert!(simulate_phases(&inputs, 2_000, 1, false).is_ok());
}

#[test]
fn bad_inputs_are_named() {
    let e = example1()
        .with_asynchrony(vec![1], vec![0, 0])
        .validate()
        .unwrap_err();
    assert!(e.to_string().starts_with("a:"), "{e}");
    let e = MarkovInputs::new(vec![Discrete::constant(0)], Discrete::constant(0), 1.0)
        .validate()
        .unwrap_err();
    assert!(e.to_string().starts_with("update_time:"), "{e}");
}
