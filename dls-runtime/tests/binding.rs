//! Threads that have cores (issue 44, item 4): a process bound to fewer cores than its worker
//! threads is warned at start, naming the count and the flags that fix it; `DLS_PIN=cores` pins
//! each pool thread to one core of the process's mask. Each case runs this test binary again as
//! a child, under `taskset` where it binds it (Linux; the tests say why when they cannot run).

use std::process::Command;

/// The CPUs of this process's mask (`Cpus_allowed_list` of `/proc/<who>/status`).
fn cpus_of(who: &str) -> Vec<usize> {
    let status = std::fs::read_to_string(format!("/proc/{who}/status")).unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// Runs the `child` test of this binary with `vars`, under `taskset -c CPUS` when given.
fn run_child(taskset: Option<&str>, vars: &[(&str, &str)]) -> Option<String> {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match taskset {
        Some(cpus) => {
            let mut c = Command::new("taskset");
            c.args(["-c", cpus]).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("DLS_BINDING_TEST_CHILD", "1")
        .env_remove("DLS_PIN")
        .env_remove("DLS_THREADS");
    for launcher_var in [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "MV2_COMM_WORLD_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
        "SLURM_STEP_NUM_TASKS",
    ] {
        cmd.env_remove(launcher_var);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) if taskset.is_some() => {
            eprintln!("taskset cannot run here ({e}): case skipped");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    Some(text)
}

/// The child: a loop long enough for every worker to take chunks; each iterate notes the CPU
/// mask of the thread that runs it.
#[test]
fn child() {
    if std::env::var_os("DLS_BINDING_TEST_CHILD").is_none() {
        return;
    }
    let rt = dls_runtime::init().unwrap();
    let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
    rt.doall(0..400u32, "ss".parse().unwrap(), |_| {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_micros(200) {}
        let name = std::thread::current().name().unwrap_or("?").to_string();
        seen.lock()
            .unwrap()
            .insert(format!("{name}={:?}", cpus_of("thread-self")));
    })
    .unwrap();
    for line in seen.into_inner().unwrap() {
        println!("THREAD {line}");
    }
}

#[test]
fn a_process_bound_to_one_core_with_two_threads_is_warned() {
    let cpus = cpus_of("self");
    if cpus.len() < 2 {
        eprintln!(
            "this process may run on {} core: nothing to compare",
            cpus.len()
        );
        return;
    }
    let one = cpus[0].to_string();
    let Some(out) = run_child(Some(&one), &[("DLS_THREADS", "2")]) else {
        return;
    };
    assert!(
        out.contains("dls: warning: 2 worker threads")
            && out.contains("this process may run on 1 core of this machine's")
            && out.contains("--bind-to none")
            && out.contains("srun --cpus-per-task=2"),
        "{out}"
    );
    // Once per process.
    assert_eq!(
        out.matches("dls: warning: 2 worker threads").count(),
        1,
        "{out}"
    );
    // With a core per thread, nothing is said.
    let two = format!("{},{}", cpus[0], cpus[1]);
    let out = run_child(Some(&two), &[("DLS_THREADS", "2")]).unwrap();
    assert!(!out.contains("worker threads"), "{out}");
}

#[test]
fn dls_pin_cores_pins_each_pool_thread_to_one_core() {
    let cpus = cpus_of("self");
    if cpus.len() < 2 {
        eprintln!(
            "this process may run on {} core: nothing to pin",
            cpus.len()
        );
        return;
    }
    let out = run_child(None, &[("DLS_THREADS", "2"), ("DLS_PIN", "cores")]).unwrap();
    // Pool thread 1 on the mask's second core; the program's own thread is not moved.
    assert!(
        out.contains(&format!("THREAD dls-worker-1=[{}]", cpus[1])),
        "{out}"
    );
    let unpinned = run_child(None, &[("DLS_THREADS", "2")]).unwrap();
    assert!(
        unpinned.contains(&format!("THREAD dls-worker-1={cpus:?}")),
        "{unpinned}"
    );
}
