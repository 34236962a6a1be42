//! `exporace experiment many-tail`: vLLM #43150's race — one head at weight
//! 1 and N tails at weight `f32(e^-gap)` — with the exact tail mass under each
//! model and a Monte Carlo count of tail wins measured against it.

use clap::Args;
use exporace::NanPolicy;
use exporace_study::experiment::{Fit, Sampler, Setup};
use exporace_study::win_probability::ideal_tail_mass;
use exporace_viz::curves_svg;
use serde_json::json;

use super::common::{Output, check_trials, find_models, monte_carlo, num, resolve_seed, sci};
use super::gap_sweep::{chart, gaps, tail_mass};

/// The most tail tokens a run may race (2^24: the weights and the per-token
/// counts then take about 200 MB).
pub const MAX_TAILS: u64 = 1 << 24;

/// `exporace experiment many-tail` options.
#[derive(Args, Debug)]
pub struct ManyTailArgs {
    /// The gap between the head's and the tails' logits, in nats.
    #[arg(long, default_value_t = 20.5)]
    pub gap: f64,
    /// Number of tail tokens.
    #[arg(long, default_value_t = 262_144)]
    pub tails: u64,
    /// A model to run (repeatable; default: torch-cuda-f32 and
    /// u64-f64-classic, vLLM's fp32 and fp64 noise).
    #[arg(long = "model")]
    pub models: Vec<String>,
    /// Races per model (each draws 1 + N noise values).
    #[arg(long, default_value_t = 10_000)]
    pub trials: u64,
    /// The seed (decimal or 0x hex); drawn from entropy and reported when absent.
    #[arg(long)]
    pub seed: Option<String>,
    /// JSON report, chart, progress.
    #[command(flatten)]
    pub output: Output,
}

/// Runs the study and returns the table for the terminal.
pub fn run(a: &ManyTailArgs) -> Result<String, String> {
    let names = if a.models.is_empty() {
        vec!["torch-cuda-f32".to_string(), "u64-f64-classic".to_string()]
    } else {
        a.models.clone()
    };
    let entries = find_models(&names)?;
    if !(a.gap.is_finite() && a.gap >= 0.0) {
        return Err(format!(
            "the gap must be a finite number of nats >= 0, got {}",
            a.gap
        ));
    }
    check_trials(a.trials)?;
    if a.tails == 0 || a.tails > MAX_TAILS {
        return Err(format!("tails must be in 1..={MAX_TAILS}, got {}", a.tails));
    }
    let seed = resolve_seed(a.seed.as_deref())?;
    let w = (-a.gap).exp() as f32;
    let mut weights = vec![w; a.tails as usize + 1];
    weights[0] = 1.0;
    let ideal = ideal_tail_mass(a.tails, -(w as f64).ln());
    let bar = a.output.bar(
        a.trials * entries.len() as u64,
        "{bar:40} {pos}/{len} races {per_sec} {eta}",
    );
    let mut out = format!(
        "Many-tail race: 1 head at weight 1, {} tails at weight f32(e^-{}) = {w:e}; \
         {} races per model, seed {seed}.\n\
         Ideal race: P(a tail wins) = N e^-g / (1 + N e^-g) = {}.\n\n\
         {:<18} {:>12} {:>9} {:>12} {:>10} {:>8} {:>9}\n",
        a.tails,
        a.gap,
        a.trials,
        sci(ideal),
        "model",
        "exact P(tail)",
        "± bound",
        "expected",
        "observed",
        "z",
        "p",
    );
    let mut rows = Vec::new();
    for e in &entries {
        let exact = tail_mass(e, a.gap, a.tails)?;
        let setup = Setup {
            target: &weights,
            draft: None,
            sampler: Sampler::Race,
            trials: a.trials,
            seed,
            policy: NanPolicy::FirstNanWins,
        };
        let report = monte_carlo(e, setup, &bar)?;
        let tail = report
            .fit
            .category_of(1)
            .copied()
            .ok_or_else(|| "the tail tokens form no category".to_string())?;
        let observed: u64 = report.counts[1..].iter().sum();
        let p = Fit::z_p_value(tail.z);
        out += &format!(
            "{:<18} {:>12} {:>9} {:>12.2} {:>10} {:>8.2} {:>9.3}\n",
            e.name,
            sci(exact.probability),
            format!("{:.0e}", exact.bound()),
            exact.probability * a.trials as f64,
            observed,
            tail.z,
            p,
        );
        rows.push(json!({
            "model": e.name,
            "exact": { "probability": num(exact.probability), "lower": num(exact.lower), "upper": num(exact.upper) },
            "trials": a.trials, "tail_wins": observed, "head_wins": report.counts[0],
            "expected_tail_wins": num(exact.probability * a.trials as f64),
            "z": num(tail.z), "p_value": num(p),
        }));
    }
    bar.finish_and_clear();
    let report = json!({
        "study": "many-tail", "gap": a.gap, "tails": a.tails, "tail_weight": w,
        "seed": seed.to_string(), "ideal": num(ideal), "models": rows,
    });
    out += &a.output.write(&report, || {
        let around = gaps((a.gap - 8.0).max(0.0), a.gap + 2.0, 0.25)?;
        let mut columns = Vec::new();
        for e in &entries {
            let values = around
                .iter()
                .map(|&g| tail_mass(e, g, a.tails).map(|t| t.probability))
                .collect::<Result<Vec<_>, _>>()?;
            columns.push((e.name, values));
        }
        let title = format!(
            "1 head and {} tails: P(a tail wins) near {} nats",
            a.tails, a.gap
        );
        curves_svg(
            &chart(title, &around, &columns, a.tails, Some(a.gap)),
            900,
            480,
        )
    })?;
    Ok(out.trim_end().to_string())
}
