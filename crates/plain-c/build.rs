//! Compiles the plain C peers as C is usually built for speed: `-O3
//! -march=native`.

fn main() {
    println!("cargo:rerun-if-changed=c/plain.c");
    cc::Build::new()
        .file("c/plain.c")
        .opt_level(3)
        .flag("-march=native")
        .flag("-std=c11")
        .warnings(true)
        .compile("exporace_plain_c");
}
