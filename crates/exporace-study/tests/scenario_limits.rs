//! The scenario format refuses oversized text before parsing it.

/// Scenario text past 32 MiB is refused before it is parsed, naming the cap.
#[test]
fn scenario_text_past_the_cap_is_refused() {
    let cap = exporace_study::scenario::MAX_SCENARIO_BYTES;
    let mut text = String::from(r#"{"exporace":1,"op":"race","precision":"f32","weights":["#);
    while text.len() <= cap {
        text.push_str("0.125,");
    }
    text.push_str("1]}");
    let err = exporace_study::scenario::run(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "scenario text (bytes) is {}, over the limit of {cap}",
            text.len()
        )
    );
}
