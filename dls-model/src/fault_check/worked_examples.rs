//! The worked examples of the project's reference notes on Wegman (c. 2000): regression
//! homogeneity with k = 4 ranks and p = 2, the one-way ANOVA, the weighted (chunk-size) ANOVA,
//! and F quantiles, all recomputed independently with scipy. F, df and SSE are checked to 6
//! significant digits; p-values to the digits printed there.

// The tables are kept in the shape they are printed in.
#![allow(clippy::type_complexity, clippy::needless_range_loop)]

use super::stats::{fit_centred, AnovaStats, RegressionStats};
use super::{anova, f_critical, regression, FTest, Outcome};

/// `actual` agrees with `printed` to `digits` significant digits (within half a unit of the last
/// one, plus a hair for the printed value's own rounding).
fn assert_sig(actual: f64, printed: f64, digits: i32, what: &str) {
    let unit = 10f64.powi(printed.abs().log10().floor() as i32 - digits + 1);
    assert!(
        (actual - printed).abs() <= 0.5 * unit * (1.0 + 1e-9),
        "{what}: {actual} is not {printed} to {digits} significant digits"
    );
}

// ---- Regression, k = 4, p = 2, n_i = 6 -------------------------------------------------------

const X1: [[f64; 6]; 4] = [
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    [2.0, 4.0, 1.0, 7.0, 3.0, 5.0],
    [6.0, 5.0, 4.0, 3.0, 2.0, 2.0],
    [3.0, 1.0, 5.0, 2.0, 6.0, 8.0],
];
const X2: [[f64; 6]; 4] = [
    [2.0, 0.0, 1.0, 3.0, 1.0, 2.0],
    [1.0, 3.0, 0.0, 2.0, 2.0, 2.0],
    [0.0, 1.0, 2.0, 1.0, 3.0, 2.0],
    [2.0, 1.0, 0.0, 3.0, 1.0, 3.0],
];
const Y: [[f64; 6]; 4] = [
    [1.3, 4.5, 6.1, 6.4, 9.8, 10.9],
    [3.7, 6.2, 3.5, 12.6, 5.0, 9.1],
    [13.2, 9.9, 6.7, 6.3, 2.1, 2.8],
    [4.6, 2.4, 11.0, 1.9, 12.2, 13.9],
];

/// The four ranks' statistics, with `fault` applied to rank 2's responses.
fn regression_ranks(fault: impl Fn(f64) -> f64) -> Vec<RegressionStats> {
    (0..4)
        .map(|r| {
            let mut s = RegressionStats::new(2);
            for i in 0..6 {
                let y = if r == 2 { fault(Y[r][i]) } else { Y[r][i] };
                s.push(&[X1[r][i], X2[r][i]], y);
            }
            s
        })
        .collect()
}

/// SSE_0, SSE_1 and SSE_2 from the ranks' statistics (the paper's host aggregation).
fn model_sse(ranks: &[RegressionStats]) -> [f64; 3] {
    let pooled = ranks.iter().fold(RegressionStats::new(2), |a, b| {
        RegressionStats::merge(&a, b)
    });
    let mut sxx = vec![0.0; 4];
    let mut sxy = vec![0.0; 2];
    let mut syy = 0.0;
    for r in ranks {
        sxx.iter_mut().zip(r.sxx()).for_each(|(a, b)| *a += b);
        sxy.iter_mut().zip(r.sxy()).for_each(|(a, b)| *a += b);
        syy += r.syy();
    }
    [
        pooled.sse(),
        fit_centred(2, &sxx, &sxy, syy).sse,
        ranks.iter().map(|r| r.sse()).sum(),
    ]
}

