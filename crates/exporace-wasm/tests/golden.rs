//! Golden outputs: scenarios under `tests/golden/` answered natively and
//! committed. Natively this test checks that the committed answers still match
//! (`EXPORACE_BLESS=1` rewrites them, see `scripts/golden.sh`); under
//! wasm-bindgen-test in the browser it checks that wasm gives the same bits.

mod common;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use serde_json::Value;

/// Compares `actual` (pretty JSON) with the committed `expected`, or rewrites
/// the committed file natively when `EXPORACE_BLESS` is set.
fn check(name: &str, actual: String, expected: &str) {
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("EXPORACE_BLESS").is_some() {
        let path = format!(
            "{}/../../tests/golden/{name}.result.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::write(&path, actual + "\n").expect("writing a golden file");
        return;
    }
    let actual: Value = serde_json::from_str(&actual).expect("the report is JSON");
    let expected: Value = serde_json::from_str(expected)
        .unwrap_or_else(|e| panic!("{name}.result.json is not JSON ({e}); run scripts/golden.sh"));
    let bits = common::all_bits(&expected);
    assert!(!bits.is_empty(), "{name}: the golden file holds no bits");
    assert_eq!(common::all_bits(&actual), bits, "{name}: score bits differ");
    assert_eq!(actual, expected, "{name}: report differs");
}

macro_rules! golden {
    ($name:ident) => {
        both_targets! {
            fn $name() {
                let scenario = include_str!(concat!("../../../tests/golden/", stringify!($name), ".scenario.json"));
                let expected = include_str!(concat!("../../../tests/golden/", stringify!($name), ".result.json"));
                let actual = exporace_study::scenario::run(scenario).expect("the scenario runs");
                check(stringify!($name), actual, expected);
            }
        }
    };
}

golden!(race_f32);
golden!(race_f64_div);
golden!(recover_f32_draft);
golden!(recover_f64_ngram);
golden!(rejection_f64);

both_targets! {
    fn recover_large() {
        let params: Value =
            serde_json::from_str(include_str!("../../../tests/golden/recover_large.params.json"))
                .expect("params are JSON");
        let report = exporace_study::scenario::execute(common::large_scenario(&params))
            .expect("the scenario runs");
        let actual = serde_json::to_string_pretty(&report).expect("the report serializes");
        check(
            "recover_large",
            actual,
            include_str!("../../../tests/golden/recover_large.result.json"),
        );
    }
}
