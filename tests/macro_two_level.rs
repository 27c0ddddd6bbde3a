//! Two-level `#[par_doall]` loops (an annotated loop in an annotated loop's body) give the serial
//! result on the threads backend (the one-level fallback): several inner loops per outer iterate,
//! `reduce` and `gather` at both levels, `continue` at both levels, inner loop lengths from part A.
//! Under mpirun the same code runs on rack groups (tests/mpi_groups_exactly_once.rs).

#[dls::parallel]
fn two_level(m: usize, lens: &[u64]) -> (u64, f64, Vec<u64>) {
    let mut total = 0_u64;
    let mut largest = f64::NEG_INFINITY;
    let mut rows = vec![0_u64; m];
    #[par_doall(schedule = "af", group(min = 1, max = 4), reduce(+: total), reduce(max: largest), gather(rows))]
    for j in 0..m {
        if j % 7 == 3 {
            continue;
        }
        let n = lens[j];
        let mut s = 0_u64;
        #[par_doall(schedule = "fac2", reduce(+: s))]
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            s += i * (j as u64 + 1);
        }
        let mut cells = vec![0.0_f64; n as usize];
        #[par_doall(schedule = "ss", gather(cells))]
        for i in 0..n as usize {
            cells[i] = (i as f64).sqrt() + j as f64;
        }
        rows[j] = s;
        total += s;
        largest = cells.iter().copied().fold(largest, f64::max);
    }
    (total, largest, rows)
}

fn serial(m: usize, lens: &[u64]) -> (u64, f64, Vec<u64>) {
    let mut total = 0_u64;
    let mut largest = f64::NEG_INFINITY;
    let mut rows = vec![0_u64; m];
    for j in 0..m {
        if j % 7 == 3 {
            continue;
        }
        let n = lens[j];
        let mut s = 0_u64;
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            s += i * (j as u64 + 1);
        }
        let cells: Vec<f64> = (0..n as usize)
            .map(|i| (i as f64).sqrt() + j as f64)
            .collect();
        rows[j] = s;
        total += s;
        largest = cells.iter().copied().fold(largest, f64::max);
    }
    (total, largest, rows)
}

#[test]
fn nested_par_doall_equals_serial() {
    let m = 37;
    let lens: Vec<u64> = (0..m as u64).map(|j| (j * 13) % 29).collect();
    let got = two_level(m, &lens);
    let want = serial(m, &lens);
    assert_eq!(got.0, want.0);
    assert_eq!(got.1.to_bits(), want.1.to_bits());
    assert_eq!(got.2, want.2);
}

#[test]
fn empty_outer_and_inner_loops() {
    assert_eq!(two_level(0, &[]), (0, f64::NEG_INFINITY, vec![]));
    assert_eq!(
        two_level(3, &[0, 0, 0]),
        (0, f64::NEG_INFINITY, vec![0, 0, 0])
    );
}
