//! The audit of an engine's dump in vLLM's layout: every draft position
//! raced at f32 and f64 on the same noise, with flips, overflows and dead
//! zones, and the rejection step's output at both precisions.
//!
//! [`Audit::new`] prepares the noise; [`Audit::positions`] audits any slice
//! of the positions (in parallel, so a caller can show progress and stop
//! between slices); [`Audit::report`] puts the findings together as JSON.

use std::borrow::Cow;

use exporace::{Bonus, Form, NanPolicy, NoiseFloat, Precision, RejectionInputs, rejection_sample};
use exporace_study::forensics::{DeadZone, compare_on_reference, dead_zone, overflow_entries};
use exporace_study::models::{CATALOGUE, CatalogueEntry, ModelVisitor, NoiseModel};
use serde::Serialize;
use serde_json::{Value, json};

use crate::Dump;

/// Differing tokens listed per position.
const DIFFERING_LISTED: usize = 8;

/// What to audit a dump under.
///
/// No example: a plain record; [`Audit`] shows one.
#[derive(Clone, Copy, Debug)]
pub struct AuditOptions<'a> {
    /// The engine's noise precision; the other is derived from the same
    /// values (an f64 `inv_q` cast to f32, or an f32 one widened).
    pub precision: Precision,
    /// What a NaN score does.
    pub nan_policy: NanPolicy,
    /// The catalogue model whose dead zone is reported.
    pub model: &'a str,
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

/// Whether every value is its own cast to f32 and back, bit for bit.
fn f32_exact(values: &[f64]) -> bool {
    // In blocks without an early exit, so that the check runs in lanes.
    values.chunks(256).all(|c| {
        c.iter().fold(true, |ok, &x| {
            ok & ((x as f32 as f64).to_bits() == x.to_bits())
        })
    })
}

/// One draft position's findings.
///
/// No example: a plain record; [`Audit`] shows one.
#[derive(Clone, Debug, Serialize)]
pub struct PositionReport {
    /// The request (index into `cu_num_draft_tokens`).
    pub request: usize,
    /// The draft position within the request.
    pub position: usize,
    /// The position in the flattened `[T]` layout.
    pub token_index: usize,
    /// The draft token id there.
    pub draft_token: i32,
    /// The token the engine's precision picks.
    pub chosen: Option<usize>,
    /// The winner at f32 (the f64 noise cast).
    pub token_f32: Option<usize>,
    /// The winner at f64.
    pub token_f64: Option<usize>,
    /// Whether the two winners differ.
    pub flipped: bool,
    /// The winner in exact arithmetic on the same values.
    pub exact_winner: Option<usize>,
    /// The f32 winner's lead in ulps.
    pub margin_ulps_f32: Option<u64>,
    /// The f64 winner's lead in ulps.
    pub margin_ulps_f64: Option<u64>,
    /// Tokens whose standing differs between the precisions (the first few).
    pub differing: Vec<Value>,
    /// Entries with a zero `q`, an infinite or a NaN score at f32.
    pub overflow_f32: Vec<Value>,
    /// The same at f64.
    pub overflow_f64: Vec<Value>,
    /// The model's dead zone for this position's residual.
    pub dead_zone: Option<Value>,
    /// The race's error, when the NaN policy refused it.
    pub error: Option<String>,
}

/// The overflow entries of a position's race, its inputs checked with the
/// dump's (weights from valid probabilities, noise never negative).
fn overflow_list<T: NoiseFloat>(w: &[f32], noise: &[T]) -> Vec<Value> {
    overflow_entries(Form::Mul, w, noise)
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
}

/// The residual weights of draft position `t` into `w`, as
/// [`exporace::SpecBatch::residual`] gives them, a row at a time.
fn residual_row(dump: &Dump, t: usize, w: &mut Vec<f32>) {
    let v = dump.vocab_size;
    let row = &dump.target_probs[t * v..(t + 1) * v];
    w.clear();
    match &dump.draft_probs {
        Some(d) => w.extend(row.iter().zip(&d[t * v..(t + 1) * v]).map(|(&p, &d)| {
            let r = p - d;
            if r > 0.0 { r } else { 0.0 }
        })),
        None => {
            w.extend_from_slice(row);
            // The placeholder (-1) zeroes nothing.
            if let Some(x) = usize::try_from(dump.draft_token_ids[t])
                .ok()
                .and_then(|i| w.get_mut(i))
            {
                *x = 0.0;
            }
        }
    }
}

