//! Any bytes as a safetensors dump: a typed error, or tensors that load as a
//! dump and validate or fail with a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(tensors) = exporace_io::read_safetensors("fuzz.safetensors", data) {
        if let Ok(dump) = exporace_io::Dump::from_tensors("fuzz", &tensors) {
            if dump.validate().is_ok() {
                let _ = exporace::recover_tokens(
                    &dump.batch(),
                    &dump.inv_q,
                    exporace::NanPolicy::NanNeverWins,
                );
            }
        }
    }
});
