//! Result objects as JavaScript sees them: camelCase fields, scores as
//! numbers (NaN and Infinity included) and as the IEEE bits the core reports.

use exporace::scenario::ContenderOut;
use exporace::{Contender, NoiseFloat, RaceResult, RejectionOutput, RequestTrace};
use js_sys::{Int32Array, Reflect};
use serde::Serialize;
use wasm_bindgen::{JsError, JsValue};

use crate::args::JsResult;

/// A token and its score.
#[derive(Debug, Serialize)]
pub struct ContenderJs {
    /// Token id.
    pub token: usize,
    /// The score `w * invQ` (or `w / q`), widened exactly to a JS number.
    pub score: f64,
    /// The score's IEEE bits in its own precision, `0x` + 8 or 16 hex digits.
    pub bits: String,
}

impl<T: NoiseFloat> From<Contender<T>> for ContenderJs {
    fn from(c: Contender<T>) -> Self {
        ContenderJs {
            token: c.token,
            score: c.score.to_f64(),
            bits: ContenderOut::from(c).bits,
        }
    }
}

/// One race's outcome.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RaceJs {
    /// The chosen token.
    pub winner: ContenderJs,
    /// The best of the rest, `null` when the vocabulary has one token.
    pub runner_up: Option<ContenderJs>,
    /// Ulps between winner and runner-up, `null` without one or with a NaN
    /// score. A JS number: exact up to 2^53.
    pub margin_ulps: Option<f64>,
}

impl<T: NoiseFloat> From<RaceResult<T>> for RaceJs {
    fn from(r: RaceResult<T>) -> Self {
        RaceJs {
            winner: r.winner.into(),
            runner_up: r.runner_up.map(Into::into),
            margin_ulps: r.margin_ulps().map(|m| m as f64),
        }
    }
}

/// One request of a rejection step.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestJs {
    /// Greedy (temperature 0)?
    pub greedy: bool,
    /// Number of drafts.
    pub num_draft: usize,
    /// Drafts accepted before the first rejection.
    pub num_accepted: usize,
    /// The recovery race at the first rejection of a random request.
    pub recovered: Option<RaceJs>,
    /// The bonus token, when every draft was accepted.
    pub bonus: Option<usize>,
    /// The bonus race, when the bonus was sampled by the race.
    pub bonus_race: Option<RaceJs>,
}

impl<T: NoiseFloat> From<RequestTrace<T>> for RequestJs {
    fn from(t: RequestTrace<T>) -> Self {
        RequestJs {
            greedy: t.greedy,
            num_draft: t.num_draft,
            num_accepted: t.num_accepted,
            recovered: t.recovered.map(Into::into),
            bonus: t.bonus,
            bonus_race: t.bonus_race.map(Into::into),
        }
    }
}

/// A rejection step without its token matrix, which goes out as an `Int32Array`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RejectionJs {
    max_spec_len: usize,
    requests: Vec<RequestJs>,
}

/// Converts a serializable value to JavaScript, `None` as `null`.
pub fn to_js<S: Serialize>(value: &S) -> JsResult<JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true);
    value
        .serialize(&ser)
        .map_err(|e| JsError::new(&format!("converting the result: {e}")))
}

/// A race result as a JS object.
pub fn race<T: NoiseFloat>(r: RaceResult<T>) -> JsResult<JsValue> {
    to_js(&RaceJs::from(r))
}

/// A list of race results as a JS array of objects.
pub fn races<T: NoiseFloat>(rs: Vec<RaceResult<T>>) -> JsResult<JsValue> {
    to_js(&rs.into_iter().map(RaceJs::from).collect::<Vec<_>>())
}

/// A rejection step as `{ maxSpecLen, outputTokenIds: Int32Array, requests }`.
pub fn rejection<T: NoiseFloat>(out: RejectionOutput<T>) -> JsResult<JsValue> {
    let ids = Int32Array::from(out.output_token_ids.as_slice());
    let obj = to_js(&RejectionJs {
        max_spec_len: out.max_spec_len,
        requests: out.requests.into_iter().map(Into::into).collect(),
    })?;
    Reflect::set(&obj, &JsValue::from_str("outputTokenIds"), &ids)
        .map_err(|_| JsError::new("could not set outputTokenIds on the result"))?;
    Ok(obj)
}