#[test]
fn regression_node_summaries() {
    let ranks = regression_ranks(|y| y);
    // (X̄, Ȳ, X̃'X̃, X̃'Ỹ, Ỹ'Ỹ, SSE) as printed.
    let printed: [([f64; 2], f64, [f64; 4], [f64; 2], f64, f64); 4] = [
        (
            [3.5, 1.5],
            6.5,
            [17.5, 2.5, 2.5, 5.5],
            [32.1, 1.0],
            61.46,
            0.079389,
        ),
        (
            [3.666667, 1.666667],
            6.683333,
            [23.333333, 7.333333, 7.333333, 5.333333],
            [37.366667, 8.866667],
            62.948333,
            0.375000,
        ),
        (
            [3.666667, 1.5],
            6.833333,
            [13.333333, -7.0, -7.0, 5.5],
            [33.866667, -20.0],
            88.913333,
            0.191507,
        ),
        (
            [4.166667, 1.666667],
            7.666667,
            [34.833333, 1.333333, 1.333333, 7.333333],
            [67.733333, -5.466667],
            140.913333,
            0.286754,
        ),
    ];
    for (r, (mx, my, sxx, sxy, syy, sse)) in printed.iter().enumerate() {
        let s = &ranks[r];
        assert_eq!(s.rows(), 6);
        for i in 0..2 {
            assert_sig(s.mean_x()[i], mx[i], 6, "mean x");
            assert_sig(s.sxy()[i], sxy[i], 6, "X'Y");
        }
        for i in 0..4 {
            assert_sig(s.sxx()[i], sxx[i], 6, "X'X");
        }
        assert_sig(s.mean_y(), *my, 6, "mean y");
        assert_sig(s.syy(), *syy, 6, "Y'Y");
        assert_sig(s.sse(), *sse, 5, "SSE_i");
    }
}

#[test]
fn regression_clean_fit_and_pooled_sse() {
    let ranks = regression_ranks(|y| y);
    let pooled = ranks.iter().fold(RegressionStats::new(2), |a, b| {
        RegressionStats::merge(&a, b)
    });
    let beta = pooled.coefficients();
    assert_sig(beta[0], 1.126273, 7, "beta0");
    assert_sig(beta[1], 1.969590, 7, "beta1");
    assert_sig(beta[2], -1.005098, 7, "beta2");
    // SSE_0 from the summaries equals the direct pooled regression: normal equations on the raw
    // 24 rows, solved by Cramer's rule on the 3 x 3 system.
    let rows: Vec<[f64; 4]> = (0..4)
        .flat_map(|r| (0..6).map(move |i| [1.0, X1[r][i], X2[r][i], Y[r][i]]))
        .collect();
    let mut a = [[0.0; 3]; 3];
    let mut b = [0.0; 3];
    for row in &rows {
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] += row[i] * row[j];
            }
            b[i] += row[i] * row[3];
        }
    }
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    let coef: Vec<f64> = (0..3)
        .map(|c| {
            let mut m = a;
            (0..3).for_each(|i| m[i][c] = b[i]);
            det(m) / d
        })
        .collect();
    let direct: f64 = rows
        .iter()
        .map(|row| (row[3] - coef[0] - coef[1] * row[1] - coef[2] * row[2]).powi(2))
        .sum();
    assert!(
        (pooled.sse() - direct).abs() < 1e-9,
        "{} vs {direct}",
        pooled.sse()
    );
    assert_sig(direct, 1.683880, 7, "direct SSE");
}

#[test]
fn regression_homogeneity_tests() {
    // (case, SSE0, SSE1, SSE2, MSE2, F(2,0), its p, F(2,1), its p), as printed.
    let cases: [(&str, fn(f64) -> f64, [f64; 8]); 3] = [
        (
            "clean",
            |y| y,
            [
                1.683880, 1.681527, 0.932650, 0.077721, 1.073972, 0.4436, 1.605912, 0.2282,
            ],
        ),
        (
            "rank 2: y + 3",
            |y| y + 3.0,
            [
                41.816439, 1.681527, 0.932650, 0.077721, 58.448204, 1.557e-8, 1.605912, 0.2282,
            ],
        ),
        (
            "rank 2: y x 2",
            |y| 2.0 * y,
            [
                267.782556, 62.070100, 1.507171, 0.125598, 235.563152, 4.230e-12, 80.366391,
                5.503e-9,
            ],
        ),
    ];
    for (name, fault, n) in cases {
        let ranks = regression_ranks(fault);
        let sse = model_sse(&ranks);
        assert_sig(sse[0], n[0], 6, name);
        assert_sig(sse[1], n[1], 6, name);
        assert_sig(sse[2], n[2], 6, name);
        assert_sig(sse[2] / 12.0, n[3], 5, name);
        let v = regression(&ranks);
        assert_eq!(v.homogeneity.outcome, Outcome::Tested);
        assert_eq!(v.homogeneity.ranks, 4);
        let g = v.homogeneity.global.unwrap();
        // df0 = 21, df1 = 18, df2 = 12: F(2,0) on (9, 12), F(2,1) on the corrected (6, 12).
        assert_eq!((g.df1, g.df2), (9, 12), "{name}");
        assert_sig(g.f, n[4], 7, name);
        assert_sig(g.p, n[5], 4, name);
        let s = v.slopes.unwrap();
        assert_eq!((s.df1, s.df2), (6, 12), "{name}");
        assert_sig(s.f, n[6], 7, name);
        assert_sig(s.p, n[7], 4, name);
    }
}

