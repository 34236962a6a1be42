//! `exporace audit`: an engine's dump in vLLM's layout, raced at f32 and f64
//! on the same noise, with flips, overflows and dead zones per position.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use exporace::{Bonus, Form, NanPolicy, NoiseFloat, RejectionInputs, rejection_sample};
use exporace_io::{Dump, IoError, Tensor, read_npy_file, read_safetensors_file};
use exporace_study::forensics::{DeadZone, compare, dead_zone, overflow_anatomy};
use exporace_study::models::{CATALOGUE, CatalogueEntry, ModelVisitor, NoiseModel};
use serde::Serialize;
use serde_json::{Value, json};

/// Positions times vocabulary above which the progress bar is shown.
const PROGRESS_ABOVE: usize = 1 << 22;

/// Differing tokens listed per position.
const DIFFERING_LISTED: usize = 8;

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
        return Ok((name.clone(), Dump::from_tensors(&name, &tensors)?));
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
    Ok((name.clone(), Dump::from_tensors(&name, &tensors)?))
}

/// A float as JSON: a number, or `"inf"`, `"-inf"`, `"nan"`.
fn num(x: f64) -> Value {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

/// Every draft position audited under one model, built once (its tables
/// can take milliseconds to build); positions run in parallel and come back
/// in token order.
struct AllPositions<'a> {
    dump: &'a Dump,
    noise64: &'a [f64],
    noise32: &'a [f32],
    positions: &'a [(usize, usize, usize)],
    args: &'a AuditArgs,
    bar: &'a indicatif::ProgressBar,
}

impl ModelVisitor for AllPositions<'_> {
    type Output = Vec<PositionReport>;
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output {
        use rayon::prelude::*;
        self.positions
            .par_iter()
            .map(|&at| {
                let report = audit_position(
                    self.dump,
                    (self.noise64, self.noise32),
                    at,
                    self.args,
                    |w| dead_zone(model, w),
                );
                self.bar.inc(1);
                report
            })
            .collect()
    }
}

/// One draft position's findings.
#[derive(Clone, Debug, Serialize)]
struct PositionReport {
    request: usize,
    position: usize,
    token_index: usize,
    draft_token: i32,
    chosen: Option<usize>,
    token_f32: Option<usize>,
    token_f64: Option<usize>,
    flipped: bool,
    exact_winner: Option<usize>,
    margin_ulps_f32: Option<u64>,
    margin_ulps_f64: Option<u64>,
    differing: Vec<Value>,
    overflow_f32: Vec<Value>,
    overflow_f64: Vec<Value>,
    dead_zone: Option<Value>,
    error: Option<String>,
}

