//! ndarray's arrays in the clauses (issue 45), each loop beside its serial twin and equal to it on
//! every rank: `gather` into an `Array1`, an `Array2` (a Jacobi sweep reading the old grid), an
//! `Array3` and an `ArrayD`; in-place rows (iterate `i` uses only `a[[i, ..]]`: the Jacobi sweep,
//! row-wise prefix sums of an `Array2`, an `Array3` assigned row by row) and an `Array2` also
//! written outside the own row (the checked path); `reduce(+)` and `reduce(max)` of an `Array1` (a histogram) and an
//! `Array2`; loops over `a.iter()`, `&a`, `a.rows()` and `a.outer_iter().enumerate()`. Prints
//! `ndarray OK: P=<ranks>` on rank 0. With the argument `fortran`, gathers into a column-major
//! array, which the loop refuses at its start with the fix. With `default_start`, runs
//! `reduce(+: g)` on a grid type of its own with `Add` and `Default` (a type dls knows no shape
//! of), whose workers start from an empty grid: the iterate's panic is followed by dls's note
//! that says so and names the fix.
//!
//! ```text
//! cargo build -p test-programs --features mpi,ndarray --bin nd_clauses
//! DLS_THREADS=3 target/debug/nd_clauses
//! mpirun -n 2 --oversubscribe target/debug/nd_clauses
//! ```

use ndarray::{Array1, Array2, Array3, ArrayD, IxDyn, ShapeBuilder};

fn grid(n: usize, m: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, m), |(i, j)| ((i * 31 + j * 17) % 23) as f64 * 0.5)
}

#[dls::parallel]
fn jacobi(u: &Array2<f64>) -> Array2<f64> {
    let (n, m) = u.dim();
    let mut v = u.clone();
    #[par_doall(schedule = "af", gather(v))]
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
        }
    }
    v
}

fn jacobi_serial(u: &Array2<f64>) -> Array2<f64> {
    let (n, m) = u.dim();
    let mut v = u.clone();
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
        }
    }
    v
}

/// Row-wise prefix sums: iterate `i` reads and writes its own row `p[[i, ..]]` alone, so it
/// writes it in place (no clause argument: the array's shape gives the row).
#[dls::parallel]
fn prefix_rows(a: &Array2<f64>) -> Array2<f64> {
    let mut p = a.clone();
    #[par_doall(schedule = "fac2", gather(p))]
    for i in 0..a.nrows() {
        for j in 1..p.ncols() {
            p[[i, j]] += p[[i, j - 1]];
        }
    }
    p
}

fn prefix_rows_serial(a: &Array2<f64>) -> Array2<f64> {
    let mut p = a.clone();
    for i in 0..a.nrows() {
        for j in 1..p.ncols() {
            p[[i, j]] += p[[i, j - 1]];
        }
    }
    p
}

/// An `Array3` whose iterate `i` only assigns its own row `q[(i, j, k)]`, sized by the array's
/// own shape in the body.
#[dls::parallel]
fn cube_assigned(n: usize) -> Array3<u32> {
    let mut q = Array3::<u32>::zeros((n, 5, 2));
    #[par_doall(schedule = "af", gather(q))]
    for i in 0..n {
        for j in 0..q.shape()[1] {
            for k in 0..q.len_of(ndarray::Axis(2)) {
                q[(i, j, k)] = (1000 * i + 10 * j + k) as u32;
            }
        }
    }
    q
}

/// Iterate `i` writes its row and one element of row 0, which no iterate of `1..n` owns: the
/// body is not row-only, so every write of `w` takes the checked (logged) path.
#[dls::parallel]
fn outside_rows(n: usize, m: usize) -> Array2<i64> {
    let mut w = Array2::<i64>::from_elem((n, m), 3);
    #[par_doall(schedule = "af", gather(w))]
    for i in 1..n {
        for j in 0..m {
            w[[i, j]] = (i * m + j) as i64;
        }
        w[[0, i]] = -(i as i64);
    }
    w
}

fn outside_rows_serial(n: usize, m: usize) -> Array2<i64> {
    let mut w = Array2::<i64>::from_elem((n, m), 3);
    for i in 1..n {
        for j in 0..m {
            w[[i, j]] = (i * m + j) as i64;
        }
        w[[0, i]] = -(i as i64);
    }
    w
}

