//! Result objects as JavaScript sees them: camelCase fields, scores as
//! numbers (NaN and Infinity included) and as the IEEE bits the core reports.

use exporace::{Contender, NoiseFloat, RaceResult, RejectionOutput, RequestTrace};
use exporace_study::scenario::ContenderOut;
use js_sys::{Array, Int32Array, Reflect};
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::error::{JsError, JsResult};

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

#[wasm_bindgen(module = "/js/boundary.js")]
extern "C" {
    /// `{ winner, runnerUp, marginUlps }` from a race's numbers, made in one
    /// call with object literals: `rt < 0` for no runner-up, `margin < 0`
    /// for no margin. A score's bits come as two 32-bit words (`hi`, then
    /// `lo` when `wide`, the f64 case) and go out as `0x` and 8 or 16 hex
    /// digits, as [`ContenderOut`] spells them. Made from wasm, one
    /// wasm-to-JS call per field and per bits string, the objects of 32
    /// races on 16 tokens took a third of a `recoverTokens` call (Node,
    /// `--cpu-prof`).
    #[wasm_bindgen(js_name = raceResult)]
    #[allow(clippy::too_many_arguments)]
    fn race_result(
        wt: f64,
        ws: f64,
        whi: u32,
        wlo: u32,
        rt: f64,
        rs: f64,
        rhi: u32,
        rlo: u32,
        margin: f64,
        wide: bool,
    ) -> JsValue;
}

/// A race result as a JS object, [`RaceJs`]'s fields in its order.
pub fn race<T: NoiseFloat>(r: RaceResult<T>) -> JsResult<JsValue> {
    Ok(race_object(r))
}

/// A list of race results as a JS array of objects, as [`race`] makes them.
pub fn races<T: NoiseFloat>(rs: Vec<RaceResult<T>>) -> JsResult<JsValue> {
    let out = Array::new_with_length(rs.len() as u32);
    for (i, r) in rs.into_iter().enumerate() {
        out.set(i as u32, race_object(r));
    }
    Ok(out.into())
}

/// A score's bits as two 32-bit words: `(hi, lo)` of an f64, `(bits, 0)`
/// of an f32.
fn words<T: NoiseFloat>(x: T) -> (u32, u32) {
    let b = x.to_bits();
    if T::BITS == 32 {
        (b as u32, 0)
    } else {
        ((b >> 32) as u32, b as u32)
    }
}

/// `{ winner, runnerUp, marginUlps }` as [`RaceJs`] serializes it.
fn race_object<T: NoiseFloat>(r: RaceResult<T>) -> JsValue {
    let margin = r.margin_ulps().map_or(-1.0, |m| m as f64);
    let (whi, wlo) = words(r.winner.score);
    let (rt, rs, (rhi, rlo)) = match r.runner_up {
        Some(c) => (c.token as f64, c.score.to_f64(), words(c.score)),
        None => (-1.0, 0.0, (0, 0)),
    };
    race_result(
        r.winner.token as f64,
        r.winner.score.to_f64(),
        whi,
        wlo,
        rt,
        rs,
        rhi,
        rlo,
        margin,
        T::BITS == 64,
    )
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

/// Race results at either precision, carried out of a registry borrow so
/// that the JavaScript objects are made after it ends.
pub enum Raced {
    /// f32 scores.
    F32(Vec<RaceResult<f32>>),
    /// f64 scores.
    F64(Vec<RaceResult<f64>>),
}

/// Results of one precision, as [`Raced`].
pub trait IntoRaced: NoiseFloat {
    /// Wraps `rs`.
    fn raced(rs: Vec<RaceResult<Self>>) -> Raced;
}

impl IntoRaced for f32 {
    fn raced(rs: Vec<RaceResult<f32>>) -> Raced {
        Raced::F32(rs)
    }
}

impl IntoRaced for f64 {
    fn raced(rs: Vec<RaceResult<f64>>) -> Raced {
        Raced::F64(rs)
    }
}

impl Raced {
    /// One race's result, as [`race`].
    pub fn one(self) -> JsResult<JsValue> {
        match self {
            Raced::F32(mut rs) => race(rs.pop().ok_or_else(|| JsError::new("no race ran"))?),
            Raced::F64(mut rs) => race(rs.pop().ok_or_else(|| JsError::new("no race ran"))?),
        }
    }

    /// Every result, as [`races`].
    pub fn all(self) -> JsResult<JsValue> {
        match self {
            Raced::F32(rs) => races(rs),
            Raced::F64(rs) => races(rs),
        }
    }
}
