//! No code of its own: this crate exists to use `exporace` from outside the
//! repository's workspace. Its tests are in `tests/vllm_rows.rs`.

#![no_std]
