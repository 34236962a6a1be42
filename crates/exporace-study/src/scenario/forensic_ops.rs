//! The forensic operations of the scenario format: `models`, `compare`,
//! `overflow` and `dead_zone` (`noise` is in `noise_op`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::model_spec::ModelSpec;
use super::number::{AnyFloat, Num, floats};
use crate::forensics::{self, DeadZone, FlipReport};
use crate::models::{CATALOGUE, ModelFacts, ModelVisitor, NoiseModel};
use crate::win_probability::Group;
use exporace::NanPolicy;
use exporace::{Contender, Form, RaceResult};
use exporace::{Error, Result};
use exporace::{NoiseFloat, Precision};

/// A race outcome at a precision chosen at run time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnyContender {
    /// Token id.
    pub token: usize,
    /// Score in its precision.
    pub score: AnyFloat,
    /// The score's IEEE bits.
    pub bits: String,
}

impl<T: NoiseFloat> From<Contender<T>> for AnyContender {
    fn from(c: Contender<T>) -> Self {
        let score = AnyFloat::of(c.score);
        AnyContender {
            token: c.token,
            bits: score.bits(),
            score,
        }
    }
}

/// One race at a precision chosen at run time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnyRace {
    /// Precision of the race.
    pub precision: Precision,
    /// The winner.
    pub winner: AnyContender,
    /// The runner-up.
    pub runner_up: Option<AnyContender>,
    /// Margin in ulps of the race's precision.
    pub margin_ulps: Option<u64>,
}

impl<T: NoiseFloat> From<RaceResult<T>> for AnyRace {
    fn from(r: RaceResult<T>) -> Self {
        AnyRace {
            precision: T::PRECISION,
            margin_ulps: r.margin_ulps(),
            winner: r.winner.into(),
            runner_up: r.runner_up.map(Into::into),
        }
    }
}

/// A token whose outcome differs between the two pipelines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DifferingOut {
    /// Token id.
    pub token: usize,
    /// It beats the exact winner in pipeline A.
    pub beats_in_a: bool,
    /// It beats the exact winner in pipeline B.
    pub beats_in_b: bool,
    /// How close it came to the exact winner, in nats.
    pub log_gap: f64,
}

/// A `compare` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareOut {
    /// Pipeline A's name (a model or `inline f64`).
    pub a_name: String,
    /// Pipeline B's name.
    pub b_name: String,
    /// Pipeline A's race.
    pub a: AnyRace,
    /// Pipeline B's race.
    pub b: AnyRace,
    /// Whether the argmax flipped.
    pub flipped: bool,
    /// The winner under exact arithmetic.
    pub exact_winner: usize,
    /// Tokens whose outcome differs, closest first.
    pub differing: Vec<DifferingOut>,
}

impl CompareOut {
    fn new<A: NoiseFloat, B: NoiseFloat>(
        a_name: String,
        b_name: String,
        r: FlipReport<A, B>,
    ) -> Self {
        CompareOut {
            a_name,
            b_name,
            a: r.a.into(),
            b: r.b.into(),
            flipped: r.flipped,
            exact_winner: r.exact_winner,
            differing: r
                .differing
                .iter()
                .map(|d| DifferingOut {
                    token: d.token,
                    beats_in_a: d.beats_in_a,
                    beats_in_b: d.beats_in_b,
                    log_gap: d.log_gap,
                })
                .collect(),
        }
    }
}

/// One overflow entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverflowEntryOut {
    /// Token id.
    pub token: usize,
    /// Weight.
    pub weight: f32,
    /// Noise value.
    pub noise: AnyFloat,
    /// `q = 0`.
    pub q_zero: bool,
    /// `inv_q = inf`.
    pub inv_q_inf: bool,
    /// Score `+inf`.
    pub score_inf: bool,
    /// Score NaN.
    pub score_nan: bool,
}

