//! Every NaN policy on hand-made rows, with infinities and ties.

mod common;

use exporace::{Error, NanPolicy, NoiseFloat, race_div, race_mul};

fn pick<T: NoiseFloat>(
    w: &[f32],
    inv_q: &[T],
    p: NanPolicy,
) -> Result<(usize, Option<usize>), Error> {
    let r = race_mul(w, inv_q, p)?;
    Ok((r.winner.token, r.runner_up.map(|c| c.token)))
}

fn nan_in_the_middle<T: NoiseFloat>() {
    // q = 0 gives inv_q = inf; weight 0 times inf is NaN at token 1.
    let w = [0.5f32, 0.0, 0.3];
    let inv_q = [T::ONE, T::INFINITY, T::from_f64(2.0)];
    assert_eq!(pick(&w, &inv_q, NanPolicy::FirstNanWins), Ok((1, Some(2))));
    assert_eq!(pick(&w, &inv_q, NanPolicy::NanNeverWins), Ok((2, Some(0))));
    match pick(&w, &inv_q, NanPolicy::Reject) {
        Err(Error::NanScore {
            index: 1,
            weight,
            noise,
        }) => {
            assert_eq!(weight, 0.0);
            assert_eq!(noise, f64::INFINITY);
        }
        other => panic!("expected NanScore at 1, got {other:?}"),
    }
}
both_precisions!(nan_in_the_middle_of_a_row, nan_in_the_middle);

fn all_nan<T: NoiseFloat>() {
    let w = [0.0f32, 0.0, 0.0];
    let inv_q = [T::INFINITY; 3];
    assert_eq!(pick(&w, &inv_q, NanPolicy::FirstNanWins), Ok((0, Some(1))));
    // vLLM's C++ kernel never updates from its start: token 0.
    assert_eq!(pick(&w, &inv_q, NanPolicy::NanNeverWins), Ok((0, Some(1))));
    assert!(matches!(
        pick(&w, &inv_q, NanPolicy::Reject),
        Err(Error::NanScore { index: 0, .. })
    ));
}
both_precisions!(all_nan_row, all_nan);

fn nan_noise_and_later_nans<T: NoiseFloat>() {
    // A NaN in the noise itself, then a second NaN: the first NaN wins under torch.
    let w = [1.0f32, 1.0, 1.0, 0.5];
    let inv_q = [T::from_f64(2.0), T::NAN, T::NAN, T::from_f64(8.0)];
    assert_eq!(pick(&w, &inv_q, NanPolicy::FirstNanWins), Ok((1, Some(2))));
    assert_eq!(pick(&w, &inv_q, NanPolicy::NanNeverWins), Ok((3, Some(0))));
}
both_precisions!(nan_noise_then_more_nans, nan_noise_and_later_nans);

fn infinities_and_ties<T: NoiseFloat>() {
    for p in NanPolicy::ALL {
        // An infinite score wins; two infinite scores tie and the smaller id wins.
        let w = [0.1f32, 0.9, 0.2];
        let inv_q = [T::ONE, T::INFINITY, T::INFINITY];
        assert_eq!(pick(&w, &inv_q, p), Ok((1, Some(2))), "{p}");
        // Exact ties of finite scores go to the smallest index.
        let w = [0.25f32, 0.5, 0.5, 0.25];
        let inv_q = [T::from_f64(2.0), T::ONE, T::ONE, T::from_f64(2.0)];
        assert_eq!(pick(&w, &inv_q, p), Ok((0, Some(1))), "{p}");
        // A NaN-free row gives the same answer under every policy.
        let w = [0.3f32, 0.2, 0.5];
        let q = [T::from_f64(0.5), T::from_f64(0.1), T::from_f64(2.0)];
        let r = race_div(&w, &q, p).unwrap();
        assert_eq!((r.winner.token, r.runner_up.unwrap().token), (1, 0), "{p}");
    }
}
both_precisions!(infinities_and_ties_to_smallest_id, infinities_and_ties);

fn div_by_zero_noise<T: NoiseFloat>() {
    // w / q with q = 0: weight > 0 scores inf, weight 0 scores NaN.
    let w = [0.0f32, 0.4, 0.6];
    let q = [T::ZERO, T::ZERO, T::ONE];
    let r = race_div(&w, &q, NanPolicy::NanNeverWins).unwrap();
    assert_eq!(r.winner.token, 1);
    assert!(r.winner.score.is_infinite());
    let r = race_div(&w, &q, NanPolicy::FirstNanWins).unwrap();
    assert_eq!(r.winner.token, 0);
    assert!(r.winner.score.is_nan());
}
both_precisions!(q_zero_overflow, div_by_zero_noise);