#[test]
fn an_additive_shift_moves_only_sse0() {
    let clean = model_sse(&regression_ranks(|y| y));
    let shifted = model_sse(&regression_ranks(|y| y + 3.0));
    assert!((clean[1] - shifted[1]).abs() < 1e-10);
    assert!((clean[2] - shifted[2]).abs() < 1e-10);
    assert!(shifted[0] > 20.0 * clean[0]);
    let (a, b) = (
        regression(&regression_ranks(|y| y)).slopes.unwrap(),
        regression(&regression_ranks(|y| y + 3.0)).slopes.unwrap(),
    );
    assert!((a.f - b.f).abs() < 1e-9);
}

#[test]
fn regression_leave_one_out() {
    // F_i on (3, 12) df, as printed (7 digits where given, 4 elsewhere).
    let clean = regression(&regression_ranks(|y| y)).homogeneity;
    let shift = regression(&regression_ranks(|y| y + 3.0)).homogeneity;
    let scale = regression(&regression_ranks(|y| 2.0 * y)).homogeneity;
    // The suspect of the clean data is rank 0 (largest F_0 = 2.710857), not significant.
    let s = clean.suspect.unwrap();
    assert_eq!(s.rank, 0);
    let t = s.test.unwrap();
    assert_eq!((t.df1, t.df2), (3, 12));
    assert_sig(t.f, 2.710857, 7, "clean F_0");
    assert!(!clean.rejects(1e-3));
    assert_eq!(clean.flagged(1e-3), None);
    // Every F_i of a faulty case is large, but the argmax is rank 2.
    let s = shift.suspect.unwrap();
    assert_eq!(s.rank, 2);
    assert_sig(s.test.unwrap().f, 172.748353, 7, "y + 3: F_2");
    assert_sig(s.p(), 3.9e-10, 2, "y + 3: p_2");
    assert_eq!(shift.flagged(1e-3), Some(2));
    let s = scale.suspect.unwrap();
    assert_eq!(s.rank, 2);
    assert_sig(s.test.unwrap().f, 705.082868, 7, "y x 2: F_2");
    assert_eq!(scale.flagged(1e-3), Some(2));
}

/// Every rank's leave-one-out F, for the values printed beside the suspect's.
#[test]
fn regression_leave_one_out_every_rank() {
    let printed: [(fn(f64) -> f64, [f64; 4], i32); 3] = [
        (|y| y, [2.710857, 0.428611, 0.625657, 0.516480], 6),
        (|y| y + 3.0, [25.08, 18.80, 172.748353, 18.76], 4),
        (|y| 2.0 * y, [98.43, 63.89, 705.082868, 116.27], 4),
    ];
    for (fault, values, digits) in printed {
        let ranks = regression_ranks(fault);
        let sse0 = model_sse(&ranks)[0];
        let mse2 = model_sse(&ranks)[2] / 12.0;
        for (i, &printed) in values.iter().enumerate() {
            let others = (0..4)
                .filter(|&j| j != i)
                .fold(RegressionStats::new(2), |a, j| {
                    RegressionStats::merge(&a, &ranks[j])
                });
            let f = (sse0 - ranks[i].sse() - others.sse()) / 3.0 / mse2;
            assert_sig(f, printed, digits, "F_i");
        }
    }
}

