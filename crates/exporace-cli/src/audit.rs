//! `exporace audit`: an engine's dump in vLLM's layout, raced at f32 and f64
//! on the same noise, with flips, overflows and dead zones per position.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use exporace::{NanPolicy, Precision};
use exporace_io::audit::{Audit, AuditOptions, PositionReport};
use exporace_io::{Dump, IoError, Tensor, read_npy_file, read_safetensors_file};
use serde::Serialize;
use serde_json::{Value, json};

/// Positions times vocabulary above which the progress bar is shown.
const PROGRESS_ABOVE: usize = 1 << 22;

/// The noise precision of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrecisionArg {
    /// fp32 noise (`exponential_()` in fp32): an f64 `inv_q` is cast.
    F32,
    /// fp64 noise (`--use-fp64-gumbel`): an f32 `inv_q` is widened.
    F64,
}

/// The NaN rule, as in the scenario format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum PolicyArg {
    /// `torch.argmax`: the first NaN wins.
    FirstNanWins,
    /// vLLM's CPU C++ kernel: a NaN never wins.
    NanNeverWins,
    /// A NaN score is an error.
    Reject,
}

impl From<PolicyArg> for NanPolicy {
    fn from(p: PolicyArg) -> NanPolicy {
        match p {
            PolicyArg::FirstNanWins => NanPolicy::FirstNanWins,
            PolicyArg::NanNeverWins => NanPolicy::NanNeverWins,
            PolicyArg::Reject => NanPolicy::Reject,
        }
    }
}

/// `exporace audit` options.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// A safetensors dump with tensors `target_probs`, `inv_q`,
    /// `draft_token_ids`, `cu_num_draft_tokens` and optionally
    /// `draft_probs`, `uniform`, `bonus_token_ids`.
    #[arg(required_unless_present = "target_probs")]
    pub dump: Option<PathBuf>,
    /// `.npy` file of `target_probs` `[T, V]` (instead of a safetensors dump).
    #[arg(long, conflicts_with = "dump", requires_all = ["inv_q", "draft_token_ids", "cu_num_draft_tokens"])]
    pub target_probs: Option<PathBuf>,
    /// `.npy` file of `draft_probs` `[T, V]`.
    #[arg(long, requires = "target_probs")]
    pub draft_probs: Option<PathBuf>,
    /// `.npy` file of `inv_q` `[B, V]`.
    #[arg(long, requires = "target_probs")]
    pub inv_q: Option<PathBuf>,
    /// `.npy` file of `draft_token_ids` `[T]`.
    #[arg(long, requires = "target_probs")]
    pub draft_token_ids: Option<PathBuf>,
    /// `.npy` file of `cu_num_draft_tokens` `[B]`.
    #[arg(long, requires = "target_probs")]
    pub cu_num_draft_tokens: Option<PathBuf>,
    /// `.npy` file of the acceptance uniforms `[T]`.
    #[arg(long, requires = "target_probs")]
    pub uniform: Option<PathBuf>,
    /// `.npy` file of `bonus_token_ids` `[B]`.
    #[arg(long, requires = "target_probs")]
    pub bonus_token_ids: Option<PathBuf>,
    /// The engine's noise precision; the other precision is derived from the
    /// same values (cast or widened) for the comparison.
    #[arg(long, value_enum, default_value = "f32")]
    pub precision: PrecisionArg,
    /// What a NaN score does.
    #[arg(long, value_enum, default_value = "first_nan_wins")]
    pub nan_policy: PolicyArg,
    /// The noise model whose dead zone is reported (see `exporace models`).
    #[arg(long, default_value = "torch-cuda-f32")]
    pub model: String,
    /// Write the full report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write SVG charts into this directory.
    #[arg(long)]
    pub charts: Option<PathBuf>,
    /// Write a regression fixture (inputs and expected outputs per precision
    /// and NaN policy, see docs/fixtures.md) into this directory.
    #[arg(long)]
    pub fixture: Option<PathBuf>,
    /// Put only this request (index into `cu_num_draft_tokens`) in the fixture.
    #[arg(long, requires = "fixture")]
    pub fixture_request: Option<usize>,
    /// Rows of the terminal table (flips, overflows and errors first).
    #[arg(long, default_value_t = 40)]
    pub rows: usize,
}

