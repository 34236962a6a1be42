//! The instruction-set steps of the kernels, one folder per instruction
//! set, and the one choice among them.
//!
//! - `common`: what the steps and the kernels share (sizes, weights,
//!   bounds, the drivers over a set's steps), importing nothing above it;
//! - `generic`: plain Rust lanes, every step (always compiled);
//! - `x86_64::avx2`: 256-bit registers (builds with `avx2`, not AVX-512);
//! - `x86_64::avx512`: 512-bit registers (builds with `avx512f`,
//!   `avx512dq` and `avx512vl`);
//! - `wasm32::simd128`: WebAssembly's 128-bit SIMD.
//!
//! A folder holds the steps it supplies under the same file and function
//! names as `generic`, and its `mod.rs` names the whole set, taking the
//! generic steps it does not supply. The choice is made once, here, from
//! the build's target features: a build runs one instruction set, and each
//! of its steps gives the generic step's bits (`crate::arch_tests`).

pub(crate) mod common;
#[allow(
    dead_code,
    unused_imports,
    reason = "the steps this build's instruction set supplies go unused"
)]
pub(crate) mod generic;

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    //! x86-64's instruction sets.

    #[cfg(all(
        target_feature = "avx2",
        not(all(
            target_feature = "avx512f",
            target_feature = "avx512dq",
            target_feature = "avx512vl"
        ))
    ))]
    pub(crate) mod avx2;
    #[cfg(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))]
    pub(crate) mod avx512;
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm32 {
    //! WebAssembly's instruction sets.

    pub(crate) mod simd128;
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512dq",
    target_feature = "avx512vl"
))]
use x86_64::avx512 as isa;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(all(
        target_feature = "avx512f",
        target_feature = "avx512dq",
        target_feature = "avx512vl"
    ))
))]
use x86_64::avx2 as isa;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use wasm32::simd128 as isa;

#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "avx2"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
use generic as isa;

pub(crate) use isa::{
    JOB_PS, QUICK_FIRST, RECIP, SEARCH_CLEARING, flipped_exp_lanes, next_loud, next_loud_hashed,
    uniforms16, uniforms16_f64_fill, words16,
};
#[cfg(feature = "alloc")]
pub(crate) use isa::{PART, div_keys, group_keys, next_clearing};
