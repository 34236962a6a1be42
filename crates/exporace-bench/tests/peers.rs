//! The references of the benchmarks compute what the kernels compute: the
//! plain scalar loop, the plain C peer and exporace's `recover_tokens` pick
//! the same token at every draft position, so their timings compare the same
//! work.

use exporace::{NanPolicy, recover_tokens};
use exporace_bench::{PlainC, Recover};

fn same_tokens<T: PlainC>() {
    for (b, v) in [(1, 1000), (3, 32_000)] {
        let case = Recover::<T>::new(b, v);
        let kernel: Vec<usize> =
            recover_tokens(&case.batch(), &case.inv_q, NanPolicy::FirstNanWins)
                .unwrap()
                .iter()
                .map(|r| r.winner.token)
                .collect();
        assert_eq!(case.scalar(), kernel, "{} B{b} V{v}", T::PRECISION);
        assert_eq!(case.plain_c(), kernel, "{} B{b} V{v}", T::PRECISION);
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
