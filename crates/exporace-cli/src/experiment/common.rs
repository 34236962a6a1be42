//! What the studies share: where their results go ([`Output`]), the
//! catalogue entries they name, their checked `--trials` and seed, one
//! Monte Carlo run under a catalogue model, and number formatting.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Args;
use exporace_study::experiment::{self, Control, Report, Setup};
use exporace_study::models::{CATALOGUE, CatalogueEntry, ModelVisitor, NoiseModel};
use exporace_study::scenario::SeedIn;
use exporace_study::win_probability::ExactOptions;
use indicatif::ProgressBar;
use serde_json::Value;

/// Where the results go besides the terminal.
#[derive(Args, Debug, Default)]
pub struct Output {
    /// Write the full report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw the study's chart as SVG to this file.
    #[arg(long)]
    pub chart: Option<PathBuf>,
    /// Hide the progress bar (it is also hidden when stderr is not a terminal).
    #[arg(long)]
    pub quiet: bool,
}

impl Output {
    /// Writes the JSON report and the chart if asked for; returns the lines
    /// saying where they went.
    pub(super) fn write(
        &self,
        report: &Value,
        chart: impl FnOnce() -> Result<String, String>,
    ) -> Result<String, String> {
        let mut said = String::new();
        if let Some(path) = &self.json {
            let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            said += &format!("\nJSON report: {}", path.display());
        }
        if let Some(path) = &self.chart {
            std::fs::write(path, chart()?).map_err(|e| format!("{}: {e}", path.display()))?;
            said += &format!("\nchart: {}", path.display());
        }
        Ok(said)
    }

    /// A progress bar of `len` steps, shown on a terminal unless `--quiet`.
    pub(super) fn bar(&self, len: u64, template: &str) -> ProgressBar {
        crate::progress::bar(
            len,
            template,
            !self.quiet && std::io::stderr().is_terminal(),
        )
    }
}

/// Catalogue entries by name, with the catalogue listed when one is unknown.
pub(super) fn find_models(names: &[String]) -> Result<Vec<&'static CatalogueEntry>, String> {
    names
        .iter()
        .map(|n| {
            CatalogueEntry::find(n).ok_or_else(|| {
                let all: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
                format!("unknown model {n:?}; the catalogue has {}", all.join(", "))
            })
        })
        .collect()
}

/// `--trials` within [1, the core's cap], refused up front.
pub(super) fn check_trials(trials: u64) -> Result<(), String> {
    let limit = exporace_study::experiment::MAX_TRIALS;
    if trials == 0 {
        return Err("--trials must be at least 1: zero trials have no frequencies to fit".into());
    }
    if trials > limit {
        return Err(format!(
            "--trials must be at most {limit} (2^32), got {trials}"
        ));
    }
    Ok(())
}

/// The seed: decimal or `0x` hex as given, or drawn from entropy (and then
/// reported, so the run can be repeated).
pub(super) fn resolve_seed(seed: Option<&str>) -> Result<u64, String> {
    match seed {
        Some(s) => SeedIn::Text(s.to_string())
            .value()
            .map_err(|e| e.to_string()),
        None => exporace::seed::from_entropy().map_err(|e| e.to_string()),
    }
}

/// Runs one Monte Carlo experiment under a catalogue model, advancing `bar`
/// by the trials done.
pub(super) fn monte_carlo(
    entry: &CatalogueEntry,
    setup: Setup<'_>,
    bar: &ProgressBar,
) -> Result<Report, String> {
    struct Visit<'a> {
        setup: Setup<'a>,
        bar: &'a ProgressBar,
    }
    impl ModelVisitor for Visit<'_> {
        type Output = exporace::Result<Report>;
        fn visit<M: NoiseModel>(self, m: &M) -> exporace::Result<Report> {
            let start = self.bar.position();
            let done = AtomicU64::new(0);
            let trials = self.setup.trials;
            let progress = |fraction: f64| {
                let now = (fraction * trials as f64) as u64;
                let before = done.fetch_max(now, Ordering::Relaxed);
                if now > before {
                    self.bar.set_position(start + now);
                }
            };
            let control = Control {
                progress: Some(&progress),
                cancel: None,
            };
            experiment::run(m, &self.setup, &ExactOptions::default(), &control)
        }
    }
    entry
        .visit(None, Visit { setup, bar })
        .and_then(|r| r)
        .map_err(|e| format!("{}: {e}", entry.name))
}

/// `x` in scientific notation with 4 decimals, or `0` when exactly 0.
pub(super) fn sci(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.4e}")
    }
}

/// A JSON number, or `null` for a non-finite value.
pub(super) fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}
