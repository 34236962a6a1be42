//! The result JSON: every race reports its winner, runner-up, scores (as numbers
//! and as IEEE bits) and the margin between them in ulps.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::forensic_ops::ForensicResult;
use super::input::Op;
use super::number::{bits_hex, ser_float};
use exporace::NanPolicy;
use exporace::{Contender, RaceResult};
use exporace::{NoiseFloat, Precision};
use exporace::{RejectionOutput, RequestTrace};

/// A token and its score.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct ContenderOut<T: NoiseFloat> {
    /// Token id.
    pub token: usize,
    /// Score, in the noise type.
    #[serde(serialize_with = "ser_float")]
    pub score: T,
    /// The score's IEEE bits.
    pub bits: String,
}

impl<T: NoiseFloat> From<Contender<T>> for ContenderOut<T> {
    fn from(c: Contender<T>) -> Self {
        ContenderOut {
            token: c.token,
            score: c.score,
            bits: bits_hex(c.score),
        }
    }
}

/// One race's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct RaceOut<T: NoiseFloat> {
    /// The chosen token.
    pub winner: ContenderOut<T>,
    /// The best of the rest (absent when V = 1).
    pub runner_up: Option<ContenderOut<T>>,
    /// Ulps between the winner's and runner-up's scores.
    pub margin_ulps: Option<u64>,
}

impl<T: NoiseFloat> From<RaceResult<T>> for RaceOut<T> {
    fn from(r: RaceResult<T>) -> Self {
        RaceOut {
            winner: r.winner.into(),
            runner_up: r.runner_up.map(Into::into),
            margin_ulps: r.margin_ulps(),
        }
    }
}

/// The recovered token at one draft position.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct PositionOut<T: NoiseFloat> {
    /// Request index.
    pub request: usize,
    /// Position within the request's drafts.
    pub position: usize,
    /// Flat index into `draft_token_ids`.
    pub token_index: usize,
    /// The draft token at this position.
    pub draft_token: i32,
    /// The recovery race.
    #[serde(flatten)]
    pub race: RaceOut<T>,
}

/// One request of a rejection step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct RequestOut<T: NoiseFloat> {
    /// Greedy (temperature 0)?
    pub greedy: bool,
    /// Number of drafts.
    pub num_draft: usize,
    /// Drafts accepted before the first rejection.
    pub num_accepted: usize,
    /// The recovery race at the first rejection, for random requests.
    pub recovered: Option<RaceOut<T>>,
    /// The bonus token, if every draft was accepted.
    pub bonus: Option<usize>,
    /// The bonus race, if the bonus was sampled by the race.
    pub bonus_race: Option<RaceOut<T>>,
}

impl<T: NoiseFloat> From<RequestTrace<T>> for RequestOut<T> {
    fn from(t: RequestTrace<T>) -> Self {
        RequestOut {
            greedy: t.greedy,
            num_draft: t.num_draft,
            num_accepted: t.num_accepted,
            recovered: t.recovered.map(Into::into),
            bonus: t.bonus,
            bonus_race: t.bonus_race.map(Into::into),
        }
    }
}

/// A rejection step's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct RejectionOut<T: NoiseFloat> {
    /// The longest draft.
    pub max_spec_len: usize,
    /// `[B, max_spec_len + 1]`, padded with -1.
    pub output_token_ids: Vec<Vec<i32>>,
    /// The acceptance uniforms used (given or seeded).
    pub uniform: Vec<f64>,
    /// Per-request traces.
    pub requests: Vec<RequestOut<T>>,
}

impl<T: NoiseFloat> RejectionOut<T> {
    /// Converts a core result, with the uniforms that produced it.
    pub fn new(out: RejectionOutput<T>, uniform: Vec<f64>) -> Self {
        let rows = (0..out.requests.len())
            .map(|r| out.row(r).to_vec())
            .collect();
        RejectionOut {
            max_spec_len: out.max_spec_len,
            output_token_ids: rows,
            uniform,
            requests: out.requests.into_iter().map(Into::into).collect(),
        }
    }
}

/// What an operation returned.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged, bound(serialize = ""))]
pub enum ResultOut<T: NoiseFloat> {
    /// A `race`.
    Race(RaceOut<T>),
    /// A `recover`: one entry per draft position.
    Recover {
        /// Recovered tokens in draft-token order.
        positions: Vec<PositionOut<T>>,
    },
    /// A `rejection` step.
    Rejection(RejectionOut<T>),
}

/// A scenario's full answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct Outcome<T: NoiseFloat> {
    /// Format version.
    pub exporace: u32,
    /// The operation.
    pub op: Op,
    /// Noise precision.
    pub precision: Precision,
    /// NaN rule used.
    pub nan_policy: NanPolicy,
    /// The seed used (given, or drawn from entropy), as a decimal string so that
    /// JavaScript reads it exactly; absent when nothing was seeded.
    pub seed: Option<String>,
    /// The answer.
    pub result: ResultOut<T>,
}

/// The answer of a forensic operation (`models`, `noise`, `compare`,
/// `overflow`, `dead_zone`), whose precisions are chosen at run time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ForensicOutcome {
    /// Format version.
    pub exporace: u32,
    /// The operation.
    pub op: Op,
    /// The scenario's precision, if it gave one.
    pub precision: Option<Precision>,
    /// NaN rule used.
    pub nan_policy: NanPolicy,
    /// The seed used, as a decimal string; absent when nothing was seeded.
    pub seed: Option<String>,
    /// The answer.
    pub result: ForensicResult,
}

/// An [`Outcome`] at either precision, or a forensic answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// f32 noise.
    F32(Outcome<f32>),
    /// f64 noise.
    F64(Outcome<f64>),
    /// A forensic operation.
    Forensic(alloc::boxed::Box<ForensicOutcome>),
}