/// Loads the dump named by the options.
pub fn load(args: &AuditArgs) -> Result<(String, Dump), IoError> {
    if let Some(path) = &args.dump {
        let name = path.display().to_string();
        let tensors = read_safetensors_file(path)?;
        return Ok((name.clone(), Dump::from_tensor_map(&name, tensors)?));
    }
    let files: [(&str, &Option<PathBuf>); 7] = [
        ("target_probs", &args.target_probs),
        ("draft_probs", &args.draft_probs),
        ("inv_q", &args.inv_q),
        ("draft_token_ids", &args.draft_token_ids),
        ("cu_num_draft_tokens", &args.cu_num_draft_tokens),
        ("uniform", &args.uniform),
        ("bonus_token_ids", &args.bonus_token_ids),
    ];
    let mut tensors: BTreeMap<String, Tensor> = BTreeMap::new();
    for (role, path) in files {
        if let Some(p) = path {
            tensors.insert(role.to_string(), read_npy_file(p)?);
        }
    }
    let name = "the .npy files".to_string();
    Ok((name.clone(), Dump::from_tensor_map(&name, tensors)?))
}

fn svg_charts(dir: &Path, positions: &[PositionReport]) -> Result<Vec<PathBuf>, String> {
    use exporace_viz::{CurveChart, Series, curves_svg};
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let series = |name: &str, color, f: &dyn Fn(&PositionReport) -> Option<f64>| Series {
        name: name.into(),
        color,
        dashed: false,
        points: positions
            .iter()
            .filter_map(|p| f(p).map(|y| (p.token_index as f64, y)))
            .collect(),
    };
    let margins = CurveChart {
        title: "winner's margin over the runner-up".into(),
        x_label: "draft position (flat index)".into(),
        y_label: "margin in ulps (0 drawn at 0.5)".into(),
        y_floor: 0.5,
        marker: None,
        series: vec![
            series("f32", [192, 57, 43], &|p| {
                p.margin_ulps_f32.map(|m| m as f64)
            }),
            series("f64", [41, 128, 185], &|p| {
                p.margin_ulps_f64.map(|m| m as f64)
            }),
        ],
    };
    let dead = CurveChart {
        title: "dead-zone mass".into(),
        x_label: "draft position (flat index)".into(),
        y_label: "share of residual weight that can never win".into(),
        y_floor: 1e-12,
        marker: None,
        series: vec![series("dead mass", [39, 174, 96], &|p| {
            p.dead_zone
                .as_ref()
                .and_then(|d| d.get("mass"))
                .and_then(Value::as_f64)
                .map(|m| m.max(1e-12))
        })],
    };
    let mut written = Vec::new();
    let empty = [
        "no position has a finite margin: every race overflowed, or the dump has no race",
        "no position has a dead zone to show: the dump has no race",
    ];
    for ((file, chart), reason) in [("margins.svg", margins), ("dead_zone.svg", dead)]
        .into_iter()
        .zip(empty)
    {
        let svg = if chart.series.iter().all(|s| s.points.is_empty()) {
            exporace_viz::note_svg(&chart.title, reason, 800, 420)?
        } else {
            curves_svg(&chart, 800, 420)?
        };
        let path = dir.join(file);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn table(positions: &[PositionReport], rows: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>7} {:>4} {:>6} {:>7} {:>7} {:>4} {:>14} {:>14} {:>5} {:>5} {:>6} {:>10}",
        "request",
        "pos",
        "draft",
        "f32",
        "f64",
        "flip",
        "margin f32",
        "margin f64",
        "ovf",
        "ovf64",
        "dead",
        "dead mass"
    );
    let opt = |x: Option<usize>| x.map_or("-".to_string(), |v| v.to_string());
    let optu = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
    let notable = |p: &&PositionReport| {
        p.flipped || !p.overflow_f32.is_empty() || !p.overflow_f64.is_empty() || p.error.is_some()
    };
    let mut shown: Vec<&PositionReport> = positions.iter().filter(notable).take(rows).collect();
    let rest = rows.saturating_sub(shown.len());
    shown.extend(positions.iter().filter(|p| !notable(p)).take(rest));
    shown.sort_by_key(|p| p.token_index);
    for p in &shown {
        let (dead, mass) = p.dead_zone.as_ref().map_or(("-".into(), "-".into()), |d| {
            (
                d.get("count").map_or("-".into(), |c| c.to_string()),
                d.get("mass")
                    .and_then(Value::as_f64)
                    .map_or("-".into(), |m| format!("{m:.3e}")),
            )
        });
        let _ = writeln!(
            s,
            "{:>7} {:>4} {:>6} {:>7} {:>7} {:>4} {:>14} {:>14} {:>5} {:>5} {:>6} {:>10}{}",
            p.request,
            p.position,
            p.draft_token,
            opt(p.token_f32),
            opt(p.token_f64),
            if p.flipped { "FLIP" } else { "" },
            optu(p.margin_ulps_f32),
            optu(p.margin_ulps_f64),
            p.overflow_f32.len(),
            p.overflow_f64.len(),
            dead,
            mass,
            p.error
                .as_ref()
                .map_or(String::new(), |e| format!("  error: {e}")),
        );
    }
    if shown.len() < positions.len() {
        let _ = writeln!(
            s,
            "({} more positions in the JSON report)",
            positions.len() - shown.len()
        );
    }
    s
}

