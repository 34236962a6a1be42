//! Result objects as JavaScript sees them: camelCase fields, scores as
//! numbers (NaN and Infinity included) and as the IEEE bits the core reports.

use exporace::scenario::ContenderOut;
use exporace::{Contender, NoiseFloat, RaceResult, RejectionOutput, RequestTrace};
use js_sys::{Array, Int32Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::wasm_bindgen;
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

/// A race result as a JS object, [`RaceJs`]'s fields in its order.
pub fn race<T: NoiseFloat>(r: RaceResult<T>) -> JsResult<JsValue> {
    Ok(KEYS.with(|k| race_object(k, r)).into())
}

/// A list of race results as a JS array of objects, as [`race`] makes them.
pub fn races<T: NoiseFloat>(rs: Vec<RaceResult<T>>) -> JsResult<JsValue> {
    let out = Array::new_with_length(rs.len() as u32);
    KEYS.with(|k| {
        for (i, r) in rs.into_iter().enumerate() {
            out.set(i as u32, race_object(k, r).into());
        }
    });
    Ok(out.into())
}

#[wasm_bindgen]
extern "C" {
    /// A plain object whose fields are set by key, `object[key] = value`:
    /// through `Reflect.set` the number fields of a small `raceMul` result
    /// took 1.7 us instead of 0.34 (Node, `--cpu-prof`).
    #[wasm_bindgen(extends = Object)]
    type Fields;
    /// Sets a number field.
    #[wasm_bindgen(method, indexing_setter)]
    fn set_number(this: &Fields, key: &JsValue, value: f64);
    /// Sets a field to any value.
    #[wasm_bindgen(method, indexing_setter)]
    fn set_value(this: &Fields, key: &JsValue, value: &JsValue);
    /// `String.fromCharCode` of 10 code units: an f32 score's bits. A Rust
    /// string would go through a `TextDecoder`, half a microsecond per
    /// score in Node.
    #[wasm_bindgen(js_namespace = String, js_name = fromCharCode)]
    #[allow(clippy::too_many_arguments)]
    fn chars10(
        c0: u16,
        c1: u16,
        c2: u16,
        c3: u16,
        c4: u16,
        c5: u16,
        c6: u16,
        c7: u16,
        c8: u16,
        c9: u16,
    ) -> JsValue;
    /// `String.fromCharCode` of 18 code units: an f64 score's bits.
    #[wasm_bindgen(js_namespace = String, js_name = fromCharCode)]
    #[allow(clippy::too_many_arguments)]
    fn chars18(
        c0: u16,
        c1: u16,
        c2: u16,
        c3: u16,
        c4: u16,
        c5: u16,
        c6: u16,
        c7: u16,
        c8: u16,
        c9: u16,
        c10: u16,
        c11: u16,
        c12: u16,
        c13: u16,
        c14: u16,
        c15: u16,
        c16: u16,
        c17: u16,
    ) -> JsValue;
}

/// A new empty plain object.
fn fields() -> Fields {
    Object::new().unchecked_into()
}

/// The field names of a race result, made once per thread. Through
/// serde-wasm-bindgen, a `raceMul` call on 16 tokens spent 47% of its time
/// building its result (a JavaScript call per field through an error
/// handler, each number boxed on its own, Node `--cpu-prof`); built here,
/// the call takes 25% to 28% less time.
struct Keys {
    winner: JsValue,
    runner_up: JsValue,
    margin_ulps: JsValue,
    token: JsValue,
    score: JsValue,
    bits: JsValue,
}

thread_local! {
    static KEYS: Keys = Keys {
        winner: JsValue::from_str("winner"),
        runner_up: JsValue::from_str("runnerUp"),
        margin_ulps: JsValue::from_str("marginUlps"),
        token: JsValue::from_str("token"),
        score: JsValue::from_str("score"),
        bits: JsValue::from_str("bits"),
    };
}

/// `{ winner, runnerUp, marginUlps }` as [`RaceJs`] serializes it.
fn race_object<T: NoiseFloat>(k: &Keys, r: RaceResult<T>) -> Fields {
    let out = fields();
    out.set_value(&k.winner, &contender_object(k, r.winner));
    let runner_up = r
        .runner_up
        .map_or(JsValue::NULL, |c| contender_object(k, c).into());
    out.set_value(&k.runner_up, &runner_up);
    match r.margin_ulps() {
        Some(m) => out.set_number(&k.margin_ulps, m as f64),
        None => out.set_value(&k.margin_ulps, &JsValue::NULL),
    }
    out
}

/// `{ token, score, bits }` as [`ContenderJs`] serializes it.
fn contender_object<T: NoiseFloat>(k: &Keys, c: Contender<T>) -> Fields {
    let out = fields();
    out.set_number(&k.token, c.token as f64);
    out.set_number(&k.score, c.score.to_f64());
    let mut d = [0; 18];
    let text = bits_text(c.score, &mut d).as_bytes();
    let u = |i: usize| u16::from(text[i]);
    let bits = if T::BITS == 32 {
        chars10(u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7), u(8), u(9))
    } else {
        chars18(
            u(0),
            u(1),
            u(2),
            u(3),
            u(4),
            u(5),
            u(6),
            u(7),
            u(8),
            u(9),
            u(10),
            u(11),
            u(12),
            u(13),
            u(14),
            u(15),
            u(16),
            u(17),
        )
    };
    out.set_value(&k.bits, &bits);
    out
}

/// The bits of `x` as [`ContenderOut`] spells them (`0x` and 8 or 16 hex
/// digits), written into `digits` without `format!`, whose machinery took
/// a fifth of a small race's result objects (Node, `--cpu-prof`).
fn bits_text<T: NoiseFloat>(x: T, digits: &mut [u8; 18]) -> &str {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = (T::BITS / 4) as usize;
    let bits = x.to_bits();
    digits[..2].copy_from_slice(b"0x");
    for (i, d) in digits[2..2 + n].iter_mut().enumerate() {
        *d = HEX[((bits >> (4 * (n - 1 - i))) & 0xf) as usize];
    }
    // ASCII only.
    core::str::from_utf8(&digits[..2 + n]).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::bits_text;
    use exporace::scenario::ContenderOut;
    use exporace::{Contender, NoiseFloat};

    /// The bits as the scenario output spells them.
    fn bits_hex<T: NoiseFloat>(score: T) -> String {
        ContenderOut::from(Contender { token: 0, score }).bits
    }

    #[test]
    fn bits_text_spells_the_scenario_bits() {
        let f32s = [
            0.0f32,
            -0.0,
            1.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::NAN,
            -f32::INFINITY,
            1e-45,
        ];
        for x in f32s {
            let mut digits = [0; 18];
            assert_eq!(bits_text(x, &mut digits), bits_hex(x));
        }
        let f64s = [
            0.0f64,
            -0.0,
            1.5,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            5e-324,
        ];
        for x in f64s {
            let mut digits = [0; 18];
            assert_eq!(bits_text(x, &mut digits), bits_hex(x));
        }
    }
}
