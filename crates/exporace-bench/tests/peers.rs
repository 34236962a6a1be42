//! The references of the benchmarks compute what the kernels compute: the
//! plain scalar loop, the plain C peer and exporace's `recover_tokens` pick
//! the same token at every draft position, with and without draft
//! probabilities, so their timings compare the same work.

use exporace::{NanPolicy, recover_tokens};
use exporace_bench::{PlainC, Recover};

fn same_tokens<T: PlainC>() {
    let cases = [(1, 1000), (3, 32_000)].into_iter().flat_map(|(b, v)| {
        [
            Recover::<T>::new(b, v),
            Recover::<T>::with_draft_probs(b, v),
        ]
    });
    for case in cases {
        let (b, v) = (case.cu.len(), case.v);
        let kernel: Vec<usize> =
            recover_tokens(&case.batch(), &case.inv_q, NanPolicy::FirstNanWins)
                .unwrap()
                .iter()
                .map(|r| r.winner.token)
                .collect();
        let name = format!(
            "{} B{b} V{v} drafts {}",
            T::PRECISION,
            case.draft_probs.is_some()
        );
        assert_eq!(case.scalar(), kernel, "{name}");
        assert_eq!(case.plain_c(), kernel, "{name}");
        // A case whose draft probabilities change no winner would not
        // measure the residual.
        if case.draft_probs.is_some() {
            let plain = Recover::<T>::new(b, v);
            assert_ne!(plain.scalar(), kernel, "{name}");
        }
    }
}

#[test]
fn scalar_plain_c_and_kernel_agree_in_f32() {
    same_tokens::<f32>();
}

#[test]
fn scalar_plain_c_and_kernel_agree_in_f64() {
    same_tokens::<f64>();
}
