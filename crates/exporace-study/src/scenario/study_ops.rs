//! The study operations of the scenario format: `exact` (win probabilities
//! computed under a model's noise law) and `experiment` (Monte Carlo against
//! them).

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::model_spec::ModelSpec;
use super::number::Num;
use crate::models::{ModelFacts, ModelVisitor, NoiseModel};
use crate::win_probability::{ExactOptions, Group, WinProbabilities, WinProbabilityVisitor};
use exporace::Result;

fn options(tolerance: Option<f64>, max_nodes: Option<usize>) -> ExactOptions {
    let d = ExactOptions::default();
    ExactOptions {
        tolerance: tolerance.unwrap_or(d.tolerance),
        max_nodes: max_nodes.unwrap_or(d.max_nodes),
    }
}

/// An `exact` body: weights as (value, multiplicity) groups, so 262144
/// identical tail tokens cost the same as one.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactBody {
    /// The noise model.
    pub model: ModelSpec,
    /// `[{"weight": 1.0, "count": 1}, {"weight": 1.25e-9, "count": 262144}]`.
    pub groups: Vec<Group>,
    /// Target width of each probability's bracket (default 1e-12).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Budget of evaluation points (default 4096).
    #[serde(default)]
    pub max_nodes: Option<usize>,
}

/// An `exact` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExactOut {
    /// The model's facts.
    pub model: ModelFacts,
    /// The probabilities, with lower and upper bounds per group.
    pub probabilities: WinProbabilities,
}

struct ExactVisit<'a>(&'a ExactBody);

impl ModelVisitor for ExactVisit<'_> {
    type Output = Result<ExactOut>;
    fn visit<M: NoiseModel>(self, m: &M) -> Result<ExactOut> {
        let b = self.0;
        let probabilities = WinProbabilityVisitor {
            groups: &b.groups,
            options: options(b.tolerance, b.max_nodes),
        }
        .visit(m)?;
        Ok(ExactOut {
            model: m.facts(),
            probabilities,
        })
    }
}

/// Runs an `exact` body.
pub fn exact(b: &ExactBody) -> Result<ExactOut> {
    b.model.visit(ExactVisit(b))?
}

/// What an experiment's trials sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplerSpec {
    /// One race over `target`.
    Race,
    /// vLLM's recovered token from `max(target - draft, 0)`.
    Recovered,
    /// A rejection step, the draft drawn from independent (salted) noise.
    RejectionSalted,
    /// A rejection step, the draft drawn from the recovery race's own noise
    /// (the bias of vLLM #54282).
    RejectionShared,
}

/// The most trials one `experiment` scenario may run.
pub const MAX_TRIALS: u64 = 100_000_000;

/// The most token draws (trials times target tokens) one `experiment`
/// scenario may run. A scenario reports no progress and cannot be stopped;
/// longer runs belong to the CLI's studies or the npm package's
/// `runExperimentAsync`, which report progress and stop on request.
pub const MAX_TRIAL_TOKENS: u64 = 1 << 30;

/// An `experiment` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentBody {
    /// The noise model.
    pub model: ModelSpec,
    /// What each trial samples.
    pub sampler: SamplerSpec,
    /// Target weights.
    pub target: Vec<Num>,
    /// Draft probabilities (recovered and rejection samplers).
    #[serde(default)]
    pub draft: Option<Vec<Num>>,
    /// Number of trials (at most [`MAX_TRIALS`]).
    pub trials: u64,
}

/// An `experiment` answer.
#[cfg(feature = "std")]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExperimentOut {
    /// The model's facts.
    pub model: ModelFacts,
    /// Counts, exact expectation, chi-square, z and p-values.
    pub report: crate::experiment::Report,
}

#[cfg(feature = "std")]
struct ExperimentVisit<'a> {
    setup: crate::experiment::Setup<'a>,
}

#[cfg(feature = "std")]
impl ModelVisitor for ExperimentVisit<'_> {
    type Output = Result<ExperimentOut>;
    fn visit<M: NoiseModel>(self, m: &M) -> Result<ExperimentOut> {
        let report = crate::experiment::run(
            m,
            &self.setup,
            &ExactOptions::default(),
            &crate::experiment::Control::default(),
        )?;
        Ok(ExperimentOut {
            model: m.facts(),
            report,
        })
    }
}

/// Runs an `experiment` body with `seed` and the scenario's NaN policy.
#[cfg(feature = "std")]
pub fn experiment(
    b: &ExperimentBody,
    seed: u64,
    policy: exporace::NanPolicy,
) -> Result<ExperimentOut> {
    use crate::experiment::{Coupling, Sampler, Setup};
    if b.trials > MAX_TRIALS {
        return Err(exporace::Error::TooLarge {
            what: "experiment trials",
            size: b.trials,
            limit: MAX_TRIALS,
        });
    }
    let target: Vec<f32> = super::number::floats("target", &b.target)?;
    let draws = b.trials.saturating_mul(target.len() as u64);
    if draws > MAX_TRIAL_TOKENS {
        return Err(exporace::Error::TooLarge {
            what: "experiment token draws (trials x target tokens)",
            size: draws,
            limit: MAX_TRIAL_TOKENS,
        });
    }
    let draft: Option<Vec<f32>> = b
        .draft
        .as_ref()
        .map(|d| super::number::floats("draft", d))
        .transpose()?;
    let sampler = match b.sampler {
        SamplerSpec::Race => Sampler::Race,
        SamplerSpec::Recovered => Sampler::Recovered,
        SamplerSpec::RejectionSalted => Sampler::Rejection(Coupling::Salted),
        SamplerSpec::RejectionShared => Sampler::Rejection(Coupling::Shared),
    };
    let setup = Setup {
        target: &target,
        draft: draft.as_deref(),
        sampler,
        trials: b.trials,
        seed,
        policy,
    };
    b.model.visit(ExperimentVisit { setup })?
}