#[dls::parallel]
fn squares(n: usize) -> Array1<u64> {
    let mut a = Array1::<u64>::zeros(n);
    #[par_doall(schedule = "gss", gather(a))]
    for i in 0..n {
        a[i] = (i * i) as u64;
    }
    a
}

#[dls::parallel]
fn cube(n: usize) -> Array3<i64> {
    let mut c = Array3::<i64>::from_elem((n, 3, 4), -1);
    #[par_doall(schedule = "fac2", gather(c))]
    for i in 0..n {
        for j in 0..3 {
            for k in 0..4 {
                c[[i, j, k]] += (100 * i + 10 * j + k) as i64;
            }
        }
    }
    c
}

#[dls::parallel]
fn dynamic(n: usize) -> ArrayD<i32> {
    let mut d = ArrayD::<i32>::zeros(IxDyn(&[n, 2, 2]));
    #[par_doall(schedule = "af", gather(d))]
    for i in 0..n {
        d[[i, 1, 0]] = i as i32;
        d[&[i, 0, 1][..]] = -(i as i32);
    }
    d
}

/// A histogram of 16 bins: `reduce(+)` on an `Array1`.
#[dls::parallel]
fn histogram(xs: &[u64]) -> Array1<u64> {
    let mut h = Array1::<u64>::zeros(16);
    #[par_doall(schedule = "af", reduce(+: h))]
    for i in 0..xs.len() {
        h[(xs[i] % 16) as usize] += 1;
    }
    h
}

/// Per-class sums of two features: `reduce(+)` on an `Array2`, starting from non-zero values.
#[dls::parallel]
fn class_sums(xs: &[u64]) -> Array2<i64> {
    let mut s = Array2::<i64>::from_elem((5, 2), 7);
    #[par_doall(schedule = "gss", reduce(+: s))]
    for i in 0..xs.len() {
        let c = (xs[i] % 5) as usize;
        s[[c, 0]] += xs[i] as i64;
        s[[c, 1]] -= 1;
    }
    s
}

/// The largest value per bin: `reduce(max)` on an `Array1` and on an `Array2`.
#[dls::parallel]
fn maxima(xs: &[u64]) -> (Array1<f64>, Array2<f64>) {
    let mut m1 = Array1::<f64>::from_elem(8, -1.0);
    let mut m2 = Array2::<f64>::from_elem((4, 3), f64::NEG_INFINITY);
    #[par_doall(schedule = "af", reduce(max: m1, m2))]
    for i in 0..xs.len() {
        let x = (xs[i] as f64).sqrt();
        let b = (xs[i] % 8) as usize;
        if x > m1[b] {
            m1[b] = x;
        }
        let (r, c) = ((xs[i] % 4) as usize, (xs[i] % 3) as usize);
        m2[[r, c]] = m2[[r, c]].max(x);
    }
    (m1, m2)
}

/// The loop forms: `a.iter()`, `&a`, `a.rows()` and `a.outer_iter().enumerate()`.
#[dls::parallel]
fn loop_forms(a: &Array2<f64>) -> (f64, u64, f64, Vec<f64>) {
    let mut total = 0.0;
    #[par_doall(schedule = "af", reduce(+: total))]
    for x in a.iter() {
        total += x;
    }
    let mut big = 0_u64;
    #[par_doall(schedule = "af", reduce(+: big))]
    for x in a {
        if *x > 5.0 {
            big += 1;
        }
    }
    let mut widest = f64::NEG_INFINITY;
    #[par_doall(schedule = "af", reduce(max: widest))]
    for row in a.rows() {
        widest = widest.max(row.sum());
    }
    let mut sums = vec![0.0; a.nrows()];
    #[par_doall(schedule = "af", gather(sums))]
    for (i, row) in a.outer_iter().enumerate() {
        sums[i] = row.iter().map(|x| x * x).sum::<f64>();
    }
    (total, big, widest, sums)
}

fn loop_forms_serial(a: &Array2<f64>) -> (f64, u64, f64, Vec<f64>) {
    let mut total = 0.0;
    for x in a.iter() {
        total += x;
    }
    let mut big = 0_u64;
    for x in a {
        if *x > 5.0 {
            big += 1;
        }
    }
    let mut widest = f64::NEG_INFINITY;
    for row in a.rows() {
        widest = widest.max(row.sum());
    }
    let mut sums = vec![0.0; a.nrows()];
    for (i, row) in a.outer_iter().enumerate() {
        sums[i] = row.iter().map(|x| x * x).sum::<f64>();
    }
    (total, big, widest, sums)
}

