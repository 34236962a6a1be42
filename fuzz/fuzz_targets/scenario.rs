//! Any text as a scenario: an answer or a typed error. Operations whose cost
//! is set by the input (Monte Carlo trials, exact studies, long noise
//! replays) are parsed but only executed with small sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Whether any number in the scenario asks for more than this much work.
fn too_costly(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_none_or(|x| x.abs() > 4096.0),
        Value::String(s) => s.len() > 12 && s.chars().all(|c| c.is_ascii_digit()),
        Value::Array(a) => a.len() > 4096 || a.iter().any(too_costly),
        Value::Object(o) => o.values().any(too_costly),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = exporace_study::scenario::parse(text) else {
        return;
    };
    let op = value.get("op").and_then(Value::as_str).unwrap_or("");
    if matches!(op, "experiment" | "exact") || too_costly(&value) {
        return;
    }
    let _ = exporace_study::scenario::execute(value);
});
