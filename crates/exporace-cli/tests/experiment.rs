//! `exporace experiment`: the many-tail race, gap sweeps and the shared-noise
//! bias on the command line. Expected values come from the closed form of the
//! ideal race, `N w / (1 + N w)`, computed here, and from the fp32 noise floor
//! (torch CUDA's E is at least 2^-24 and at most 22.9, so a tail of weight
//! `e^-g` can never beat a head of weight 1 once `e^-g / 2^-24 < 1 / 22.9`).
//!
//! The runs use fixed seeds, so each outcome is fixed; the statistical
//! assertions are stated with the chance they would fail for a correct
//! sampler under a fresh seed.

mod common;

use common::{exporace, scratch};
use serde_json::Value;

/// The ideal race's tail mass for `n` tails of weight `f32(e^-gap)` against
/// a head of weight 1.
fn ideal(n: f64, gap: f64) -> f64 {
    let w = (-gap).exp() as f32 as f64;
    n * w / (1.0 + n * w)
}

/// Runs `exporace experiment <study> <args> --json .. --chart ..` in a scratch
/// directory: its terminal text, JSON report and SVG chart.
fn study(study: &str, args: &str) -> (String, Value, String) {
    let dir = scratch(&format!("experiment-{study}-{}", args.len()));
    let (json, svg) = (dir.join("r.json"), dir.join("c.svg"));
    let mut argv = vec!["experiment", study];
    argv.extend(args.split_whitespace());
    argv.extend([
        "--json",
        json.to_str().unwrap(),
        "--chart",
        svg.to_str().unwrap(),
    ]);
    let (ok, out, err) = exporace(&argv);
    assert!(ok, "{err}");
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, report, std::fs::read_to_string(&svg).unwrap())
}

#[test]
fn many_tail_counts_tail_wins_against_the_exact_mass() {
    let (out, r, chart) = study(
        "many-tail",
        "--gap 10 --tails 4096 --trials 20000 --seed 5 --model u64-f64-classic --model torch-cuda-f32",
    );
    assert!(
        out.contains("u64-f64-classic") && out.contains("seed 5"),
        "{out}"
    );
    let want = ideal(4096.0, 10.0);
    for m in r["models"].as_array().unwrap() {
        let exact = &m["exact"];
        let (lo, hi) = (
            exact["lower"].as_f64().unwrap(),
            exact["upper"].as_f64().unwrap(),
        );
        let wins = m["tail_wins"].as_u64().unwrap();
        assert_eq!(wins + m["head_wins"].as_u64().unwrap(), 20000);
        // 20000 races with P(tail) near 0.157: |z| > 5 has probability below
        // 6e-7 for a correct sampler.
        let p = exact["probability"].as_f64().unwrap();
        let z = (wins as f64 - 20000.0 * p) / (20000.0 * p * (1.0 - p)).sqrt();
        assert!(z.abs() < 5.0, "{m}");
        assert!((m["z"].as_f64().unwrap() - z).abs() < 1e-9, "{m}");
        if m["model"] == "u64-f64-classic" {
            // A 64-bit uniform follows the ideal race to far below 1e-6.
            assert!(
                lo <= want + 1e-9 && want - 1e-9 <= hi,
                "{want} not in [{lo}, {hi}]"
            );
        }
    }
    assert!(chart.starts_with("<svg") && chart.contains("torch-cuda-f32"));
}

#[test]
fn many_tail_at_20_5_nats_never_lets_an_fp32_tail_win() {
    let (_, r, _) = study("many-tail", "--trials 64 --seed 1 --model torch-cuda-f32");
    assert_eq!(r["tails"], 262144);
    let m = &r["models"][0];
    assert_eq!(m["exact"]["upper"].as_f64(), Some(0.0), "{m}");
    assert_eq!(m["tail_wins"], 0);
    assert!((r["ideal"].as_f64().unwrap() - ideal(262144.0, 20.5)).abs() < 1e-12);
}

#[test]
fn gap_sweep_tabulates_the_fp32_cliff_and_draws_it() {
    let (out, r, chart) = study(
        "gap-sweep",
        "--from 16 --to 21 --step 1 --model ideal --model torch-cuda-f32",
    );
    assert!(
        out.contains("| 21.0 |") && out.contains("`torch-cuda-f32`"),
        "{out}"
    );
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for row in rows {
        let gap = row["gap"].as_f64().unwrap();
        let want = ideal(262144.0, gap);
        let i = &row["models"]["ideal"];
        assert!(i["lower"].as_f64().unwrap() <= want + 1e-12, "{row}");
        assert!(want - 1e-12 <= i["upper"].as_f64().unwrap(), "{row}");
        let t = row["models"]["torch-cuda-f32"]["upper"].as_f64().unwrap();
        // e^-g / 2^-24 < 1 / 22.9 from g = 16.64 + ln 22.9 = 19.77 on.
        if gap >= 20.0 {
            assert_eq!(t, 0.0, "{row}");
        } else {
            assert!(t > 0.0, "{row}");
        }
    }
    assert!(chart.contains("N e^-g / (1 + N e^-g)") && chart.contains("torch-cuda-f32"));
}

#[test]
fn shared_noise_shows_the_bias_and_salted_noise_does_not() {
    let (out, r, chart) = study("shared-noise", "--trials 100000 --seed 3");
    assert!(
        out.contains("salted: chi-square") && out.contains("shared: chi-square"),
        "{out}"
    );
    let (salted, shared) = (&r["couplings"][0], &r["couplings"][1]);
    assert_eq!(salted["coupling"], "salted");
    for c in [salted, shared] {
        let n: u64 = c["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(n, 100000);
    }
    // A lossless step fails this with probability 1e-6.
    assert!(salted["p_value"].as_f64().unwrap() > 1e-6, "{salted}");
    // The shared coupling moves mass between tokens 0 and 1 by about 0.04.
    assert!(shared["p_value"].as_f64().unwrap() < 1e-20, "{shared}");
    assert!(shared["tv_to_target"].as_f64().unwrap() > 0.02, "{shared}");
    assert!(chart.contains("shared draft noise") && chart.contains("target x steps"));
}

#[test]
fn bad_arguments_name_the_problem() {
    let (ok, _, err) = exporace(&["experiment", "many-tail", "--model", "torch-gpu"]);
    assert!(!ok);
    assert!(
        err.contains("unknown model \"torch-gpu\"") && err.contains("torch-cuda-f32"),
        "{err}"
    );
    let (ok, _, err) = exporace(&["experiment", "many-tail", "--gap=-1", "--seed", "1"]);
    assert!(!ok);
    assert!(
        err.contains("the gap must be a finite number of nats >= 0, got -1"),
        "{err}"
    );
    let (ok, _, err) = exporace(&[
        "experiment",
        "shared-noise",
        "--target",
        "0.5,0.5",
        "--draft",
        "1",
        "--seed",
        "1",
    ]);
    assert!(!ok);
    assert!(
        err.contains("lengths") || err.contains("2 vs 1") || err.contains("draft"),
        "{err}"
    );
    let (ok, _, err) = exporace(&["experiment", "gap-sweep", "--from", "5", "--to", "1"]);
    assert!(!ok);
    assert!(err.contains("need from <= to"), "{err}");
    // Trials past the cap are refused up front, not run for centuries.
    for study in ["many-tail", "shared-noise"] {
        let (ok, _, err) = exporace(&["experiment", study, "--trials", "18446744073709551615"]);
        assert!(!ok);
        assert!(
            err.contains("--trials must be at most 4294967296"),
            "{study}: {err}"
        );
    }
}