// ---- One-way ANOVA, k = 4, m = 5 -------------------------------------------------------------

const ANOVA: [[f64; 5]; 4] = [
    [10.1, 9.8, 10.3, 9.9, 10.0],
    [10.2, 10.0, 9.7, 10.1, 9.9],
    [9.9, 10.4, 10.0, 9.8, 10.2],
    [10.0, 9.9, 10.1, 10.3, 9.8],
];

fn anova_ranks(bias: f64) -> Vec<AnovaStats> {
    (0..4)
        .map(|r| {
            let mut s = AnovaStats::default();
            ANOVA[r]
                .iter()
                .for_each(|&y| s.push(y + if r == 2 { bias } else { 0.0 }));
            s
        })
        .collect()
}

/// SSB and SSW of per-rank statistics.
fn ss(ranks: &[AnovaStats]) -> (f64, f64) {
    let pooled = ranks
        .iter()
        .fold(AnovaStats::default(), |a, &b| AnovaStats::merge(a, b));
    let ssb = ranks
        .iter()
        .map(|r| r.iterates() as f64 * (r.mean() - pooled.mean()).powi(2))
        .sum();
    (ssb, ranks.iter().map(|r| r.centred_ss()).sum())
}

#[test]
fn anova_clean() {
    let ranks = anova_ranks(0.0);
    for (r, m) in [10.02, 9.98, 10.06, 10.02].iter().enumerate() {
        assert_sig(ranks[r].mean(), *m, 6, "mean");
    }
    let (ssb, ssw) = ss(&ranks);
    assert_sig(ssb, 0.016, 6, "SSB");
    assert_sig(ssw, 0.676, 6, "SSW");
    let v = anova(&ranks);
    let t = v.global.unwrap();
    assert_eq!((t.df1, t.df2), (3, 16));
    assert_sig(t.f, 0.126233, 6, "F");
    assert_sig(t.p, 0.943188, 6, "p");
    assert!(!v.rejects(0.05));
}

#[test]
fn anova_rank_2_plus_half() {
    let ranks = anova_ranks(0.5);
    let (ssb, ssw) = ss(&ranks);
    assert_sig(ssb, 1.1535, 6, "SSB");
    assert_sig(ssw, 0.676, 6, "SSW");
    let v = anova(&ranks);
    let t = v.global.unwrap();
    assert_eq!((t.df1, t.df2), (3, 16));
    assert_sig(t.f, 9.100592, 7, "F");
    assert_sig(t.p, 0.000950, 3, "p");
    // Rejects at 1e-3 (F_crit = 9.005937) but not at 1e-4 (13.931537).
    assert!(v.rejects(1e-3) && !v.rejects(1e-4));
    // Leave-one-out t² on (1, 16) df: 2.465, 4.296, 27.176 (p = 8.5e-5), 2.465.
    let msw = ssw / 16.0;
    let mut t2 = Vec::new();
    for i in 0..4 {
        let others = (0..4)
            .filter(|&j| j != i)
            .fold(AnovaStats::default(), |a, j| AnovaStats::merge(a, ranks[j]));
        let d = ranks[i].mean() - others.mean();
        t2.push(d * d / (msw * (1.0 / 5.0 + 1.0 / 15.0)));
    }
    for (a, b) in t2.iter().zip([2.465, 4.296, 27.176, 2.465]) {
        assert_sig(*a, b, 4, "t²");
    }
    let s = v.suspect.unwrap();
    assert_eq!(s.rank, 2);
    let st = s.test.unwrap();
    assert_eq!((st.df1, st.df2), (1, 16));
    assert_sig(st.f, 27.176, 5, "t²_2");
    assert_sig(st.p, 8.5e-5, 2, "p_2");
    // Bonferroni at 1e-3 / 4 = 2.5e-4: flagged.
    assert_eq!(v.flagged(1e-3), Some(2));
}

// ---- Weighted (chunk-size) ANOVA ---------------------------------------------------------------

const CHUNKS: [[(u64, f64); 4]; 4] = [
    [(40, 402.0), (20, 199.0), (10, 101.5), (5, 49.0)],
    [(35, 351.0), (18, 179.0), (9, 90.9), (4, 40.2)],
    [(30, 297.0), (15, 151.5), (8, 80.8), (4, 39.6)],
    [(25, 251.0), (12, 119.0), (6, 60.6), (3, 29.7)],
];

