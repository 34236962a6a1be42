//! Monte Carlo experiments (`exporace_study::experiment`) against the exact
//! expectation, reporting their progress to a JavaScript callback after each
//! chunk of trials. A page runs them in a worker and cancels one by ending
//! the worker; a callback that throws stops the run.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use exporace::NanPolicy;
use exporace_study::experiment::{self, Control, Coupling, Report, Sampler, Setup};
use exporace_study::models::{ModelVisitor, NoiseModel};
use exporace_study::win_probability::ExactOptions;
use js_sys::Function;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{JsError, JsResult};
use crate::exact::catalogue_entry;

thread_local! {
    /// The progress callback of the running experiment on this thread.
    static PROGRESS: Cell<Option<Function>> = const { Cell::new(None) };
    /// What the progress callback threw, if it threw: the run stops.
    static THROWN: Cell<Option<String>> = const { Cell::new(None) };
}

/// The most target tokens an experiment takes: as many as a scenario object
/// may hold values ([`args::MAX_VALUES`]). Each trial counts into a vector of
/// one `u64` per token, so a longer target costs memory that grows with the
/// trials' chunks, refused from its length before it is copied.
pub const MAX_TOKENS: usize = args::MAX_VALUES as usize;

/// The fields of `runExperiment`'s options.
const OPTION_FIELDS: [&str; 4] = ["sampler", "trials", "seed", "nanPolicy"];

/// The options of `runExperiment`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    sampler: String,
    trials: f64,
    #[serde(default)]
    seed: f64,
    #[serde(default)]
    nan_policy: NanPolicy,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CategoryJs {
    first: usize,
    tokens: usize,
    expected: f64,
    /// `expected` times the trials: the count the histogram's tick marks.
    expected_count: f64,
    observed: f64,
    z: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportJs {
    counts: Vec<f64>,
    expected: Vec<f64>,
    categories: Vec<CategoryJs>,
    trials: f64,
    chi_square: f64,
    df: usize,
    p_value: f64,
    tv_distance: f64,
    max_abs_z: f64,
    impossible_seen: bool,
    tv_to_target: f64,
}

impl From<Report> for ReportJs {
    fn from(r: Report) -> Self {
        let f = r.fit;
        ReportJs {
            counts: r.counts.iter().map(|&c| c as f64).collect(),
            expected: r.expected,
            categories: f
                .categories
                .iter()
                .map(|c| CategoryJs {
                    first: c.first,
                    tokens: c.tokens,
                    expected: c.expected,
                    expected_count: c.expected * f.trials as f64,
                    observed: c.observed as f64,
                    z: c.z,
                })
                .collect(),
            trials: f.trials as f64,
            chi_square: f.chi_square,
            df: f.df,
            p_value: f.p_value,
            tv_distance: f.tv_distance,
            max_abs_z: f.max_abs_z,
            impossible_seen: f.impossible_seen,
            tv_to_target: r.tv_to_target,
        }
    }
}

struct Run<'a>(Setup<'a>);

impl ModelVisitor for Run<'_> {
    type Output = exporace::Result<Report>;
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output {
        let cancel = AtomicBool::new(false);
        let progress = |fraction: f64| {
            // The callback is cloned out of the cell before it is called, so
            // nothing is borrowed while JavaScript runs.
            let callback = PROGRESS.take();
            PROGRESS.set(callback.clone());
            if let Some(f) = callback
                && let Err(e) = f.call1(&JsValue::NULL, &JsValue::from_f64(fraction))
            {
                // A throwing callback stops the run: no further chunk starts,
                // and the call throws what the callback threw.
                PROGRESS.set(None);
                THROWN.set(Some(args::thrown_message(&e)));
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let control = Control {
            progress: Some(&progress),
            cancel: Some(&cancel),
        };
        experiment::run(model, &self.0, &ExactOptions::default(), &control)
    }
}

/// Runs a Monte Carlo experiment of `options.trials` trials under the
/// catalogue model `model` and measures the histogram against the exact
/// expectation. `options.sampler`: `"race"` (weights `target`),
/// `"recovered"` (the residual of `target` and `draft`), `"rejection"` (a
/// rejection step with a draft drawn on its own noise) or
/// `"rejection_shared"` (the draft drawn on the recovery race's noise, the
/// bias of vLLM #54282). `onProgress(fraction)` is called after each chunk.
#[wasm_bindgen(js_name = runExperiment)]
pub fn run_experiment(
    model: JsValue,
    target: JsValue,
    draft: JsValue,
    options: JsValue,
    on_progress: JsValue,
) -> JsResult<JsValue> {
    let entry = catalogue_entry(&args::string_arg(&model, "model")?)?;
    let on_progress = match on_progress.dyn_into::<Function>() {
        Ok(f) => Some(f),
        Err(v) if v.is_undefined() || v.is_null() => None,
        Err(v) => {
            return Err(JsError::new(&format!(
                "onProgress must be a function, got {}",
                args::describe(&v)
            )));
        }
    };
    let o: Options = args::options_object(&options, "options", &OPTION_FIELDS)?;
    let sampler = match o.sampler.as_str() {
        "race" => Sampler::Race,
        "recovered" => Sampler::Recovered,
        "rejection" => Sampler::Rejection(Coupling::Salted),
        "rejection_shared" => Sampler::Rejection(Coupling::Shared),
        other => {
            return Err(JsError::new(&format!(
                "options.sampler must be \"race\", \"recovered\", \"rejection\" or \"rejection_shared\", got \"{other}\""
            )));
        }
    };
    let whole = |v: f64, what: &str| {
        if v >= 0.0 && v.fract() == 0.0 && v <= 2f64.powi(53) {
            Ok(v as u64)
        } else {
            Err(JsError::new(&format!(
                "options.{what} must be a whole number in [0, 2^53], got {v}"
            )))
        }
    };
    let trials = whole(o.trials, "trials")?;
    if trials > experiment::MAX_TRIALS {
        return Err(JsError::coded(
            "TOO_LARGE",
            &format!(
                "options.trials is {trials}, over the limit of {}",
                experiment::MAX_TRIALS
            ),
        ));
    }
    let seed = whole(o.seed, "seed")?;
    let target = args::array_at_most::<f32>(&target, "target", MAX_TOKENS)?;
    let draft = if draft.is_undefined() || draft.is_null() {
        None
    } else {
        Some(args::array_at_most::<f32>(&draft, "draft", MAX_TOKENS)?)
    };
    let setup = Setup {
        target: &target,
        draft: draft.as_deref(),
        sampler,
        trials,
        seed,
        policy: o.nan_policy,
    };
    PROGRESS.set(on_progress);
    THROWN.set(None);
    let report = entry.visit(None, Run(setup));
    PROGRESS.set(None);
    if let Some(thrown) = THROWN.take() {
        return Err(JsError::coded(
            "THREW",
            &format!("onProgress threw: {thrown}; the experiment stopped"),
        ));
    }
    let report = ReportJs::from(report??);
    serde_wasm_bindgen::to_value(&report)
        .map_err(|e| JsError::new(&format!("converting the result: {}", args::message(e))))
}
