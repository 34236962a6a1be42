//! `exporace`: the command line for exponential-race experiments.
//!
//! `exporace run <scenario.json>` answers a scenario (see `docs/scenario.md`)
//! and prints the result as JSON; `-` reads the scenario from stdin.
//! `exporace models` lists the noise catalogue; `exporace sweep` tabulates
//! exact tail masses across gaps for every model. `exporace audit` reads an
//! engine's dump (safetensors or `.npy`) and reports flips, overflows and dead
//! zones; `exporace replay` prints an engine's noise for a seed.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod audit;
mod models;
mod replay;
mod sweep;

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
    /// Exact tail mass of 1 head and N tails across gaps, for every model.
    Sweep {
        /// Smallest gap in nats.
        #[arg(long, default_value_t = 10.0)]
        from: f64,
        /// Largest gap in nats.
        #[arg(long, default_value_t = 21.0)]
        to: f64,
        /// Step in nats.
        #[arg(long, default_value_t = 1.0)]
        step: f64,
        /// Number of tail tokens.
        #[arg(long, default_value_t = 262_144)]
        tails: u64,
    },
    /// Audit an engine's dump: tokens at f32 and f64, flips, overflows, dead zones.
    Audit(Box<audit::AuditArgs>),
    /// Print an engine's noise for a seed and an offset.
    Replay(replay::ReplayArgs),
}

fn read_input(path: &PathBuf) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("reading stdin: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run { scenario } => read_input(scenario)
            .and_then(|text| exporace::scenario::run(&text).map_err(|e| e.to_string())),
        Command::Models => models::table(),
        &Command::Sweep {
            from,
            to,
            step,
            tails,
        } => sweep::table(from, to, step, tails),
        Command::Audit(args) => audit::run(args),
        Command::Replay(args) => replay::run(args),
    };
    match result {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
