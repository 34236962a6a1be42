//! The part of the npm facade's argument decoding that runs natively: a
//! scenario given as JSON text is parsed by the core, and the answer's keys are
//! renamed to camelCase (`exporace_wasm::camel_keys`) at any depth. Typed-array
//! and option-object decoding calls into JavaScript and is covered by the
//! browser and Node tests instead (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = exporace_study::scenario::parse(text) else {
        return;
    };
    let camel = exporace_wasm::camel_keys(value.clone());
    // Renaming keeps the shape: same kind, same number of entries.
    match (&value, &camel) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => assert!(b.len() <= a.len()),
        (serde_json::Value::Array(a), serde_json::Value::Array(b)) => assert_eq!(a.len(), b.len()),
        (a, b) => assert_eq!(a, b),
    }
});
