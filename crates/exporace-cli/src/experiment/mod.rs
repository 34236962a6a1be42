//! `exporace experiment`: the studies of docs/forensics.md on the command
//! line — the many-tail race (vLLM #43150), gap sweeps and the shared-noise
//! bias (vLLM #54282) — each with a progress bar, a table on the terminal, an
//! optional JSON report and an optional SVG chart from `exporace-viz`.

use clap::{Args, Subcommand};

mod common;
mod gap_sweep;
mod many_tail;
mod shared_noise;

pub use gap_sweep::GapSweepArgs;
pub use many_tail::ManyTailArgs;
pub use shared_noise::SharedNoiseArgs;

/// `exporace experiment` options.
#[derive(Args, Debug)]
pub struct ExperimentArgs {
    #[command(subcommand)]
    study: Study,
}

#[derive(Subcommand, Debug)]
enum Study {
    /// One head and N tail tokens at a gap: exact tail mass per model and a
    /// Monte Carlo count of tail wins against it.
    ManyTail(ManyTailArgs),
    /// Exact tail mass of one head and N tails across gaps, per model.
    GapSweep(GapSweepArgs),
    /// Rejection sampling with the draft drawn from independent noise and
    /// from the recovery race's own noise: the emitted distribution against
    /// the target.
    SharedNoise(SharedNoiseArgs),
}

/// Runs the study and returns the text for the terminal.
pub fn run(args: &ExperimentArgs) -> Result<String, String> {
    match &args.study {
        Study::ManyTail(a) => many_tail::run(a),
        Study::GapSweep(a) => gap_sweep::run(a),
        Study::SharedNoise(a) => shared_noise::run(a),
    }
}
