//! A loop whose last chunk is long, under mpirun (tests/mpi_split.rs): STATIC over N iterates,
//! the second half dear (300 µs each), so that rank P-1 holds most of the work while the others
//! are idle and ask the scheduler to split its chunk (`runtime/tolerance/split.rs`). Prints the result, the
//! serial result, the splits and the chunk map (rank 0).
//!
//! Arguments: `N` (default 600) and `SPLIT` (`on` or `off`, default `on`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map_or(Ok(600), |a| a.parse())?;
    let split = args.get(2).map_or("on", |a| a.as_str()) == "on";
    let rt = dls::init()?.with_split(split).with_statistics(true);
    let (sum, stats) = rt.doall_reduce(
        "dear tail",
        0..n,
        "static".parse()?,
        || 0u64,
        |i, s| {
            if i >= n / 2 {
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
            *s += i * i % 1009;
        },
        |a, b| a + b,
    )?;
    if rt.rank() == 0 {
        let serial: u64 = (0..n).map(|i| i * i % 1009).sum();
        let r = &stats.report;
        let mut map = r.chunk_map.clone();
        map.sort();
        println!(
            "split: sum={sum} serial={serial} splits={} iterates={} copies={} map={map:?}",
            r.reexecution.as_ref().map_or(0, |x| x.splits),
            r.ranks.iter().map(|k| k.iterates).sum::<u64>(),
            r.reexecution.as_ref().map_or(0, |x| x.copies),
        );
    }
    Ok(())
}
