//! Gathered plain elements written in place on each rank and exchanged between the ranks after
//! the loop (issue 42 part 4: `gather::Place::exchanged`, `backend/mpi/placed.rs`), against the
//! serial loop, on every rank:
//!
//! - `out[i] = √i` for 200,000 `f64`, under fac2, gss, ss and static;
//! - a `[f32; 3]` element (a plain array), and a `#[repr(C)]` struct of its own (`Pod`);
//! - writes of even elements only, over a vector whose elements differ from rank to rank before
//!   the loop: the odd ones keep each rank's own value (only the elements written travel);
//! - a `String` element (not plain: logged and serialised as before);
//! - a rank that stalls (rank 1 sleeps 300 ms at the start of its chunks): its chunk is
//!   re-executed by another rank, and whichever copy counts, the result is the serial one;
//! - a loop in a function called by an iterate of another loop (it runs on its rank alone:
//!   nothing is exchanged).
//!
//! Prints `gather-in-place OK: P=<ranks>` on rank 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_gather_in_place
//! mpirun -n 3 --oversubscribe target/debug/mpi_gather_in_place
//! ```

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

// SAFETY: two `f64`s, `#[repr(C)]`: no padding, every bit pattern a value.
unsafe impl dls::bytemuck::Zeroable for Point {}
// SAFETY: as above.
unsafe impl dls::bytemuck::Pod for Point {}

#[dls::parallel]
fn roots(n: usize, schedule: &str) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    match schedule {
        "fac2" =>
        {
            #[par_doall(schedule = "fac2", gather(out))]
            for i in 0..n {
                out[i] = (i as f64).sqrt();
            }
        }
        "gss" =>
        {
            #[par_doall(schedule = "gss", gather(out))]
            for i in 0..n {
                out[i] = (i as f64).sqrt();
            }
        }
        "ss" =>
        {
            #[par_doall(schedule = "ss", gather(out))]
            for i in 0..n {
                out[i] = (i as f64).sqrt();
            }
        }
        _ =>
        {
            #[par_doall(schedule = "static", gather(out))]
            for i in 0..n {
                out[i] = (i as f64).sqrt();
            }
        }
    }
    out
}

#[dls::parallel]
fn arrays(n: usize) -> (Vec<[f32; 3]>, Vec<Point>) {
    let mut a = vec![[0.0_f32; 3]; n];
    let mut p = vec![Point::default(); n];
    #[par_doall(schedule = "fac2", gather(a, p))]
    for i in 0..n {
        a[i] = [i as f32, -(i as f32), 0.5];
        p[i] = Point {
            x: i as f64,
            y: 2.0 * i as f64,
        };
    }
    (a, p)
}

#[dls::parallel]
fn evens(n: usize, rank: usize) -> Vec<u64> {
    // Before the loop, each rank's vector is its own.
    let mut out = vec![1_000_000 + rank as u64; n];
    #[par_doall(schedule = "gss", gather(out))]
    for i in 0..n {
        if i % 2 == 0 {
            out[i] = i as u64;
        }
    }
    out
}

#[dls::parallel]
fn words(n: usize) -> Vec<String> {
    let mut out = vec![String::new(); n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = format!("w{i}");
    }
    out
}

#[dls::parallel]
fn slow(n: usize, rank: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        // Rank 1 stalls at the start of its first chunk (fac2's chunks start at multiples of
        // 1250 here): another rank re-executes the chunk.
        if rank == 1 && i % 1250 == 0 {
            std::thread::sleep(Duration::from_millis(300));
        }
        out[i] = i as f64 * 3.0;
    }
    out
}

/// A loop that an iterate of another runs (on its rank alone).
#[dls::parallel]
fn row(n: usize, j: usize) -> Vec<f64> {
    let mut row = vec![0.0_f64; n];
    #[par_doall(schedule = "gss", gather(row))]
    for i in 0..n {
        row[i] = (i * j) as f64;
    }
    row
}

#[dls::parallel]
fn nested(n: usize) -> f64 {
    let mut total = 0.0;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for j in 0..4 {
        total += row(n, j).iter().sum::<f64>();
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let rank = rt.rank();
    let n = 200_000;
    for schedule in ["fac2", "gss", "ss", "static"] {
        let got = roots(n, schedule);
        assert!(
            got.iter().enumerate().all(|(i, &x)| x == (i as f64).sqrt()),
            "rank {rank}: {schedule}: the gathered vector differs from the serial one"
        );
    }
    let (a, p) = arrays(10_007);
    assert!(
        a.iter()
            .enumerate()
            .all(|(i, v)| *v == [i as f32, -(i as f32), 0.5]),
        "rank {rank}: [f32; 3]"
    );
    assert!(
        p.iter().enumerate().all(|(i, v)| *v
            == Point {
                x: i as f64,
                y: 2.0 * i as f64
            }),
        "rank {rank}: Point"
    );
    let e = evens(50_001, rank);
    assert!(
        e.iter().enumerate().all(|(i, &v)| if i % 2 == 0 {
            v == i as u64
        } else {
            v == 1_000_000 + rank as u64
        }),
        "rank {rank}: an element not written changed, or a written one is missing"
    );
    let w = words(3000);
    assert!(
        w.iter().enumerate().all(|(i, s)| *s == format!("w{i}")),
        "rank {rank}: String"
    );
    let s = slow(20_000, rank);
    assert!(
        s.iter().enumerate().all(|(i, &x)| x == i as f64 * 3.0),
        "rank {rank}: a re-executed chunk"
    );
    let m = 1000;
    let expected: f64 = (0..4)
        .map(|j| (0..m).map(|i| (i * j) as f64).sum::<f64>())
        .sum();
    assert_eq!(nested(m), expected, "rank {rank}: nested");
    if rank == 0 {
        println!("gather-in-place OK: P={}", rt.size());
    }
    Ok(())
}
