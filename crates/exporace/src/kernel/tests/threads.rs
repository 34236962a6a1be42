//! The number of threads never changes a race's bits.

use alloc::vec::Vec;

use super::rows::CHUNK;
use crate::kernel::inputs::Inputs;
use crate::kernel::row::race;
use crate::kernel::weights::Weights;
use crate::policy::NanPolicy;
use crate::race::scalar;
use crate::standings::Form;
use crate::test_inputs::{Mix, key, pool};

#[test]
fn thread_count_does_not_change_bits() {
    let mut mix = Mix(77);
    let n = 5 * CHUNK + 123;
    let p: Vec<f32> = (0..n).map(|_| mix.below(8) as f32 * 0.125).collect();
    let noise: Vec<f32> = (0..n).map(|_| (mix.below(5) + 1) as f32).collect();
    let run = |threads: usize| {
        pool(threads).install(|| {
            NanPolicy::ALL.map(|policy| {
                key(
                    race(Inputs::new(Form::Mul, Weights::Plain(&p), &noise, policy))
                        .finish(|i| (p[i], noise[i] as f64)),
                )
            })
        })
    };
    let one = run(1);
    assert_eq!(run(2), one);
    for (policy, got) in NanPolicy::ALL.into_iter().zip(one) {
        assert_eq!(
            got,
            key(scalar(Form::Mul, Weights::Plain(&p), &noise, policy))
        );
    }
}
