//! Any bytes as a `.npy` file: a typed error or a tensor that writes back to
//! the same elements.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = exporace_io::read_npy("fuzz.npy", data) {
        let bytes = exporace_io::write_npy(&t).expect("a tensor read back is writable");
        let back = exporace_io::read_npy("again.npy", &bytes).expect("written bytes read back");
        assert_eq!(back.shape, t.shape);
        assert_eq!(back.data.to_le_bytes(), t.data.to_le_bytes());
    }
});
