//! The `dls` command-line tool: explore loop scheduling techniques.
//!
//! - `dls chunks` prints the chunk sizes a non-adaptive technique hands out;
//! - `dls simulate` simulates one loop on P ranks and prints its report (or JSON);
//! - `dls compare` simulates the same loop under several techniques, side by side;
//! - `dls hsf` reproduces Hummel, Schonberg & Flynn's (CACM 1992) comparison;
//! - `dls predict` predicts the run time of a parallel-pipeline reduction (Kuntraruk, Pottenger &
//!   Ross 2005);
//! - `dls markov` predicts the phase time and speed of synchronous and asynchronous iterations
//!   from the wavefront Markov chain of Casanova, Thomason & Dongarra (1999), beside a Monte Carlo
//!   simulation of the same process;
//! - `dls plot` draws the loop reports of a run (`DLS_REPORT=run.jsonl`) as SVG charts;
//! - `dls scaltest` tests whether a program's regions scale, by Lyon & Kacker's (1994) factorial
//!   experiment with synthetic delays (`DLS_DELAY`);
//! - `dls check-ranks` runs a program on 1 worker, on threads and under mpirun and compares
//!   their outputs (state that no clause shares: statics, thread-locals, files).

mod args;
mod check_ranks;
mod chunks;
mod compare;
mod hsf;
mod markov;
mod output;
mod plot;
mod predict;
mod reports;
mod scaltest;
mod simulate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Dynamic loop scheduling: inspect and simulate loop scheduling techniques.
#[derive(Debug, Parser)]
#[command(
    name = "dls",
    version,
    about,
    after_help = "Examples:\n  dls chunks --technique gss --n 1000 --p 4\n  dls simulate --technique fac2 --n 100000 --p 16 --iterate-time exp:1ms --overhead 5us\n  dls compare --n 100000 --p 16 --iterate-time gamma:0.25:4ms --overhead 50us\n  dls hsf\n  dls predict --n 512 --p 8 --t-comp 1.39 --message-bytes 8M --capacity 1.28G\n  dls markov --update-time 1:1/2,3:1/2 --update-time 1:1/4,2:3/4 --network 1 --async 1:2\n  dls plot run.jsonl --out plots\n  dls scaltest --regions body,between --delay 2ms --workers 2,4 -- ./my_program\n  dls check-ranks -- ./my_program\n\nRun `dls <command> --help` for every option of a command."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Chunks(chunks::ChunksArgs),
    // Boxed: the simulator's settings are the largest (clippy::large_enum_variant).
    Simulate(Box<simulate::SimulateArgs>),
    Compare(compare::CompareArgs),
    Hsf(hsf::HsfArgs),
    Predict(predict::PredictArgs),
    Markov(markov::MarkovArgs),
    Plot(plot::PlotArgs),
    Scaltest(scaltest::ScaltestArgs),
    CheckRanks(check_ranks::CheckRanksArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Chunks(a) => chunks::run(&a),
        Command::Simulate(a) => simulate::run(&a),
        Command::Compare(a) => compare::run(&a),
        Command::Hsf(a) => hsf::run(&a),
        Command::Predict(a) => predict::run(&a),
        Command::Markov(a) => markov::run(&a),
        Command::Plot(a) => plot::run(&a),
        Command::Scaltest(a) => scaltest::run(&a),
        Command::CheckRanks(a) => check_ranks::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