fn overflow_list<T: NoiseFloat>(w: &[f32], noise: &[T]) -> Vec<Value> {
    overflow_anatomy(Form::Mul, w, noise)
        .map(|r| {
            r.entries
                .iter()
                .map(|e| {
                    json!({
                        "token": e.token,
                        "weight": e.weight,
                        "inv_q": num(e.noise.to_f64()),
                        "score": if e.score_nan { json!("nan") } else if e.score_inf { json!("inf") } else { json!(null) },
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn audit_position(
    dump: &Dump,
    (noise64, noise32): (&[f64], &[f32]),
    (request, position, t): (usize, usize, usize),
    args: &AuditArgs,
    dead: impl Fn(&[f32]) -> exporace::Result<DeadZone>,
) -> PositionReport {
    let batch = dump.batch();
    let v = dump.vocab_size;
    let w: Vec<f32> = (0..v).map(|i| batch.residual(t, i)).collect();
    let row64 = &noise64[request * v..(request + 1) * v];
    let row32 = &noise32[request * v..(request + 1) * v];
    let mut p = PositionReport {
        request,
        position,
        token_index: t,
        draft_token: dump.draft_token_ids[t],
        chosen: None,
        token_f32: None,
        token_f64: None,
        flipped: false,
        exact_winner: None,
        margin_ulps_f32: None,
        margin_ulps_f64: None,
        differing: Vec::new(),
        overflow_f32: overflow_list(&w, row32),
        overflow_f64: overflow_list(&w, row64),
        dead_zone: None,
        error: None,
    };
    match compare(Form::Mul, &w, row64, row32, row64, args.nan_policy.into()) {
        Ok(r) => {
            p.token_f64 = Some(r.a.winner.token);
            p.token_f32 = Some(r.b.winner.token);
            p.chosen = Some(match args.precision {
                PrecisionArg::F32 => r.b.winner.token,
                PrecisionArg::F64 => r.a.winner.token,
            });
            p.flipped = r.flipped;
            p.exact_winner = Some(r.exact_winner);
            p.margin_ulps_f64 = r.a_margin_ulps;
            p.margin_ulps_f32 = r.b_margin_ulps;
            p.differing = r
                .differing
                .iter()
                .take(DIFFERING_LISTED)
                .map(|d| {
                    json!({"token": d.token, "beats_in_f64": d.beats_in_a,
                           "beats_in_f32": d.beats_in_b, "log_gap": num(d.log_gap)})
                })
                .collect();
        }
        Err(e) => p.error = Some(e.to_string()),
    }
    p.dead_zone = match dead(&w) {
        Ok(z) => Some(json!({
            "count": z.tokens.len(), "mass": num(z.mass), "threshold": num(z.threshold),
            "e_min": num(z.e_min), "e_max": num(z.e_max),
        })),
        Err(e) => Some(json!({ "error": e.to_string() })),
    };
    p
}

fn rejection_rows(dump: &Dump, noise64: &[f64], policy: NanPolicy) -> Option<Value> {
    let (uniform, bonus) = (dump.uniform.as_ref()?, dump.bonus_token_ids.as_ref()?);
    let noise32: Vec<f32> = noise64.iter().map(|&x| x as f32).collect();
    fn run<T: NoiseFloat>(
        dump: &Dump,
        uniform: &[f64],
        bonus: &[i32],
        inv_q: &[T],
        p: NanPolicy,
    ) -> Value {
        let inp = RejectionInputs {
            batch: dump.batch(),
            greedy: None,
            uniform,
            inv_q,
            bonus: Bonus::Given(bonus),
        };
        match rejection_sample(&inp, p) {
            Ok(out) => {
                let rows: Vec<&[i32]> = (0..dump.cu_num_draft_tokens.len())
                    .map(|r| out.row(r))
                    .collect();
                json!(rows)
            }
            Err(e) => json!({ "error": e.to_string() }),
        }
    }
    let a = run(dump, uniform, bonus, &noise32, policy);
    let b = run(dump, uniform, bonus, noise64, policy);
    Some(json!({ "output_f32": a, "output_f64": b, "differs": a != b }))
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
    let entry = CatalogueEntry::find(&args.model).ok_or_else(|| {
        let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
        format!(
            "unknown model {:?}; the catalogue has {}",
            args.model,
            names.join(", ")
        )
    })?;
    let (name, dump) = load(args).map_err(|e| e.to_string())?;
    dump.validate().map_err(|e| e.to_string())?;
    // The noise both pipelines see: the engine's precision's values, exactly.
    let noise64: Vec<f64> = match args.precision {
        PrecisionArg::F64 => dump.inv_q.clone(),
        PrecisionArg::F32 => dump.inv_q.iter().map(|&x| x as f32 as f64).collect(),
    };
    // The same values cast to f32 (the silent cast of vLLM #54843).
    let noise32: Vec<f32> = noise64.iter().map(|&x| x as f32).collect();
    let batch = dump.batch();
    let (b, t, v) = (batch.num_requests(), batch.num_tokens(), dump.vocab_size);
    let bar = crate::progress::bar(
        t as u64,
        "{bar:40} {pos}/{len} positions {eta}",
        t.saturating_mul(v) >= PROGRESS_ABOVE,
    );
    let at: Vec<(usize, usize, usize)> = (0..b)
        .flat_map(|r| {
            batch
                .request_tokens(r)
                .enumerate()
                .map(move |(pos, tok)| (r, pos, tok))
        })
        .collect();
    let all = AllPositions {
        dump: &dump,
        noise64: &noise64,
        noise32: &noise32,
        positions: &at,
        args,
        bar: &bar,
    };
    let positions = entry.visit(None, all).map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let policy: NanPolicy = args.nan_policy.into();
    let flips = positions.iter().filter(|p| p.flipped).count();
    let ovf32: usize = positions.iter().map(|p| p.overflow_f32.len()).sum();
    let ovf64: usize = positions.iter().map(|p| p.overflow_f64.len()).sum();
    let errors = positions.iter().filter(|p| p.error.is_some()).count();
    let dead: Vec<f64> = positions
        .iter()
        .filter_map(|p| p.dead_zone.as_ref()?.get("mass")?.as_f64())
        .collect();
    let dead_mean = if dead.is_empty() {
        0.0
    } else {
        dead.iter().sum::<f64>() / dead.len() as f64
    };
    let charts = match &args.charts {
        Some(dir) => svg_charts(dir, &positions)?,
        None => Vec::new(),
    };
    let summary = json!({
        "positions": t, "flips": flips, "overflow_entries_f32": ovf32, "overflow_entries_f64": ovf64,
        "errors": errors, "dead_zone_mass_mean": num(dead_mean),
    });
    let report = json!({
        "input": name, "vocab_size": v, "num_requests": b, "num_tokens": t,
        "precision": args.precision, "inv_q_dtype": dump.inv_q_dtype.name(),
        "nan_policy": policy.name(), "model": entry.name,
        "summary": summary,
        "positions": positions,
        "rejection": rejection_rows(&dump, &noise64, policy),
        "charts": charts.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    });
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
        entry.name,
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
