//! `#[dls::main]` on a `main` returning `Result` (this file is a test without the libtest harness,
//! so it has its own `main`). Run plainly, it checks a parallel loop and then re-runs itself:
//!
//! - with `DLS_SCHEDULE=bogus`: the runtime refuses to start; the child must exit with status 1
//!   and name the variable and the valid techniques on stderr;
//! - with `DLS_SCHEDULE=gss,min=3`: the `schedule = "runtime"` loop runs with that technique (as
//!   the loop report, `DLS_REPORT=1`, shows);
//! - asked to fail: `main` returns `Err`; the child must exit with status 1 and print the error;
//! - with a loop the runtime refuses (a range longer than 2^64 iterates), as a one-level loop, as
//!   the outer and as an inner loop of a two-level loop: the child must exit with status 1 and
//!   print `error: loop <name>: …` (the one exit-on-error of generated code).

use std::process::{Command, ExitCode};

const ROLE: &str = "DLS_MACRO_MAIN_ROLE";

#[dls::parallel]
fn sum_of_squares(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "runtime", reduce(+: total))]
    for i in 1..=n {
        total += i * i;
    }
    total
}

/// Loops the runtime refuses: `which` says one-level, outer or inner.
#[dls::parallel]
fn too_long(which: &str) -> u64 {
    let mut count = 0_u64;
    if which == "one" {
        #[par_doall(name = "huge", reduce(+: count))]
        for _i in 0..u128::MAX {
            count += 1;
        }
    } else if which == "outer" {
        #[par_doall(name = "huge outer", group(min = 1), reduce(+: count))]
        for _j in 0..u128::MAX {
            #[par_doall(name = "small inner")]
            for _i in 0..2 {}
            count += 1;
        }
    } else {
        #[par_doall(name = "small outer", reduce(+: count))]
        for _j in 0..2 {
            #[par_doall(name = "huge inner", reduce(+: count))]
            for _i in 0..u128::MAX {
                count += 1;
            }
        }
    }
    count
}

#[dls::main]
fn main() -> Result<ExitCode, String> {
    let n = 2000;
    let got = sum_of_squares(n);
    if got != n * (n + 1) * (2 * n + 1) / 6 {
        return Err(format!("sum of squares: got {got}"));
    }
    match std::env::var(ROLE).as_deref() {
        Ok("fail") => return Err("asked to fail".to_string()),
        Ok(which @ ("one" | "outer" | "inner")) => {
            return Err(format!("{which}: got {}", too_long(which)));
        }
        Ok(_) => return Ok(ExitCode::SUCCESS),
        Err(_) => {}
    }
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let run = |role: &str, schedule: Option<&str>| {
        let mut cmd = Command::new(&me);
        cmd.env(ROLE, role)
            .env_remove("DLS_SCHEDULE")
            .env("DLS_REPORT", "1");
        if let Some(s) = schedule {
            cmd.env("DLS_SCHEDULE", s);
        }
        let out = cmd.output().map_err(|e| e.to_string())?;
        Ok::<_, String>((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    };
    let mut failures = Vec::new();

    let (code, stderr) = run("ok", Some("bogus"))?;
    if code != Some(1) || !stderr.contains("DLS_SCHEDULE=`bogus`") || !stderr.contains("fac2") {
        failures.push(format!(
            "bad DLS_SCHEDULE: status {code:?}, stderr {stderr:?}"
        ));
    }
    let (code, stderr) = run("ok", Some("gss,min=3"))?;
    if code != Some(0) || !stderr.contains("technique=gss,min=3") {
        failures.push(format!(
            "DLS_SCHEDULE=gss,min=3: status {code:?}, stderr {stderr:?}"
        ));
    }
    let (code, stderr) = run("fail", None)?;
    if code != Some(1) || !stderr.contains("asked to fail") {
        failures.push(format!(
            "main returning Err: status {code:?}, stderr {stderr:?}"
        ));
    }

    for (role, name) in [
        ("one", "huge"),
        ("outer", "huge outer"),
        ("inner", "huge inner"),
    ] {
        let (code, stderr) = run(role, None)?;
        let want = format!("error: loop {name}: ");
        if code != Some(1) || !stderr.contains(&want) {
            failures.push(format!(
                "loop refused ({role}): status {code:?}, stderr {stderr:?}"
            ));
        }
    }

    if failures.is_empty() {
        println!("macro_main: 6 child runs behaved as expected");
        Ok(ExitCode::SUCCESS)
    } else {
        Err(failures.join("\n"))
    }
}