/// Runs the audit and returns the text for the terminal.
pub fn run(args: &AuditArgs) -> Result<String, String> {
    let (name, dump) = load(args).map_err(|e| e.to_string())?;
    let options = AuditOptions {
        precision: match args.precision {
            PrecisionArg::F32 => Precision::F32,
            PrecisionArg::F64 => Precision::F64,
        },
        nan_policy: args.nan_policy.into(),
        model: &args.model,
    };
    let audit = Audit::new(&dump, options)?;
    let batch = dump.batch();
    let (b, t, v) = (batch.num_requests(), batch.num_tokens(), dump.vocab_size);
    let bar = crate::progress::bar(
        t as u64,
        "{bar:40} {pos}/{len} positions {eta}",
        t.saturating_mul(v) >= PROGRESS_ABOVE,
    );
    let positions = audit.positions(audit.at(), &|| bar.inc(1))?;
    bar.finish_and_clear();
    let policy: NanPolicy = args.nan_policy.into();
    let charts = match &args.charts {
        Some(dir) => svg_charts(dir, &positions)?,
        None => Vec::new(),
    };
    let mut report = audit.report(&name, &positions);
    report["charts"] = json!(
        charts
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    );
    let summary = &report["summary"];
    let count = |key: &str| summary[key].as_u64().unwrap_or(0);
    let (flips, ovf32, ovf64, errors) = (
        count("flips"),
        count("overflow_entries_f32"),
        count("overflow_entries_f64"),
        count("errors"),
    );
    let dead_mean = summary["dead_zone_mass_mean"].as_f64().unwrap_or(0.0);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut out = format!(
        "audit of {name}: {b} requests, {t} draft positions, V = {v}; inv_q stored as {}, raced at {} and {}; NaN policy {}; dead zone under {}\n\n",
        dump.inv_q_dtype.name(),
        match args.precision {
            PrecisionArg::F32 => "f32 (engine)",
            PrecisionArg::F64 => "f64 (engine)",
        },
        match args.precision {
            PrecisionArg::F32 => "f64 (widened)",
            PrecisionArg::F64 => "f32 (cast)",
        },
        policy.name(),
        audit.model(),
    );
    out.push_str(&table(&positions, args.rows));
    let _ = write!(
        out,
        "\nflips: {flips} of {t} positions; overflow entries: {ovf32} at f32, {ovf64} at f64; NaN-policy errors: {errors}; mean dead-zone mass: {dead_mean:.3e}"
    );
    if let Some(rej) = report.get("rejection").filter(|r| !r.is_null()) {
        let _ = write!(
            out,
            "\nrejection output differs between f32 and f64: {}",
            rej["differs"]
        );
    }
    for c in &charts {
        let _ = write!(out, "\nchart: {}", c.display());
    }
    if let Some(dir) = &args.fixture {
        let (fixture, source) = match args.fixture_request {
            Some(r) => (
                exporace_io::fixture::request(&dump, r).map_err(|e| e.to_string())?,
                format!("exporace audit of {name}, request {r}"),
            ),
            None => (dump.clone(), format!("exporace audit of {name}")),
        };
        exporace_io::fixture::write_fixture(dir, &source, &fixture).map_err(|e| e.to_string())?;
        let _ = write!(
            out,
            "\nfixture: {}",
            dir.join(exporace_io::fixture::MANIFEST).display()
        );
    }
    Ok(out)
}
