//! Every documented example scenario with each of its fields, at every
//! depth down to the first element of an array, replaced by each hostile
//! value in turn, and removed: no case panics or runs long, and every
//! refusal names its problem. About three thousand cases.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Values a stranger sends where a number, a string, a list or an object is
/// meant.
fn hostile() -> Vec<Value> {
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    vec![
        json!(true),
        json!(""),
        json!("x"),
        json!(-1),
        json!(0),
        json!(0.5),
        json!(1e308),
        json!(-1e308),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(9007199254740993u64),
        json!("nan"),
        json!("-inf"),
        json!("-0"),
        json!("0x7ff8000000000001"),
        json!("18446744073709551616"),
        json!("\u{202e}\u{0}"),
        json!([]),
        json!([[]]),
        json!({}),
        json!({"model": "ideal", "x": 1}),
        json!(["nan", "inf", -1, "0x"]),
        deep,
    ]
}

/// The paths of `v`: every object field and the first element of every
/// array, at every depth.
fn paths(v: &Value, at: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let mut p = at.clone();
                p.push(json!(k));
                out.push(p.clone());
                paths(child, p, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let mut p = at.clone();
            p.push(json!(0));
            out.push(p.clone());
            paths(&items[0], p, out);
        }
        _ => {}
    }
}

/// `v` with the value at `path` replaced by `with` (removed when `None`).
fn replaced(v: &Value, path: &[Value], with: Option<&Value>) -> Value {
    let mut out = v.clone();
    let mut at = &mut out;
    for (i, key) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        match (at, key) {
            (Value::Object(m), Value::String(k)) => {
                if last {
                    match with {
                        Some(w) => {
                            m.insert(k.clone(), w.clone());
                        }
                        None => {
                            m.remove(k);
                        }
                    }
                    break;
                }
                at = m.get_mut(k).unwrap();
            }
            (Value::Array(items), Value::Number(n)) => {
                let i = n.as_u64().unwrap() as usize;
                if last {
                    match with {
                        Some(w) => items[i] = w.clone(),
                        None => {
                            items.remove(i);
                        }
                    }
                    break;
                }
                at = &mut items[i];
            }
            _ => unreachable!(),
        }
    }
    out
}

#[test]
fn hostile_fields_in_every_example_scenario() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 12, "{files:?}");
    let values = hostile();
    let (mut cases, mut refused) = (0usize, 0usize);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let mut all = Vec::new();
        paths(&v, Vec::new(), &mut all);
        for path in &all {
            let variants = values.iter().map(Some).chain([None]);
            for with in variants {
                let scenario = replaced(&v, path, with).to_string();
                let t0 = Instant::now();
                let got = catch_unwind(AssertUnwindSafe(|| {
                    exporace_study::scenario::run(&scenario)
                }));
                let took = t0.elapsed();
                let got =
                    got.unwrap_or_else(|_| panic!("{}: panicked on {scenario}", file.display()));
                assert!(
                    took < Duration::from_secs(20),
                    "{}: {scenario} took {took:?}",
                    file.display()
                );
                if let Err(e) = got {
                    let m = e.to_string();
                    assert!(m.len() > 10, "{scenario}: {m:?}");
                    refused += 1;
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 2000, "{cases} cases");
    // Most hostile values are refused; the rest are legal (a 0, a 0.5).
    assert!(refused * 2 > cases, "{refused} of {cases} refused");
    eprintln!("{cases} hostile scenarios, {refused} refused");
}