/// What one NaN policy picks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyPick {
    /// The policy.
    pub policy: NanPolicy,
    /// Its race, unless it refused.
    pub race: Option<AnyRace>,
    /// Its error, if it refused.
    pub error: Option<String>,
}

/// An `overflow` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverflowOut {
    /// Entries with `q = 0`, `inv_q = inf`, or an infinite or NaN score.
    pub entries: Vec<OverflowEntryOut>,
    /// Each policy's pick.
    pub picks: Vec<PolicyPick>,
}

/// The most dead tokens listed by id in a `dead_zone` answer.
pub const DEAD_TOKENS_LISTED: usize = 1000;

/// A `dead_zone` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeadZoneOut {
    /// The model's facts.
    pub model: ModelFacts,
    /// Smallest E (0 if possible).
    #[serde(serialize_with = "super::number::ser_float")]
    pub e_min: f64,
    /// Largest E (the string `"inf"` if E can be infinite).
    #[serde(serialize_with = "super::number::ser_float")]
    pub e_max: f64,
    /// Weights below this can never win.
    #[serde(serialize_with = "super::number::ser_float")]
    pub threshold: f64,
    /// How many tokens are dead.
    pub count: usize,
    /// Their share of the weight.
    pub mass: f64,
    /// The first dead token ids (at most [`DEAD_TOKENS_LISTED`]).
    pub tokens: Vec<usize>,
}

/// The answer of a forensic operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ForensicResult {
    /// `models`.
    Models {
        /// Every catalogue model's facts at its engine's precision.
        models: Vec<ModelFacts>,
    },
    /// `noise`.
    Noise(super::noise_op::NoiseOut),
    /// `compare`.
    Compare(CompareOut),
    /// `overflow`.
    Overflow(OverflowOut),
    /// `dead_zone`.
    DeadZone(DeadZoneOut),
    /// `exact`.
    Exact(super::study_ops::ExactOut),
    /// `experiment`.
    #[cfg(feature = "std")]
    Experiment(super::study_ops::ExperimentOut),
    /// `sample`.
    Sample(super::sample_op::SampleOut),
}

/// Every catalogue model's facts.
pub fn models() -> Result<ForensicResult> {
    let models = CATALOGUE
        .iter()
        .map(|e| e.facts(None))
        .collect::<Result<Vec<_>>>()?;
    Ok(ForensicResult::Models { models })
}

/// A `compare` body: two models on the same seed, or inline fp64 noise
/// against its fp32 cast.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareBody {
    /// The weights.
    pub weights: Vec<Num>,
    /// `mul` or `div` (inline noise only; models race in `mul`).
    #[serde(default)]
    pub form: Form,
    /// Two models to run on the same random bits.
    #[serde(default)]
    pub models: Option<[ModelSpec; 2]>,
    /// Inline fp64 noise, compared with its fp32 cast.
    #[serde(default)]
    pub noise: Option<Vec<Num>>,
    /// Noise row for models.
    #[serde(default)]
    pub row: u64,
}

/// The second visit of a comparison: model A, already chosen, as a trait
/// object, so `compare_models` is built once per pair of noise types, not
/// once per pair of catalogue models.
struct CompareB<'a, FA> {
    a: &'a dyn NoiseModel<Float = FA>,
    weights: &'a [f32],
    seed: u64,
    row: u64,
    policy: NanPolicy,
}

impl<FA: NoiseFloat> ModelVisitor for CompareB<'_, FA> {
    type Output = Result<CompareOut>;
    fn visit<MB: NoiseModel>(self, b: &MB) -> Result<CompareOut> {
        let b: &dyn NoiseModel<Float = MB::Float> = b;
        let r =
            forensics::compare_models(self.weights, self.a, b, self.seed, self.row, self.policy)?;
        let (fa, fb) = (self.a.facts(), b.facts());
        Ok(CompareOut::new(
            alloc::format!("{} at {}", fa.name, fa.precision),
            alloc::format!("{} at {}", fb.name, fb.precision),
            r,
        ))
    }
}

