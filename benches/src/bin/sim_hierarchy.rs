//! Central against hierarchical hand-out, simulated (issue 31, "Scale on paper"): at 64 ranks ×
//! 16 threads and 1024 ranks × 64 threads, is it better that every thread asks rank 0 for its own
//! chunk (central: P·k workers, as `mpirun -np P·k` runs today) or that each rank asks for up to
//! k chunks at a time (SS: a block of whole chunks) and its threads take them from a local queue
//! (hierarchical: `DLS_THREADS=k` under mpirun, one rank per node or socket, with the runtime's
//! rule of when and how many to ask for)? The technique is computed over P·k workers in both;
//! the timing models are in `dls-runtime/src/sim/engine.rs`.
//!
//! Table A: N = 2^20 iterates (1024 per worker at 64 × 16, 16 at 1024 × 64) whose times are
//! exponential (coefficient of variation 1: the random loops of Hummel, Schonberg & Flynn 1992
//! and Banicescu & Liu 2000) of mean 10 µs, 100 µs and 1 ms, or uniform on [50 µs, 150 µs]; STATIC,
//! SS, GSS, FAC2, AF and AWF-C; the makespan and the efficiency (total work / (P·k × makespan)) of
//! each hand-out at each size. Table B: FAC2 and STATIC with 256 iterates per worker at 16 × 4,
//! 64 × 16, 256 × 32 and 1024 × 64, exponential iterate times of mean 1 µs to 10 ms: from which
//! size and iterate cost threads inside ranks pay. Table C: for table B's hierarchical runs, the
//! chunks a request brought on average (the outcome's chunks over its `requests`, the ranks'
//! last, empty requests included) and the scheduler's busy time over the makespan (above 1 where
//! those empty requests are served after the last chunk ends): how many chunks a rank asks for
//! where rank 0 is busy.
//!
//! The scheduler's costs come from measurements on a 16-core machine (an earlier session; the raw
//! MPI ping-pong server of `mpi_overhead`, every rank but 0 sending one request at a time): a
//! client's round trip took 1.3–1.4 µs at np 2, 4.3 µs at np 8 and 9.3 µs at np 16. With np − 1
//! clients the server is saturated, so its time per request is the round trip over the clients:
//! 4.3/7 = 0.61 µs and 9.3/15 = 0.62 µs, the same at np 8 and 16; at np 2, round trip = 2L + h
//! gives the one-way latency L = 0.37 µs. The program first simulates that ping-pong with these
//! values and prints the round trips beside the measured ones. At 1024 ranks h is extrapolated:
//! nothing was measured beyond 16 ranks on one node, so the np 16 figure is taken as a floor
//! (h = 0.62 µs per request; a receive from any of 1024 ranks across nodes costs at least that).
//! A second argument sets another h, e.g. 9.3 µs, the np-16 round trip taken as if it were the
//! service time of one request (15 times the saturated server's figure). c, the cost of one more
//! chunk of a request's reply, and l, a thread's pop from its rank's queue, are the simulator's defaults,
//! 0.1 µs each.
//!
//! ```text
//! cargo build --release -p dls-bench --bin sim_hierarchy
//! target/release/sim_hierarchy            # N = 2^20, h = 0.62 us
//! target/release/sim_hierarchy 20 9.3us   # the same at h = 9.3 us
//! ```

use std::time::Instant;

use dls::sim::{format_duration, parse_duration, simulate, HandOut, IterateTimeModel, SimConfig};

/// One-way latency between a rank and rank 0, from the np 2 round trip.
const LATENCY_S: f64 = 0.37e-6;
/// The scheduler's time per request from the saturated server at np 8 and 16.
const H_MEASURED_S: f64 = 0.62e-6;

const TECHNIQUES: [&str; 6] = ["static", "ss", "gss", "fac2", "af", "awf-c"];
const SIZES: [(usize, usize); 2] = [(64, 16), (1024, 64)];
/// The sizes of the iterate-cost sweep (table B).
const SWEEP_SIZES: [(usize, usize); 4] = [(16, 4), (64, 16), (256, 32), (1024, 64)];
const SWEEP_MEANS_S: [f64; 5] = [1e-6, 10e-6, 100e-6, 1e-3, 10e-3];
/// Iterates per worker in the sweep.
const SWEEP_PER_WORKER: u64 = 256;

