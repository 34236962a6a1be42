//! Names the x86-64 feature sets that the core's hand-written lane modules
//! are compiled for, so each is one `cfg` in the source:
//!
//! - `x86_avx512`: the build enables `avx512f`, `avx512dq` and `avx512vl`
//!   (`philox_avx512`, `kernel::seeded_avx512`);
//! - `x86_avx2`: it enables `avx2` and not all three of those
//!   (`kernel::seeded_avx2`).
//!
//! Cargo gives build scripts the target's features (`-C target-cpu=native`
//! included) in `CARGO_CFG_TARGET_FEATURE`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(x86_avx512)");
    println!("cargo::rustc-check-cfg=cfg(x86_avx2)");
    println!("cargo::rerun-if-changed=build.rs");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |f: &str| features.split(',').any(|x| x == f);
    if arch != "x86_64" {
        return;
    }
    if has("avx512f") && has("avx512dq") && has("avx512vl") {
        println!("cargo::rustc-cfg=x86_avx512");
    } else if has("avx2") {
        println!("cargo::rustc-cfg=x86_avx2");
    }
}