struct CompareA<'a> {
    b: &'a ModelSpec,
    weights: &'a [f32],
    seed: u64,
    row: u64,
    policy: NanPolicy,
}

impl ModelVisitor for CompareA<'_> {
    type Output = Result<CompareOut>;
    fn visit<MA: NoiseModel>(self, a: &MA) -> Result<CompareOut> {
        let a: &dyn NoiseModel<Float = MA::Float> = a;
        self.b.visit(CompareB {
            a,
            weights: self.weights,
            seed: self.seed,
            row: self.row,
            policy: self.policy,
        })?
    }
}

/// Two catalogue models on the same random bits (row `row` of `seed`), on
/// weights already read as f32: what a `compare` body with `models` gives.
///
/// ```
/// use exporace::NanPolicy;
/// use exporace_study::scenario::{ModelSpec, compare_of};
/// let (a, b) = (ModelSpec::Name("torch-cuda-f32".into()), ModelSpec::Name("u64-f64-classic".into()));
/// let out = compare_of(&a, &b, &[0.5, 0.25, 0.25], 7, 0, NanPolicy::FirstNanWins)?;
/// assert!(out.a_name.starts_with("torch-cuda-f32"));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn compare_of(
    a: &ModelSpec,
    b: &ModelSpec,
    weights: &[f32],
    seed: u64,
    row: u64,
    policy: NanPolicy,
) -> Result<CompareOut> {
    a.visit(CompareA {
        b,
        weights,
        seed,
        row,
        policy,
    })?
}

/// Runs a `compare` body; `seed` is resolved only when models need it.
pub fn compare(
    b: &CompareBody,
    policy: NanPolicy,
    seed: impl FnOnce() -> Result<u64>,
) -> Result<ForensicResult> {
    let weights: Vec<f32> = floats("weights", &b.weights)?;
    let out = match (&b.models, &b.noise) {
        (Some([a, bm]), None) => compare_of(a, bm, &weights, seed()?, b.row, policy)?,
        (None, Some(n)) => {
            let noise: Vec<f64> = floats(b.form.noise_name(), n)?;
            let r = forensics::compare_cast(b.form, &weights, &noise, policy)?;
            CompareOut::new(
                "inline noise at f64".into(),
                "inline noise cast to f32".into(),
                r,
            )
        }
        _ => {
            return Err(Error::Scenario(
                "compare: give exactly one of models (two names) and noise (inline fp64 values)"
                    .into(),
            ));
        }
    };
    Ok(ForensicResult::Compare(out))
}

/// An `overflow` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverflowBody {
    /// The weights.
    pub weights: Vec<Num>,
    /// `mul` (noise is `inv_q`) or `div` (noise is `q`).
    #[serde(default)]
    pub form: Form,
    /// The noise, in the scenario's precision.
    pub noise: Vec<Num>,
}

/// Runs an `overflow` body at precision `T`.
pub fn overflow<T: NoiseFloat>(b: &OverflowBody) -> Result<ForensicResult> {
    let weights: Vec<f32> = floats("weights", &b.weights)?;
    let noise: Vec<T> = floats(b.form.noise_name(), &b.noise)?;
    let rep = forensics::overflow_anatomy(b.form, &weights, &noise)?;
    Ok(ForensicResult::Overflow(OverflowOut {
        entries: rep
            .entries
            .iter()
            .map(|e| OverflowEntryOut {
                token: e.token,
                weight: e.weight,
                noise: AnyFloat::of(e.noise),
                q_zero: e.q_zero,
                inv_q_inf: e.inv_q_inf,
                score_inf: e.score_inf,
                score_nan: e.score_nan,
            })
            .collect(),
        picks: rep
            .picks
            .into_iter()
            .map(|(policy, r)| match r {
                Ok(race) => PolicyPick {
                    policy,
                    race: Some(race.into()),
                    error: None,
                },
                Err(e) => PolicyPick {
                    policy,
                    race: None,
                    error: Some(e.to_string()),
                },
            })
            .collect(),
    }))
}

