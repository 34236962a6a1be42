//! The group pass's steps (`arch::common::group_span`) with WebAssembly's 128-bit
//! SIMD, four tokens (one vector per row) a step.
//!
//! Left to LLVM, the plain steps of 16 tokens keep the four rows' score
//! maxima in 16 vectors, with the noise and the inputs' maxima in 8 more;
//! engines map SIMD128's vectors to x86-64's 16 registers, and V8 moved
//! about 40 of them between registers and the stack at every step (its
//! code for the loop: about 160 instructions for 64 tokens of four rows).
//! In steps of 8 tokens written the same way, LLVM vectorised across steps
//! and assembled lanes with shuffles. Here a step keeps 4 maxima, the
//! inputs' maximum and the noise in registers, and V8's loop is 24
//! instructions for 16 tokens of four rows, with no stack traffic. In Node
//! (`WasmArray` inputs, calls of the two builds interleaved), recover f32 at
//! batch 1 took 0.64x as long at V 152064 and 0.74x at V 32000, f64 0.80x,
//! and f32 at batch 64 0.84x (benches/log/2026-12-benchmarks.md).
//!
//! The values are the generic steps': the same f32 products of the same
//! weights (`p`, or `max(p - d, 0)` where `NOISE_CHECK` is false) and
//! narrowed noise, and the same maxima of their bits as unsigned integers.

use core::arch::wasm32::{
    f32x4, f32x4_gt, f32x4_mul, f32x4_splat, f32x4_sub, u32x4_extract_lane, u32x4_max, v128,
    v128_and,
};

use crate::arch::common::group_entry::{Rows, group_keys_on};
use crate::arch::common::group_span::{self, SpanSteps, narrow, zip_steps};
use crate::arch::common::sizes::{GROUP, LANES, SPAN};
use crate::float::NoiseFloat;

/// Tokens per key: one per span.
pub(crate) const PART: usize = SPAN;

/// SIMD128's steps.
pub(crate) struct Lanes;

impl SpanSteps for Lanes {
    /// The generic steps over the span's tokens up to its last multiple of
    /// [`LANES`]: each row's key over them and the largest input bits kept.
    #[inline(always)]
    fn steps<T: NoiseFloat, const NOISE_CHECK: bool>(rows: Rows<'_, T>) -> ([u32; GROUP], u32) {
        let zero = f32x4_splat(0.0);
        let mut inputs = zero;
        let mut scores = [zero; GROUP];
        let noise = rows.noise;
        let stepped = Rows {
            noise: &noise[..noise.len() / LANES * LANES],
            ..rows
        };
        let [s0, s1, s2, s3] = &mut scores;
        for ((nl, ((p0, p1), (p2, p3))), ((d0, d1), (d2, d3))) in zip_steps::<T, 4>(stepped) {
            let n = quad(&core::array::from_fn(|l| narrow(nl[l])));
            let mut row = |acc: &mut v128, pl: &[f32; 4], dl: &[f32; 4], first: bool| {
                let pv = quad(pl);
                let w = if NOISE_CHECK {
                    if first {
                        inputs = u32x4_max(inputs, u32x4_max(pv, n));
                    }
                    pv
                } else {
                    let dv = quad(dl);
                    inputs = u32x4_max(inputs, u32x4_max(pv, dv));
                    // `max(p - d, 0)`: `+0.0` where the difference is not above
                    // 0, NaN included.
                    let r = f32x4_sub(pv, dv);
                    v128_and(r, f32x4_gt(r, zero))
                };
                *acc = u32x4_max(*acc, f32x4_mul(w, n));
            };
            row(s0, p0, d0, true);
            row(s1, p1, d1, false);
            row(s2, p2, d2, false);
            row(s3, p3, d3, false);
        }
        (scores.map(lanes_max), lanes_max(inputs))
    }
}

group_keys_on!(group_span, Lanes);

/// Four values as a vector.
#[inline(always)]
fn quad(x: &[f32; 4]) -> v128 {
    f32x4(x[0], x[1], x[2], x[3])
}

/// The largest of a vector's four lanes.
#[inline(always)]
pub(crate) fn lanes_max(v: v128) -> u32 {
    u32x4_extract_lane::<0>(v)
        .max(u32x4_extract_lane::<1>(v))
        .max(u32x4_extract_lane::<2>(v))
        .max(u32x4_extract_lane::<3>(v))
}