fn chunk_ranks(bias: f64) -> Vec<AnovaStats> {
    (0..4)
        .map(|r| {
            let mut s = AnovaStats::default();
            for &(size, sum) in &CHUNKS[r] {
                let b = if r == 2 { bias * size as f64 } else { 0.0 };
                s.push_chunk(size, sum + b);
            }
            s
        })
        .collect()
}

#[test]
fn weighted_anova_clean() {
    let ranks = chunk_ranks(0.0);
    let n: Vec<u64> = ranks.iter().map(|r| r.iterates()).collect();
    assert_eq!(n, [75, 66, 57, 46]);
    for (r, m) in [10.02, 10.016667, 9.980702, 10.006522].iter().enumerate() {
        assert_sig(ranks[r].mean(), *m, 7, "mean");
    }
    let (ssb, ssw) = ss(&ranks);
    assert_sig(ssb, 0.058239, 5, "SSB");
    assert_sig(ssw, 1.470942, 7, "SSW");
    let t = anova(&ranks).global.unwrap();
    assert_eq!((t.df1, t.df2), (3, 12));
    assert_sig(t.f, 0.158373, 6, "F");
    assert_sig(t.p, 0.92225, 5, "p");
}

#[test]
fn weighted_anova_rank_2_biased() {
    let ranks = chunk_ranks(0.5);
    let (ssb, ssw) = ss(&ranks);
    assert_sig(ssb, 9.458854, 7, "SSB");
    assert_sig(ssw, 1.470942, 7, "SSW");
    let v = anova(&ranks);
    let t = v.global.unwrap();
    assert_eq!((t.df1, t.df2), (3, 12));
    assert_sig(t.f, 25.721888, 8, "F");
    assert_sig(t.p, 1.639e-5, 4, "p");
    assert_eq!(v.flagged(1e-3), Some(2));
}

// ---- F quantiles ---------------------------------------------------------------------------------

#[test]
fn f_quantiles() {
    let table: [(f64, [f64; 4]); 4] = [
        (0.05, [3.238872, 2.741311, 2.796375, 3.490295]),
        (0.01, [5.292214, 4.201634, 4.387510, 5.952545]),
        (0.001, [9.005937, 6.804935, 7.479736, 10.804204]),
        (0.0001, [13.931537, 10.233988, 11.975657, 17.899492]),
    ];
    let dfs = [(3, 16), (6, 16), (9, 12), (3, 12)];
    for (alpha, row) in table {
        for ((d1, d2), printed) in dfs.iter().zip(row) {
            let q = f_critical(alpha, *d1, *d2);
            assert_sig(q, printed, 7, "F quantile");
            // And the tail at the quantile is alpha.
            assert!((FTest::new(q, *d1, *d2).p / alpha - 1.0).abs() < 1e-9);
        }
    }
}

/// The design of the paper's timing study (§3.3.1): p = 6 predictors, 16 nodes, 500 observations
/// per node (n = 8000). The test's df are df(2,0) = (k−1)(p+1) = 105, df(2,1) = (k−1)p = 90 (the
/// paper prints (k−1)(p+1) for both), df_2 = n − kp − k = 7888.
#[test]
fn the_papers_design_has_the_corrected_df() {
    let mut state = 17u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let ranks: Vec<RegressionStats> = (0..16)
        .map(|_| {
            let mut s = RegressionStats::new(6);
            for _ in 0..500 {
                let x: Vec<f64> = (0..6).map(|_| uniform()).collect();
                let y = 1.0
                    + x.iter()
                        .enumerate()
                        .map(|(j, v)| (j + 1) as f64 * v)
                        .sum::<f64>();
                s.push(&x, y + uniform());
            }
            s
        })
        .collect();
    let v = regression(&ranks);
    let g = v.homogeneity.global.unwrap();
    assert_eq!((g.df1, g.df2), (105, 7888));
    assert_eq!(v.slopes.unwrap().df1, 90);
    assert!(!v.homogeneity.rejects(1e-3));
}
