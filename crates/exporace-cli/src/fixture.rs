//! `exporace fixture`: a regression fixture from a scenario file (the
//! scenario with its seed pinned, its answer per precision and NaN policy,
//! and its tensors as `.npy`); see docs/fixtures.md.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

/// `exporace fixture` options.
#[derive(Args, Debug)]
pub struct FixtureArgs {
    /// The scenario file, or `-` for stdin.
    pub scenario: PathBuf,
    /// The fixture's directory (created if needed).
    #[arg(long)]
    pub out: PathBuf,
    /// Where the scenario came from, recorded in the manifest (default: the
    /// file's name).
    #[arg(long)]
    pub source: Option<String>,
}

/// Writes the fixture, checks it by replaying it, and returns a summary.
pub fn run(a: &FixtureArgs) -> Result<String, String> {
    let text = crate::input::read_input(&a.scenario)?;
    let source = a
        .source
        .clone()
        .unwrap_or_else(|| format!("scenario {}", a.scenario.display()));
    let m = exporace_io::scenario_fixture::write_scenario_fixture(&a.out, &source, &text)
        .map_err(|e| e.to_string())?;
    let diffs = exporace_io::fixture::check_fixture(&a.out).map_err(|e| e.to_string())?;
    if !diffs.is_empty() {
        return Err(format!("the fixture does not replay: {}", diffs.join("; ")));
    }
    let mut s = format!("fixture written to {} ({source})\n", a.out.display());
    let empty = Vec::new();
    for e in m["answers"].as_array().unwrap_or(&empty) {
        let label = [&e["precision"], &e["nan_policy"]]
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let label = if label.is_empty() {
            "answer".into()
        } else {
            label
        };
        let what = match (&e["answer"], &e["error"]) {
            (Value::String(f), _) => f.clone(),
            (_, Value::String(msg)) => format!("error: {msg}"),
            _ => String::new(),
        };
        let _ = writeln!(s, "  {label:<28} {what}");
    }
    if let Some(why) = m["tensors_omitted"].as_str() {
        let _ = writeln!(s, "  no .npy tensors: {why}");
    } else if m.get("inputs").is_some() || m["race"].is_object() {
        let _ = writeln!(s, "  tensors as .npy, listed in fixture.json");
    }
    Ok(s.trim_end().to_string())
}
