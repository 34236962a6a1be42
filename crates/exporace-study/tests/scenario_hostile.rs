//! Scenarios as a stranger writes them: every input that would be answered
//! wrong in silence (a repeated key, a `null`, an unknown field inside a
//! model, a negative tolerance, zero trials, a wrapping position, `-0`
//! noise) is refused with a message naming the field, and the facts that
//! can be infinite are written as `"inf"`, never `null`.

use exporace_study::scenario::run;
use serde_json::Value;

/// The refusal of `text`, as its message.
fn refused(text: &str) -> String {
    match run(text) {
        Ok(answer) => panic!("{text}\nwas answered:\n{answer}"),
        Err(e) => e.to_string(),
    }
}

fn answer(text: &str) -> Value {
    serde_json::from_str(&run(text).unwrap_or_else(|e| panic!("{text}: {e}"))).unwrap()
}

#[test]
fn a_key_given_twice_is_refused_at_any_depth() {
    let e = refused(
        r#"{"exporace":1,"op":"race","precision":"f32","seed":42,"seed":43,"weights":[1,2]}"#,
    );
    assert!(
        e.contains(r#"key "seed" appears twice in one object at line 1"#),
        "{e}"
    );
    let e = refused(
        r#"{"exporace":1,"op":"noise","seed":1,"count":1,"model":{"model":"ideal","model":"torch-cpu"}}"#,
    );
    assert!(e.contains(r#"key "model" appears twice"#), "{e}");
}

#[test]
fn null_is_refused_where_it_would_mean_a_default() {
    for text in [
        // A fresh seed, where JavaScript's JSON.stringify wrote NaN as null.
        r#"{"exporace":1,"op":"race","precision":"f32","seed":null,"weights":[1,2]}"#,
        // Seeded noise instead of the inline noise meant.
        r#"{"exporace":1,"op":"race","precision":"f32","seed":1,"weights":[1,2],"noise":null}"#,
        r#"{"exporace":1,"op":"race","precision":"f32","weights":[1,2],"noise":[1,null]}"#,
    ] {
        let e = refused(text);
        assert!(
            e.contains("null is not a value in a scenario"),
            "{text}: {e}"
        );
    }
}

#[test]
fn an_unknown_field_inside_a_model_is_refused() {
    let e = refused(
        r#"{"exporace":1,"op":"dead_zone","model":{"model":"ideal","precision":"f64","x":1},"weights":[1,2]}"#,
    );
    assert!(
        e.contains("dead_zone: model.x: unknown field `x`, expected `model` or `precision`"),
        "{e}"
    );
    let e =
        refused(r#"{"exporace":1,"op":"dead_zone","model":{"precision":"f64"},"weights":[1,2]}"#);
    assert!(e.contains("missing field `model`"), "{e}");
    let e = refused(r#"{"exporace":1,"op":"dead_zone","model":7,"weights":[1,2]}"#);
    assert!(e.contains("a catalogue name, or"), "{e}");
    // The two forms that are meant still work.
    for model in [
        r#""ideal""#,
        r#"{"model":"ideal"}"#,
        r#"{"model":"ideal","precision":"f32"}"#,
    ] {
        let v = answer(&format!(
            r#"{{"exporace":1,"op":"dead_zone","model":{model},"weights":[1,2]}}"#
        ));
        assert_eq!(v["result"]["count"], 0, "{model}");
    }
}

#[test]
fn exact_refuses_a_negative_tolerance_and_too_few_nodes() {
    let exact = |extra: &str| {
        format!(
            r#"{{"exporace":1,"op":"exact","model":"ideal","groups":[{{"weight":1,"count":1}},{{"weight":2,"count":1}}]{extra}}}"#
        )
    };
    assert_eq!(
        refused(&exact(r#","tolerance":-1"#)),
        "tolerance is -1: it must be a number of at least 0"
    );
    for n in [0, 1] {
        assert_eq!(
            refused(&exact(&format!(r#","max_nodes":{n}"#))),
            format!("max_nodes is {n}: it must be at least 2 (each group's range has two ends)")
        );
    }
    // The smallest legal values run, and give p = 2/3 for the heavier token
    // (the ideal race: w_i / sum w) within their bracket.
    let v = answer(&exact(r#","tolerance":0,"max_nodes":2"#));
    let g = &v["result"]["probabilities"]["groups"][1];
    let (lo, hi) = (g["lower"].as_f64().unwrap(), g["upper"].as_f64().unwrap());
    assert!(lo <= 2.0 / 3.0 && 2.0 / 3.0 <= hi, "{g}");
}

#[test]
fn zero_trials_are_refused_not_a_perfect_fit() {
    let e = refused(
        r#"{"exporace":1,"op":"experiment","model":"ideal","sampler":"race","target":[1,2],"trials":0,"seed":1}"#,
    );
    assert_eq!(
        e,
        "trials is 0: it must be at least 1: zero trials have no frequencies to fit"
    );
    let e = exporace_study::experiment::fit(&[0, 0], &[0.5, 0.5], &[1, 1]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("counts is 0: they must add up to at least 1"),
        "{e}"
    );
}

#[test]
fn mrv2_positions_that_would_wrap_or_are_missing_are_refused() {
    let noise = |extra: &str| {
        format!(
            r#"{{"exporace":1,"op":"noise","model":"triton-flipped","seed":1,"count":1,"address":"mrv2"{extra}}}"#
        )
    };
    let max = exporace_study::models::MRV2_MAX_POS;
    for pos in [u64::MAX, max + 1, i64::MAX as u64] {
        for draft in [true, false] {
            let e = refused(&noise(&format!(r#","pos":{pos},"draft":{draft}"#)));
            assert!(
                e.starts_with(&format!("pos is {pos}: positions are int64")),
                "{e}"
            );
        }
    }
    // The last position is drawn; u64::MAX as a draft used to wrap onto
    // position 2^30 - 1, whose draw is its own.
    let draw = |extra: &str| answer(&noise(extra))["result"]["draws"][0]["raw"].clone();
    assert_ne!(
        draw(&format!(r#","pos":{max},"draft":true"#)),
        draw(r#","pos":1073741823,"draft":false"#)
    );
    let e = refused(&noise(""));
    assert!(e.contains(r#"addresses mrv2 and hashed need "pos""#), "{e}");
    // A position given to another address would be ignored: refused.
    let e = refused(r#"{"exporace":1,"op":"noise","model":"ideal","seed":1,"count":1,"pos":3}"#);
    assert!(
        e.contains(r#"they need "address": "mrv2" or "hashed""#),
        "{e}"
    );
    let e =
        refused(r#"{"exporace":1,"op":"noise","model":"ideal","seed":1,"count":1,"draft":true}"#);
    assert!(
        e.contains(r#"they need "address": "mrv2" or "hashed""#),
        "{e}"
    );
}

#[test]
fn negative_zero_noise_is_refused_by_every_operation_that_takes_noise() {
    for (op, extra) in [
        ("race", r#""precision":"f32","form":"div""#),
        ("race", r#""precision":"f64","form":"mul""#),
        ("overflow", r#""precision":"f64","form":"div""#),
        ("overflow", r#""precision":"f32","form":"mul""#),
    ] {
        let text =
            format!(r#"{{"exporace":1,"op":"{op}",{extra},"weights":[1,2],"noise":[1,-0.0]}}"#);
        let e = refused(&text);
        assert!(e.contains("negative zero"), "{text}: {e}");
        assert!(e.contains("at index 1"), "{text}: {e}");
        // The same with "+0" is answered: token 1 scores +inf under div.
        let text = text.replace("-0.0", "0.0");
        assert!(run(&text).is_ok(), "{text}");
    }
    let e =
        refused(r#"{"exporace":1,"op":"compare","weights":[1,2],"noise":[1,"-0"],"form":"div"}"#);
    assert!(e.contains("negative zero"), "{e}");
}

#[test]
fn dead_zone_writes_an_infinite_largest_e_as_inf() {
    let zone = |model: &str| {
        answer(&format!(
            r#"{{"exporace":1,"op":"dead_zone","model":"{model}","weights":[1,2]}}"#
        ))["result"]
            .clone()
    };
    // u64-f32-flipped: E = -log(1 - u) in f32 reaches +inf (facts: p_infinite > 0).
    let z = zone("u64-f32-flipped");
    assert!(z["model"]["p_infinite"].as_f64().unwrap() > 0.0, "{z}");
    assert_eq!(z["e_max"], "inf", "{z}");
    // Every model's extremes are a number or "inf", never null.
    for entry in exporace_study::models::CATALOGUE {
        let z = zone(entry.name);
        for key in ["e_min", "e_max", "threshold", "mass"] {
            assert!(
                z[key].is_number() || z[key] == "inf",
                "{}: {key} = {}",
                entry.name,
                z[key]
            );
        }
    }
}

#[test]
fn a_seed_that_is_not_an_unsigned_integer_is_refused_with_its_value() {
    for (seed, says) in [
        ("-0.0", "got -0.0"),
        ("-1", "got -1"),
        ("1.5", "got 1.5"),
        ("1e3", "got 1000.0"),
        (r#""-1""#, r#"seed "-1" is not an unsigned 64-bit integer"#),
        (
            r#""0x1_0000_0000_0000_0000""#,
            "is not an unsigned 64-bit integer",
        ),
    ] {
        let e = refused(&format!(
            r#"{{"exporace":1,"op":"race","precision":"f32","seed":{seed},"weights":[1,2]}}"#
        ));
        assert!(e.contains(says), "{seed}: {e}");
    }
}

#[test]
fn the_hashed_address_replays_the_murmur_models_and_refuses_the_rest() {
    let noise = |model: &str, extra: &str| {
        format!(
            r#"{{"exporace":1,"op":"noise","model":"{model}","seed":42,"count":2,"address":"hashed","pos":3{extra}}}"#
        )
    };
    // vLLM 0.33's fp32 draw for (42, 3, token 0) is its own hash's.
    let v = answer(&noise("vllm-0.33-f32", ""));
    let h = exporace::murmur3::hash32(42, 3, 0, 0);
    assert_eq!(v["result"]["draws"][0]["raw"], h.to_string());
    let v = answer(&noise("vllm-0.33-f32", r#","draft":true"#));
    let h = exporace::murmur3::hash32(42, 3 + (1 << 30), 0, 0);
    assert_eq!(v["result"]["draws"][0]["raw"], h.to_string());
    assert!(run(&noise("sglang-0.5", "")).is_ok());
    let e = refused(&noise("sglang-0.5", r#","draft":true"#));
    assert!(e.contains("only vLLM 0.33 salts draft noise"), "{e}");
    // SGLang's fast_sample hashes the salted seed, its tokens the columns.
    let v = answer(&noise("sglang-0.5-fast-sample", ""));
    let h = exporace::murmur3::hash32(42 + 0x4452_4146_545F_0000, 3, 1, 0);
    assert_eq!(v["result"]["draws"][1]["raw"], h.to_string());
    let e = refused(&noise("sglang-0.5-fast-sample", r#","draft":true"#));
    assert!(e.contains("SGLang's is sglang-0.5-fast-sample"), "{e}");
    let e = refused(&noise("triton-flipped", ""));
    assert!(e.contains("not triton-flipped"), "{e}");
    let e = refused(&noise("vllm-0.33-f64", r#","pos":1"#));
    assert!(e.contains(r#"key "pos" appears twice"#), "{e}");
}