fn audit_position(
    dump: &Dump,
    (noise64, noise32): (&[f64], &[f32]),
    (request, position, t): (usize, usize, usize),
    options: &AuditOptions,
    (w, dead): (&mut Vec<f32>, impl Fn(&[f32]) -> exporace::Result<DeadZone>),
) -> PositionReport {
    let v = dump.vocab_size;
    residual_row(dump, t, w);
    let row64 = &noise64[request * v..(request + 1) * v];
    let row32 = &noise32[request * v..(request + 1) * v];
    let policy = options.nan_policy;
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
        overflow_f32: Vec::new(),
        overflow_f64: Vec::new(),
        dead_zone: None,
        error: None,
    };
    // Every score is finite when both winners are, unless a NaN score can
    // lose (an infinite one always wins; a NaN one wins or is refused
    // under the other policies): then no entry overflowed.
    let mut finite = false;
    match compare_on_reference(Form::Mul, w, row64, row32, policy) {
        Ok(r) => {
            finite = policy != NanPolicy::NanNeverWins
                && r.a.winner.score.is_finite()
                && r.b.winner.score.is_finite();
            p.token_f64 = Some(r.a.winner.token);
            p.token_f32 = Some(r.b.winner.token);
            p.chosen = Some(match options.precision {
                Precision::F32 => r.b.winner.token,
                Precision::F64 => r.a.winner.token,
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
    if !finite {
        p.overflow_f32 = overflow_list(w, row32);
        p.overflow_f64 = overflow_list(w, row64);
    }
    p.dead_zone = match dead(w) {
        Ok(z) => Some(json!({
            "count": z.tokens.len(), "mass": num(z.mass), "threshold": num(z.threshold),
            "e_min": num(z.e_min), "e_max": num(z.e_max),
        })),
        Err(e) => Some(json!({ "error": e.to_string() })),
    };
    p
}

fn rejection_rows(
    dump: &Dump,
    (noise64, noise32): (&[f64], &[f32]),
    policy: NanPolicy,
) -> Option<Value> {
    let (uniform, bonus) = (dump.uniform.as_ref()?, dump.bonus_token_ids.as_ref()?);
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
    let a = run(dump, uniform, bonus, noise32, policy);
    let b = run(dump, uniform, bonus, noise64, policy);
    Some(json!({ "output_f32": a, "output_f64": b, "differs": a != b }))
}

/// Every draft position audited under one model, built once (its tables
/// can take milliseconds to build); positions run in parallel and come back
/// in the order asked.
struct Positions<'a, F> {
    audit: &'a Audit<'a>,
    at: &'a [(usize, usize, usize)],
    tick: &'a F,
}

impl<F: Fn() + Sync> ModelVisitor for Positions<'_, F> {
    type Output = Vec<PositionReport>;
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output {
        use rayon::prelude::*;
        let a = self.audit;
        self.at
            .par_iter()
            // A row of weights per worker, reused from position to position.
            .map_init(Vec::new, |w, &at| {
                let dead = |w: &[f32]| dead_zone(model, w);
                let noise = (&a.noise64[..], &a.noise32[..]);
                let report = audit_position(a.dump, noise, at, &a.options, (w, dead));
                (self.tick)();
                report
            })
            .collect()
    }
}

/// A dump ready to audit: its noise at both precisions, and its positions.
///
/// ```
/// use exporace::{NanPolicy, Precision};
/// use exporace_io::audit::{Audit, AuditOptions};
/// use exporace_io::Dump;
/// let dump = Dump {
///     vocab_size: 3,
///     cu_num_draft_tokens: vec![1],
///     draft_token_ids: vec![2],
///     target_probs: vec![0.2, 0.3, 0.5],
///     draft_probs: None,
///     inv_q: vec![1.2, 1.0, 9.0],
///     inv_q_dtype: exporace_io::DType::F64,
///     uniform: None,
///     bonus_token_ids: None,
/// };
/// let options = AuditOptions { precision: Precision::F64, nan_policy: NanPolicy::Reject, model: "ideal" };
/// let audit = Audit::new(&dump, options)?;
/// let positions = audit.positions(audit.at(), &|| ())?;
/// assert_eq!(positions[0].token_f64, Some(1));
/// let report = audit.report("example", &positions);
/// assert_eq!(report["summary"]["flips"], 0);
/// # Ok::<(), String>(())
/// ```
pub struct Audit<'a> {
    dump: &'a Dump,
    options: AuditOptions<'a>,
    entry: &'static CatalogueEntry,
    noise64: Cow<'a, [f64]>,
    noise32: Vec<f32>,
    at: Vec<(usize, usize, usize)>,
}

