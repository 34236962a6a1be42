//! Numbers in scenario JSON: each written form reads to the value it names,
//! and any other JSON value is refused as a scenario error.

use exporace::Error;
use exporace_study::scenario::run;

fn dead_zone(weights: &str) -> Result<String, Error> {
    run(&format!(
        r#"{{"exporace": 1, "op": "dead_zone", "model": "ideal", "weights": {weights}}}"#
    ))
}

fn race(weights: &str) -> Result<String, Error> {
    run(&format!(
        r#"{{"exporace": 1, "op": "race", "precision": "f32", "weights": {weights}, "noise": [1, 1, 1]}}"#
    ))
}

/// A JSON integer, a float, a decimal string and IEEE bits name the same
/// weights, and answer the same race (its scores' bits included).
#[test]
fn every_written_form_reads_the_same_value() {
    let plain = race("[1, 0.5, 3]").unwrap();
    assert!(plain.contains(r#""token": 2"#), "{plain}");
    for same in [
        r#"[1.0, "0.5", 3]"#,
        r#"["0x3f800000", 0.5, "3"]"#,
        r#"[1, 5e-1, 3e0]"#,
    ] {
        assert_eq!(race(same).unwrap(), plain, "{same}");
    }
}

/// Booleans, null, nested arrays, objects and words are refused with a
/// scenario error naming the entry and saying what was found, and the next
/// scenario answers.
#[test]
fn other_json_values_are_refused() {
    for (bad, found) in [
        ("[1, true]", "boolean `true`"),
        ("[1, [2]]", "sequence"),
        (r#"[1, {"x": 2}]"#, "map"),
        (r#"[1, "abc"]"#, r#"weights[1] = "abc""#),
    ] {
        match dead_zone(bad) {
            Err(Error::Scenario(message)) => {
                assert!(message.contains(found), "{bad}: {message}");
                assert!(message.contains("weights[1]"), "{bad}: {message}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // null is refused by the reader, with its line and column.
    match dead_zone("[1, null]") {
        Err(Error::Scenario(message)) => {
            assert!(
                message.contains("null is not a value in a scenario"),
                "{message}"
            );
            assert!(message.contains("line 1 column"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(dead_zone("[1, 0.5]").unwrap().contains("\"count\": 0"));
}

/// A value of the wrong type anywhere in a body is refused with its path.
#[test]
fn wrong_types_name_their_field() {
    for (scenario, path) in [
        (
            r#"{"exporace": 1, "op": "noise", "model": "ideal", "seed": 1, "start": "x", "count": 1}"#,
            "noise: start: ",
        ),
        (
            r#"{"exporace": 1, "op": "noise", "model": "ideal", "seed": 1, "count": [1]}"#,
            "noise: count: ",
        ),
        (
            r#"{"exporace": 1, "op": "compare", "weights": [1, 2], "models": ["ideal", 3], "seed": 1}"#,
            "compare: models[1]: ",
        ),
        (
            r#"{"exporace": 1, "op": "race", "precision": "f32", "weights": [1, 2], "noise": {"a": 1}}"#,
            "race: noise: ",
        ),
        (
            r#"{"exporace": 1, "op": "exact", "model": "ideal", "groups": [{"weight": 1, "count": "many"}]}"#,
            "exact: groups[0].count: ",
        ),
    ] {
        match run(scenario) {
            Err(Error::Scenario(message)) => {
                assert!(message.starts_with(path), "{scenario}: {message}")
            }
            other => panic!("{scenario}: {other:?}"),
        }
    }
}