/// The `dead_zone` answer for tokens given as groups of equal weight in
/// token order ([`forensics::dead_zone_groups`]): the same answer as
/// [`dead_zone_of`] on the tokens written out, computed once per group. The
/// listed ids are the first tokens of the dead groups.
///
/// ```
/// use exporace_study::scenario::{ModelSpec, dead_zone_groups_of};
/// use exporace_study::win_probability::Group;
/// let model = ModelSpec::Name("torch-cuda-f32".into());
/// let z = dead_zone_groups_of(&model, &[Group::new(1.0, 1), Group::new(1e-9, 3)])?;
/// assert_eq!((z.count, z.tokens), (3, vec![1, 2, 3]));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn dead_zone_groups_of(model: &ModelSpec, groups: &[Group]) -> Result<DeadZoneOut> {
    let (model, z) = model.visit(DeadGroupsVisit(groups))??;
    let mut tokens = Vec::new();
    let mut first = 0usize;
    let mut dead = z.groups.iter().peekable();
    for (i, g) in groups.iter().enumerate() {
        // The total was checked to fit a vocabulary.
        let n = g.count as usize;
        if dead.next_if_eq(&&i).is_some() {
            let listed = n.min(DEAD_TOKENS_LISTED - tokens.len());
            tokens.extend(first..first + listed);
        }
        if tokens.len() == DEAD_TOKENS_LISTED {
            break;
        }
        first += n;
    }
    Ok(DeadZoneOut {
        model,
        e_min: z.e_min,
        e_max: z.e_max,
        threshold: z.threshold,
        count: z.count as usize,
        mass: z.mass,
        tokens,
    })
}

struct DeadGroupsVisit<'a>(&'a [Group]);

impl ModelVisitor for DeadGroupsVisit<'_> {
    type Output = Result<(ModelFacts, forensics::DeadGroups)>;
    fn visit<M: NoiseModel>(self, m: &M) -> Self::Output {
        Ok((m.facts(), forensics::dead_zone_groups(m, self.0)?))
    }
}

/// A `dead_zone` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadZoneBody {
    /// The weights.
    pub weights: Vec<Num>,
    /// The model.
    pub model: ModelSpec,
}

struct DeadVisit<'a>(&'a [f32]);

impl ModelVisitor for DeadVisit<'_> {
    type Output = Result<(ModelFacts, DeadZone)>;
    fn visit<M: NoiseModel>(self, m: &M) -> Self::Output {
        Ok((m.facts(), forensics::dead_zone(m, self.0)?))
    }
}

/// Runs a `dead_zone` body.
pub fn dead_zone(b: &DeadZoneBody) -> Result<ForensicResult> {
    let weights: Vec<f32> = floats("weights", &b.weights)?;
    dead_zone_of(&b.model, &weights).map(ForensicResult::DeadZone)
}

/// The `dead_zone` answer for weights already in f32 (a typed array
/// needs no pass through scenario numbers).
///
/// ```
/// use exporace_study::scenario::{ModelSpec, dead_zone_of};
/// let model = ModelSpec::Name("torch-cuda-f32".into());
/// let z = dead_zone_of(&model, &[1.0, 1e-9, 0.5])?;
/// assert_eq!((z.count, z.tokens), (1, vec![1]));
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn dead_zone_of(model: &ModelSpec, weights: &[f32]) -> Result<DeadZoneOut> {
    let (model, z) = model.visit(DeadVisit(weights))??;
    Ok(DeadZoneOut {
        model,
        e_min: z.e_min,
        e_max: z.e_max,
        threshold: z.threshold,
        count: z.tokens.len(),
        mass: z.mass,
        tokens: z.tokens.into_iter().take(DEAD_TOKENS_LISTED).collect(),
    })
}