#[dls::parallel]
fn fortran(n: usize) -> Array2<f64> {
    let mut f = Array2::<f64>::zeros((n, n).f());
    #[par_doall(schedule = "af", gather(f))]
    for i in 0..n {
        f[[i, i]] = 1.0;
    }
    f
}

/// A grid of the program's own: `+` works on it (`Add`, `Default`), but dls knows no identity
/// of its shape.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
struct Grid(Vec<f64>);

impl std::ops::Add for Grid {
    type Output = Grid;
    fn add(self, o: Grid) -> Grid {
        Grid(self.0.iter().zip(&o.0).map(|(a, b)| a + b).collect())
    }
}

#[dls::parallel]
fn default_start(n: usize) -> Grid {
    let mut g = Grid(vec![0.0; n]);
    #[par_doall(schedule = "af", reduce(+: g))]
    for i in 0..n {
        g.0[i] += 1.0;
    }
    g
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    if std::env::args().nth(1).as_deref() == Some("default_start") {
        let g = default_start(8);
        println!("default_start: unexpectedly ran: {g:?}");
        return Ok(());
    }
    if std::env::args().nth(1).as_deref() == Some("fortran") {
        let f = fortran(4);
        println!("fortran: unexpectedly ran: {f:?}");
        return Ok(());
    }

    let u = grid(37, 29);
    assert_eq!(jacobi(&u), jacobi_serial(&u), "gather into an Array2");

    let a = grid(41, 19);
    assert_eq!(
        prefix_rows(&a),
        prefix_rows_serial(&a),
        "in-place rows of an Array2 (read and written)"
    );
    assert_eq!(
        cube_assigned(17),
        Array3::from_shape_fn((17, 5, 2), |(i, j, k)| (1000 * i + 10 * j + k) as u32),
        "in-place rows of an Array3 (assigned)"
    );
    assert_eq!(
        outside_rows(23, 31),
        outside_rows_serial(23, 31),
        "an Array2 written outside the own row (checked path)"
    );

    let n = 101;
    assert_eq!(
        squares(n),
        Array1::from_shape_fn(n, |i| (i * i) as u64),
        "gather into an Array1"
    );
    assert_eq!(
        cube(23),
        Array3::from_shape_fn((23, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as i64 - 1),
        "gather into an Array3"
    );
    let mut d = ArrayD::<i32>::zeros(IxDyn(&[9, 2, 2]));
    for i in 0..9 {
        d[[i, 1, 0]] = i as i32;
        d[[i, 0, 1]] = -(i as i32);
    }
    assert_eq!(dynamic(9), d, "gather into an ArrayD");

    let xs: Vec<u64> = (0..5000_u64).map(|k| (k * 2654435761) % 1009).collect();
    let mut h = Array1::<u64>::zeros(16);
    for &x in &xs {
        h[(x % 16) as usize] += 1;
    }
    assert_eq!(histogram(&xs), h, "reduce(+) of an Array1");

    let mut s = Array2::<i64>::from_elem((5, 2), 7);
    for &x in &xs {
        let c = (x % 5) as usize;
        s[[c, 0]] += x as i64;
        s[[c, 1]] -= 1;
    }
    assert_eq!(class_sums(&xs), s, "reduce(+) of an Array2");

    let mut m1 = Array1::<f64>::from_elem(8, -1.0);
    let mut m2 = Array2::<f64>::from_elem((4, 3), f64::NEG_INFINITY);
    for &x in &xs {
        let r = (x as f64).sqrt();
        let b = (x % 8) as usize;
        m1[b] = m1[b].max(r);
        let (i, j) = ((x % 4) as usize, (x % 3) as usize);
        m2[[i, j]] = m2[[i, j]].max(r);
    }
    assert_eq!(
        maxima(&xs),
        (m1, m2),
        "reduce(max) of an Array1 and an Array2"
    );

    // Halves are exact in f64, so the sums do not depend on the order of the additions.
    let a = grid(40, 13);
    assert_eq!(loop_forms(&a), loop_forms_serial(&a), "the loop forms");

    if rt.rank() == 0 {
        println!("ndarray OK: P={}", rt.size());
    }
    Ok(())
}
