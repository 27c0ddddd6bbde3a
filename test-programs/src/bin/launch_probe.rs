//! What the runtime makes of the launcher that started it (`test-programs/tests/launcher.rs`,
//! under Open MPI's mpirun or, from `scripts/mpich.sh`, MPICH's Hydra `mpiexec`). Every rank
//! prints one line to stdout:
//!
//! ```text
//! launch_probe: rank R of P: variable=PMI_SIZE launcher=<words> rank=R size=P; env PMI_RANK=R PMI_SIZE=P ...; backend=Mpi { rank: R, size: P, threads: 1 }
//! ```
//!
//! with the launch as `Launch::detect` reads it from the real launcher's environment (`none`
//! without a launcher), the launcher variables that are set, and the backend `dls::init` chose;
//! then it runs one loop, `probe` (`DLS_REPORT=1` prints its summary with `p=`). Built without
//! the `mpi` feature and started by a launcher with several processes, `dls::init` refuses:
//! the program prints `launch_probe: INIT ERR <error>` to stderr and exits 1.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin launch_probe
//! mpiexec.hydra -n 3 target/debug/launch_probe
//! ```

use std::io::Write;

use dls_runtime::runtime::settings::Launch;

/// The variables of the launchers `Launch::detect` knows (`dls-runtime/src/runtime/launch.rs`).
const LAUNCHER_VARS: [&str; 10] = [
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "MV2_COMM_WORLD_RANK",
    "MV2_COMM_WORLD_SIZE",
    "PMIX_RANK",
    "MPI_LOCALNRANKS",
    "MPI_LOCALRANKID",
    "SLURM_STEP_NUM_TASKS",
];

fn main() {
    let launch = Launch::detect(|k| std::env::var(k).ok());
    let seen = match &launch {
        Some(l) => format!(
            "variable={} launcher={} rank={} size={}",
            l.variable,
            l.launcher,
            l.rank.map_or("?".into(), |r| r.to_string()),
            l.size.map_or("?".into(), |s| s.to_string())
        ),
        None => "variable=none".to_string(),
    };
    let env: Vec<String> = LAUNCHER_VARS
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v}")))
        .collect();
    let rt = match dls::init() {
        Ok(rt) => rt.with_statistics(true),
        Err(e) => {
            // One write (stderr is unbuffered: `eprintln!` writes its pieces apart, and the
            // ranks' messages would interleave within a line).
            let _ = std::io::stderr().write_all(format!("launch_probe: INIT ERR {e}\n").as_bytes());
            std::process::exit(1);
        }
    };
    println!(
        "launch_probe: rank {} of {}: {seen}; env {}; backend={:?}",
        rt.rank(),
        rt.size(),
        env.join(" "),
        rt.backend()
    );
    let technique = "fac2".parse().expect("a technique");
    match rt.doall_named("probe", 0..100u32, technique, |_| {}) {
        Ok(stats) if rt.rank() == 0 => println!(
            "launch_probe: loop n={} p={}",
            stats.report.n, stats.report.p
        ),
        Ok(_) => {}
        Err(e) => {
            eprintln!("launch_probe: LOOP ERR {e}");
            std::process::exit(1);
        }
    }
}