/// The per-request round trip of the raw ping-pong server at `np` ranks, simulated: SS over
/// iterates of no time, rank 0 not asking (it starts after the others are done).
fn ping_pong_round_trip(np: usize, h: f64) -> f64 {
    let per_client = 2000u64;
    let mut c = SimConfig::new("ss".parse().expect("ss"), per_client * (np as u64 - 1), np);
    c.iterate_time = IterateTimeModel::Constant(0.0);
    c.overhead_s = h;
    c.latency_s = LATENCY_S;
    c.start_s = vec![0.0; np];
    c.start_s[0] = 1e6;
    let out = simulate(&c).expect("ping-pong");
    let chunks = out.report.ranks[1..]
        .iter()
        .map(|r| r.chunks)
        .max()
        .unwrap_or(1);
    out.report.parallel_time_s / chunks as f64
}

/// One loop's makespan and efficiency, with its chunks per request and the scheduler's busy
/// time over the makespan.
#[derive(Debug, Clone, Copy)]
struct Cell {
    makespan_s: f64,
    efficiency: f64,
    chunks_per_request: f64,
    busy: f64,
}

/// One loop, central (`P·k` workers) or hierarchical (`P` ranks of `k` threads).
fn cell(
    technique: &str,
    n: u64,
    model: &IterateTimeModel,
    h: f64,
    (ranks, threads): (usize, usize),
    hierarchical: bool,
) -> Cell {
    let (p, hand_out) = if hierarchical {
        (ranks, HandOut::threads(threads))
    } else {
        (ranks * threads, HandOut::Central)
    };
    let mut c = SimConfig::new(technique.parse().expect("technique"), n, p);
    c.iterate_time = model.clone();
    c.overhead_s = h;
    c.latency_s = LATENCY_S;
    c.hand_out = hand_out;
    c.fill_technique_params();
    let out = simulate(&c).unwrap_or_else(|e| {
        eprintln!("{technique}: {e}");
        std::process::exit(1)
    });
    let makespan_s = out.report.parallel_time_s;
    Cell {
        makespan_s,
        efficiency: out.report.efficiency,
        chunks_per_request: out.report.chunks as f64 / out.requests.max(1) as f64,
        busy: if makespan_s > 0.0 {
            out.scheduler_busy_s / makespan_s
        } else {
            0.0
        },
    }
}

/// `*` after the smaller makespan of the two.
fn mark(this: Cell, other: Cell) -> &'static str {
    if this.makespan_s < other.makespan_s {
        "*"
    } else {
        " "
    }
}

/// Table A: every technique on the workloads, both sizes, N iterates.
fn table_a(n: u64, h: f64) {
    println!(
        "\nA. N = {n} iterates, h = {} per request, L = {}, c = 100ns, l = 100ns: makespan (ms) \
         and efficiency, * the shorter makespan of the two hand-outs",
        format_duration(h),
        format_duration(LATENCY_S)
    );
    print!("{:<18} {:<7}", "workload", "tech");
    for (p, k) in SIZES {
        print!(
            " | {:>17} {:>17}",
            format!("{p} x {k} central"),
            "hierarchical"
        );
    }
    println!();
    let workloads = [
        ("exp:10us", IterateTimeModel::Exponential { mean: 10e-6 }),
        ("exp:100us", IterateTimeModel::Exponential { mean: 100e-6 }),
        ("exp:1ms", IterateTimeModel::Exponential { mean: 1e-3 }),
        (
            "uniform:50us:150us",
            IterateTimeModel::Uniform {
                low: 50e-6,
                high: 150e-6,
            },
        ),
    ];
    for (name, model) in workloads {
        for technique in TECHNIQUES {
            print!("{name:<18} {technique:<7}");
            for size in SIZES {
                let central = cell(technique, n, &model, h, size, false);
                let hier = cell(technique, n, &model, h, size, true);
                print!(
                    " | {:>9.3} {:.3}{} {:>9.3} {:.3}{}",
                    central.makespan_s * 1e3,
                    central.efficiency,
                    mark(central, hier),
                    hier.makespan_s * 1e3,
                    hier.efficiency,
                    mark(hier, central)
                );
            }
            println!();
        }
    }
}

