//! The committed runs against JAX's and MLX's own CPU code
//! (`docs/conformance/jax-cpu-0.11.2.json`, written by
//! `scripts/conformance-jax.sh`, and `docs/conformance/mlx-cpu-0.32.4.json`,
//! written by `scripts/conformance-mlx.sh`; see `docs/conformance.md`): every
//! value and id equal, over the shapes, seeds and logit rows the scripts
//! promise, with the counts the docs state. Nothing here installs or runs
//! JAX or MLX.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "../../exporace/tests/common/conformance.rs"]
mod conformance;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn report(name: &str) -> Value {
    let path = root().join("docs/conformance").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that `docs/conformance.md` states each `(equal, total)` as
/// `equal / total`.
fn stated(pairs: &[(u64, u64)]) {
    let doc = std::fs::read_to_string(root().join("docs/conformance.md")).unwrap();
    for (equal, total) in pairs {
        let text = format!("{equal} / {total}");
        assert!(
            doc.contains(&text),
            "docs/conformance.md does not state {text}"
        );
    }
}

fn count(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not a count in {v}"))
}

/// The summary's (equal, total) of the noise values and of the ids, after
/// checking that every case is equal, that the cases add up to the summary
/// and that every quantity was compared.
fn checked(r: &Value, quantities: &[&str]) -> ((u64, u64), (u64, u64)) {
    let noise = &r["noise"];
    let cases = r["noise_cases"].as_array().unwrap();
    assert_eq!(cases.len() as u64, count(noise, "cases"));
    for q in quantities {
        let (values, equal) = (count(&noise[q], "values"), count(&noise[q], "equal"));
        assert!(values > 0, "no {q} compared");
        assert_eq!(equal, values, "{q}");
        let summed: u64 = cases.iter().map(|c| c[q][0].as_u64().unwrap_or(0)).sum();
        assert_eq!(summed, values, "{q}: the cases add up");
    }
    for c in cases {
        assert!(c.get("mismatch").is_none(), "{c}");
    }
    let shapes: Vec<&Value> = cases.iter().map(|c| &c["shape"]).collect();
    assert!(shapes.iter().any(|s| s.as_array().unwrap().len() == 2));
    assert!(cases.iter().any(|c| count(c, "elements") >= 16384));
    let cat = &r["categorical"];
    let rows = r["categorical_cases"].as_array().unwrap();
    assert_eq!(rows.len() as u64, count(cat, "cases"));
    let ids: u64 = rows.iter().map(|c| count(c, "ids")).sum();
    assert_eq!(ids, count(cat, "ids"));
    for c in rows {
        assert_eq!(c["equal"], c["ids"], "{c}");
    }
    assert!(rows.iter().any(|c| count(c, "vocab") == 151_936));
    assert!(rows.iter().any(|c| count(c, "rows") > 1));
    for kind in [
        "flat",
        "gaussian",
        "masked (top 2%)",
        "four tied leaders",
        "NaN and inf",
        "every token masked",
    ] {
        assert!(rows.iter().any(|c| c["logits"] == kind), "{kind}");
    }
    (
        (count(noise, "equal"), count(noise, "values")),
        (count(cat, "equal"), count(cat, "ids")),
    )
}

#[test]
fn every_value_and_id_of_the_jax_run_is_equal() {
    let r = report("jax-cpu-0.11.2.json");
    assert_eq!(r["versions"]["jax"], "0.11.2");
    assert_eq!(r["versions"]["jaxlib"], "0.11.2");
    assert_eq!(r["config"]["jax_threefry_partitionable"], true);
    let (values, ids) = checked(&r, &["raw", "uniform", "gumbel", "raw_high", "gumbel_high"]);
    let rows = r["categorical_cases"].as_array().unwrap();
    for mode in ["low", "high"] {
        assert!(rows.iter().any(|c| c["mode"] == mode), "{mode}");
    }
    assert!(values.1 >= 500_000 && ids.1 >= 1000, "{values:?} {ids:?}");
    assert_eq!(
        conformance::documented("`jax-0.11-cpu`, `jax-0.11-cpu-high` against jaxlib"),
        [values, ids]
    );
    stated(&[values, ids]);
}

#[test]
fn every_value_and_id_of_the_mlx_run_is_equal() {
    let r = report("mlx-cpu-0.32.4.json");
    assert_eq!(r["versions"]["mlx"], "0.32.4");
    assert_eq!(r["versions"]["mlx_cpu"], "0.32.4");
    let (values, ids) = checked(&r, &["raw", "uniform", "gumbel"]);
    assert!(values.1 >= 300_000 && ids.1 >= 400, "{values:?} {ids:?}");
    assert_eq!(conformance::documented("`mlx-0.32-cpu`"), [values, ids]);
    stated(&[values, ids]);
}
