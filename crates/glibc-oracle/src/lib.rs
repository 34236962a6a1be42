//! glibc's `log1p`, called through the C ABI, as the oracle for what PyTorch's
//! CPU `exponential_` computes. Linux only: on other targets the crate is empty.

#![no_std]
#![cfg(target_os = "linux")]

unsafe extern "C" {
    #[link_name = "log1p"]
    safe fn glibc_log1p(x: f64) -> f64;
}

/// glibc's `log1p(x)` (the C library the process links, `libm.so.6`).
pub fn log1p(x: f64) -> f64 {
    glibc_log1p(x)
}
