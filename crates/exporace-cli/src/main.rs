//! `exporace`: the command line for exponential-race experiments.
//!
//! `exporace run <scenario.json>` answers a scenario (see `docs/scenario.md`)
//! and prints the result as JSON; `-` reads the scenario from stdin.
//! `exporace models` lists the noise catalogue; `exporace experiment` runs the
//! many-tail, gap-sweep and shared-noise studies. `exporace audit` reads an
//! engine's dump (safetensors or `.npy`) and reports flips, overflows and dead
//! zones; `exporace replay` prints an engine's noise for a seed; `exporace
//! fixture` writes a regression fixture from a scenario.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod audit;
mod experiment;
mod fixture;
mod input;
mod models;
mod progress;
mod replay;

/// Exponential-race (Gumbel-max) sampling as LLM inference engines do it.
#[derive(Parser, Debug)]
#[command(name = "exporace", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Answer a JSON scenario and print the result as JSON.
    Run {
        /// The scenario file, or `-` for stdin.
        scenario: PathBuf,
    },
    /// List the noise catalogue with each model's lattice facts.
    Models,
    /// Studies: the many-tail race, gap sweeps, the shared-noise bias.
    Experiment(experiment::ExperimentArgs),
    /// Audit an engine's dump: tokens at f32 and f64, flips, overflows, dead zones.
    Audit(Box<audit::AuditArgs>),
    /// Write a regression fixture from a scenario file.
    Fixture(fixture::FixtureArgs),
    /// Print an engine's noise for a seed and an offset.
    Replay(replay::ReplayArgs),
}

/// Writes the answer to stdout. A closed pipe (`exporace models | head -1`)
/// ends the program quietly; any other failure (`>/dev/full`) is one line on
/// stderr and exit status 1.
fn print(out: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{out}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: writing to stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run { scenario } => input::read_input(scenario)
            .and_then(|text| exporace_study::scenario::run(&text).map_err(|e| e.to_string())),
        Command::Models => models::table(),
        Command::Experiment(args) => experiment::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Fixture(args) => fixture::run(args),
    };
    match result {
        Ok(out) => print(&out),
        Err(e) => {
            // stderr may be closed too: nothing is left to tell then.
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::FAILURE
        }
    }
}
