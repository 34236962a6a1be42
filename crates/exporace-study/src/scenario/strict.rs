//! A scenario's JSON value, read strictly: every key of an object given
//! once (`{"seed": 42, "seed": 43}` is refused, where a plain reader keeps
//! one of the two in silence), and no `null` (an absent field has a
//! meaning, such as a fresh seed or seeded noise, that a `null` written by
//! a serializer for NaN must not take in silence).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A [`Value`] whose objects had no repeated key.
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("the number {v} is not finite")))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Err(E::custom(
            "null is not a value in a scenario: leave the field out for its default \
             (a fresh seed, seeded noise), or write NaN and infinities as \"nan\", \"inf\"",
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let StrictValue(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "key {key:?} appears twice in one object"
                )));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::StrictValue;
    use alloc::string::{String, ToString};
    use serde_json::json;

    fn read(text: &str) -> Result<serde_json::Value, String> {
        serde_json::from_str::<StrictValue>(text)
            .map(|v| v.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_a_plain_reader_reads() {
        let text = r#"{"a": [1, -2, 0.5, 1e300, "x", true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            read(text).unwrap(),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
        assert_eq!(read("[]").unwrap(), json!([]));
    }

    #[test]
    fn refuses_a_key_given_twice_at_any_depth() {
        let e = read(r#"{"seed": 42, "seed": 43}"#).unwrap_err();
        assert!(e.contains(r#"key "seed" appears twice"#), "{e}");
        let e = read(r#"{"model": {"model": "ideal", "model": "ideal"}}"#).unwrap_err();
        assert!(e.contains(r#"key "model" appears twice"#), "{e}");
        let e = read(r#"[{"a": 1, "b": 2, "a": 1}]"#).unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        // Keys that differ only in case are two keys.
        assert!(read(r#"{"seed": 1, "Seed": 2}"#).is_ok());
    }

    #[test]
    fn refuses_null_where_a_serializer_wrote_it_for_nan() {
        for text in [r#"{"seed": null}"#, r#"{"noise": [1, null]}"#, "null"] {
            let e = read(text).unwrap_err();
            assert!(
                e.contains("null is not a value in a scenario"),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn keeps_the_reader_s_nesting_limit() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = read(&deep).unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
    }
}
