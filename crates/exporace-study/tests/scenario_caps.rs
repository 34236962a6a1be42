//! An `experiment` scenario runs without progress or cancellation, so its
//! work is capped up front: trials times target tokens at most 2^30.

use exporace::Error;
use exporace_study::scenario::{MAX_TRIAL_TOKENS, run};

fn experiment(trials: u64, tokens: usize) -> String {
    let target = vec!["1"; tokens].join(",");
    format!(
        r#"{{"exporace":1,"op":"experiment","seed":1,"model":"ideal","sampler":"race","target":[{target}],"trials":{trials}}}"#
    )
}

#[test]
fn too_many_token_draws_are_refused_before_any_trial() {
    // 2^20 trials over 2^10 + 1 tokens: one draw past 2^30 per trial.
    let started = std::time::Instant::now();
    match run(&experiment(1 << 20, 1025)) {
        Err(Error::TooLarge { what, size, limit }) => {
            assert_eq!(what, "experiment token draws (trials x target tokens)");
            assert_eq!((size, limit), ((1 << 20) * 1025, MAX_TRIAL_TOKENS));
        }
        other => panic!("{other:?}"),
    }
    // Refused up front: no trial ran (2^30 draws take about a minute).
    assert!(started.elapsed().as_secs() < 5);
    // The product saturates rather than wrapping past 2^64.
    assert!(matches!(
        run(&experiment(100_000_000, 1 << 12)),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn a_small_experiment_still_runs() {
    let out = run(&experiment(2, 2)).unwrap();
    assert!(out.contains("\"op\": \"experiment\""), "{out}");
}