/// Table B: FAC2 and STATIC, 256 iterates per worker, exponential iterate times of each mean;
/// then table C, from the same hierarchical runs.
fn table_b(h: f64) {
    let mut hierarchical = Vec::new();
    println!(
        "\nB. {SWEEP_PER_WORKER} iterates per worker (N = {SWEEP_PER_WORKER} x P x k), exponential \
         iterate times, h = {}: efficiency central / hierarchical, * the shorter makespan",
        format_duration(h)
    );
    print!("{:<7} {:<10}", "tech", "P x k");
    for mean in SWEEP_MEANS_S {
        print!(" | {:>13}", format!("mean {}", format_duration(mean)));
    }
    println!();
    for technique in ["fac2", "static"] {
        for size in SWEEP_SIZES {
            let n = SWEEP_PER_WORKER * (size.0 * size.1) as u64;
            print!("{technique:<7} {:<10}", format!("{} x {}", size.0, size.1));
            for mean in SWEEP_MEANS_S {
                let model = IterateTimeModel::Exponential { mean };
                let central = cell(technique, n, &model, h, size, false);
                let hier = cell(technique, n, &model, h, size, true);
                print!(
                    " | {:.3}{}/{:.3}{}",
                    central.efficiency,
                    mark(central, hier),
                    hier.efficiency,
                    mark(hier, central)
                );
                hierarchical.push(hier);
            }
            println!();
        }
    }
    println!(
        "\nC. Table B's hierarchical runs: chunks per request (chunks / requests), and in brackets \
         the scheduler's busy time / makespan"
    );
    print!("{:<7} {:<10}", "tech", "P x k");
    for mean in SWEEP_MEANS_S {
        print!(" | {:>13}", format!("mean {}", format_duration(mean)));
    }
    println!();
    let mut cells = hierarchical.iter();
    for technique in ["fac2", "static"] {
        for size in SWEEP_SIZES {
            print!("{technique:<7} {:<10}", format!("{} x {}", size.0, size.1));
            for _ in SWEEP_MEANS_S {
                let c = cells.next().expect("one cell per run");
                print!(" | {:>6.2} ({:.2})", c.chunks_per_request, c.busy);
            }
            println!();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log2_n: u32 = match args.first() {
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("usage: sim_hierarchy [LOG2_N [H]] (e.g. 20 9.3us), got `{a}`");
            std::process::exit(2)
        }),
        None => 20,
    };
    let h = match args.get(1) {
        Some(a) => parse_duration(a, "H").unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        }),
        None => H_MEASURED_S,
    };
    let n = 1u64 << log2_n.min(40);
    let t = Instant::now();
    println!(
        "Central vs hierarchical hand-out, simulated. Central: P x k workers each ask rank 0 for \
         their own chunks (mpirun -np P*k); hierarchical: P ranks ask for up to k chunks at a \
         time for their k threads, SS for blocks of chunks (DLS_THREADS=k under mpirun). The \
         technique is computed over P*k workers in both; efficiency = total work / (P*k x \
         makespan)."
    );
    println!(
        "Scheduler costs from the raw MPI ping-pong server (mpi_overhead), measured on a 16-core \
         machine by an earlier session: a client's round trip 1.3-1.4us at np 2, 4.3us at np 8, \
         9.3us at np 16. The server is saturated by np-1 clients, so h = 4.3/7 = 0.61us, \
         9.3/15 = 0.62us per request; L = (1.35 - 0.62)/2 = 0.37us one way. At 1024 ranks h is \
         extrapolated: the np 16 figure (0.62us, flat from np 8) taken as a floor."
    );
    print!("Check, the simulated ping-pong at h = 0.62us:");
    for (np, measured) in [(2usize, "1.3-1.4"), (8, "4.3"), (16, "9.3")] {
        print!(
            " np {np} {:.2}us (measured {measured});",
            ping_pong_round_trip(np, H_MEASURED_S) * 1e6
        );
    }
    println!();
    table_a(n, h);
    table_b(h);
    println!("\n(run time {:.1} s)", t.elapsed().as_secs_f64());
}
