//! `exporace experiment shared-noise`: vLLM's rejection-sampling step with
//! the draft token drawn from independent (salted) noise and from the
//! recovery race's own noise (the bias fixed by vLLM #54282), each measured
//! against the target distribution, which a lossless step reproduces.

use clap::Args;
use exporace::NanPolicy;
use exporace_study::experiment::{Coupling, Report, Sampler, Setup};
use exporace_viz::{BarChart, BarSeries, bars_svg};
use serde_json::json;

use super::common::{Output, check_trials, find_models, monte_carlo, num, resolve_seed};

/// `exporace experiment shared-noise` options.
#[derive(Args, Debug)]
pub struct SharedNoiseArgs {
    /// Target probabilities, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.3,0.15,0.05")]
    pub target: Vec<f32>,
    /// Draft probabilities, comma separated (as many as the target).
    #[arg(long, value_delimiter = ',', default_value = "0.1,0.2,0.3,0.4")]
    pub draft: Vec<f32>,
    /// The noise model of every race.
    #[arg(long, default_value = "ideal")]
    pub model: String,
    /// Rejection steps per coupling.
    #[arg(long, default_value_t = 100_000)]
    pub trials: u64,
    /// The seed (decimal or 0x hex); drawn from entropy and reported when absent.
    #[arg(long)]
    pub seed: Option<String>,
    /// JSON report, chart, progress.
    #[command(flatten)]
    pub output: Output,
}

/// Runs both couplings and returns the table for the terminal.
pub fn run(a: &SharedNoiseArgs) -> Result<String, String> {
    check_trials(a.trials)?;
    let entry = find_models(std::slice::from_ref(&a.model))?[0];
    let seed = resolve_seed(a.seed.as_deref())?;
    let bar = a
        .output
        .bar(2 * a.trials, "{bar:40} {pos}/{len} steps {eta}");
    let mut reports: Vec<(&str, Report)> = Vec::new();
    for (name, coupling) in [("salted", Coupling::Salted), ("shared", Coupling::Shared)] {
        let setup = Setup {
            target: &a.target,
            draft: Some(&a.draft),
            sampler: Sampler::Rejection(coupling),
            trials: a.trials,
            seed,
            policy: NanPolicy::FirstNanWins,
        };
        reports.push((name, monte_carlo(entry, setup, &bar)?));
    }
    bar.finish_and_clear();
    let n = a.trials as f64;
    let sum: f64 = a.target.iter().map(|&p| p as f64).sum();
    let mut out = format!(
        "Rejection sampling, one draft token drawn from the draft distribution; model {}, \
         {} steps per coupling, seed {seed}.\n\
         salted: the draft's noise is independent of the recovery race's (vLLM after #54282).\n\
         shared: the draft is drawn from the recovery race's own noise (the bias).\n\n\
         {:>6} {:>10} {:>10} {:>10} {:>8} {:>10} {:>8}\n",
        entry.name, a.trials, "token", "target", "draft", "salted", "z", "shared", "z",
    );
    for (t, (&p, &d)) in a.target.iter().zip(&a.draft).enumerate() {
        let cell = |r: &Report| {
            let z = r.fit.category_of(t).map_or(f64::NAN, |c| c.z);
            (r.counts[t] as f64 / n, z)
        };
        let (fs, zs) = cell(&reports[0].1);
        let (fh, zh) = cell(&reports[1].1);
        out += &format!(
            "{t:>6} {:>10.4} {d:>10.4} {fs:>10.4} {zs:>8.2} {fh:>10.4} {zh:>8.2}\n",
            p as f64 / sum
        );
    }
    out += "\n";
    for (name, r) in &reports {
        out += &format!(
            "{name}: chi-square {:.2} on {} df, p = {:.3e}; total variation to the target {:.4}\n",
            r.fit.chi_square, r.fit.df, r.fit.p_value, r.tv_to_target
        );
    }
    let report = json!({
        "study": "shared-noise", "model": entry.name, "seed": seed.to_string(), "trials": a.trials,
        "target": a.target, "draft": a.draft,
        "couplings": reports.iter().map(|(name, r)| json!({
            "coupling": name, "counts": r.counts, "chi_square": num(r.fit.chi_square), "df": r.fit.df,
            "p_value": num(r.fit.p_value), "tv_to_target": num(r.tv_to_target),
            "z": r.fit.categories.iter().map(|c| num(c.z)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    out += &a.output.write(&report, || {
        let series = |name: &str, color, r: &Report| BarSeries {
            name: name.into(),
            color,
            values: r.counts.iter().map(|&c| c as f64).collect(),
            winner: None,
        };
        let chart = BarChart {
            title: format!(
                "{} rejection steps per coupling against the target",
                a.trials
            ),
            x_label: "emitted token".into(),
            y_label: "count".into(),
            labels: Vec::new(),
            series: vec![
                series("salted draft noise", [41, 128, 185], &reports[0].1),
                series("shared draft noise", [192, 57, 43], &reports[1].1),
            ],
            log_floor: None,
            expected: a.target.iter().map(|&p| p as f64 / sum * n).collect(),
            expected_label: Some("target x steps".into()),
            highlight: Vec::new(),
            highlight_label: None,
            threshold: None,
        };
        bars_svg(&chart, 800, 420)
    })?;
    Ok(out.trim_end().to_string())
}