impl<'a> Audit<'a> {
    /// Checks the model and the dump, and prepares the noise: the engine's
    /// precision's values exactly, and the same values cast to f32 (the
    /// silent cast of vLLM #54843).
    ///
    /// No example: [`Audit`] shows it.
    pub fn new(dump: &'a Dump, options: AuditOptions<'a>) -> Result<Self, String> {
        let entry = CatalogueEntry::find(options.model).ok_or_else(|| {
            let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
            format!(
                "unknown model {:?}; the catalogue has {}",
                options.model,
                names.join(", ")
            )
        })?;
        dump.validate().map_err(|e| e.to_string())?;
        // At f32 the values are cast; values that are f32 already (an
        // `inv_q` stored as f32) are borrowed as they are.
        let noise64: Cow<'a, [f64]> = match options.precision {
            Precision::F32 if !f32_exact(&dump.inv_q) => {
                Cow::Owned(dump.inv_q.iter().map(|&x| x as f32 as f64).collect())
            }
            _ => Cow::Borrowed(&dump.inv_q),
        };
        let noise32: Vec<f32> = noise64.iter().map(|&x| x as f32).collect();
        let batch = dump.batch();
        let at = (0..batch.num_requests())
            .flat_map(|r| {
                batch
                    .request_tokens(r)
                    .enumerate()
                    .map(move |(pos, tok)| (r, pos, tok))
            })
            .collect();
        Ok(Audit {
            dump,
            options,
            entry,
            noise64,
            noise32,
            at,
        })
    }

    /// Every draft position as (request, position in the request, token
    /// index), in token order.
    ///
    /// No example: [`Audit`] shows it.
    pub fn at(&self) -> &[(usize, usize, usize)] {
        &self.at
    }

    /// The findings at positions `at`, in that order, calling `tick` after
    /// each.
    ///
    /// No example: [`Audit`] shows it.
    pub fn positions(
        &self,
        at: &[(usize, usize, usize)],
        tick: &(impl Fn() + Sync),
    ) -> Result<Vec<PositionReport>, String> {
        self.entry
            .visit(
                None,
                Positions {
                    audit: self,
                    at,
                    tick,
                },
            )
            .map_err(|e| e.to_string())
    }

    /// The model the dead zones are under.
    ///
    /// No example: [`Audit`] shows it.
    pub fn model(&self) -> &'static str {
        self.entry.name
    }

    /// The whole report as JSON: the input's name and sizes, the options, a
    /// summary (flips, overflow entries, errors, mean dead-zone mass), every
    /// position and the rejection step at both precisions.
    ///
    /// No example: [`Audit`] shows it.
    pub fn report(&self, input: &str, positions: &[PositionReport]) -> Value {
        let dump = self.dump;
        let batch = dump.batch();
        let policy = self.options.nan_policy;
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
        let summary = json!({
            "positions": batch.num_tokens(), "flips": flips, "overflow_entries_f32": ovf32,
            "overflow_entries_f64": ovf64, "errors": errors, "dead_zone_mass_mean": num(dead_mean),
        });
        json!({
            "input": input, "vocab_size": dump.vocab_size, "num_requests": batch.num_requests(),
            "num_tokens": batch.num_tokens(), "precision": self.options.precision.to_string(),
            "inv_q_dtype": dump.inv_q_dtype.name(), "nan_policy": policy.name(),
            "model": self.entry.name, "summary": summary, "positions": positions,
            "rejection": rejection_rows(dump, (&self.noise64, &self.noise32), policy),
        })
    }
}
