//! The plain C peers of the exporace benchmarks, compiled by `build.rs` with
//! `-O3 -march=native`: the kernels as they are usually written (one
//! index-tracking loop; scalar `logf` noise), so the benchmarks can state
//! exporace's speed as a ratio to plain C measured in the same run.
//!
//! ```
//! let p = [0.1f32, 0.5, 0.4];
//! let inv_q = [1.0f32, 1.0, 2.0];
//! // Token 2 scores 0.8; token 1 is the draft, zeroed.
//! assert_eq!(plain_c::recover_row_f32(&p, &inv_q, 1), 2);
//! ```

#![no_std]

unsafe extern "C" {
    fn plain_recover_row_f32(p: *const f32, inv_q: *const f32, v: i64, draft: i64) -> i64;
    fn plain_recover_row_f64(p: *const f32, inv_q: *const f64, v: i64, draft: i64) -> i64;
    fn plain_residual_row_f32(p: *const f32, d: *const f32, inv_q: *const f32, v: i64) -> i64;
    fn plain_residual_row_f64(p: *const f32, d: *const f32, inv_q: *const f64, v: i64) -> i64;
    fn plain_noise_f32(seed: u64, out: *mut f32, v: i64);
    fn plain_noise_f64(seed: u64, out: *mut f64, v: i64);
}

/// The length both slices share; panics when they differ.
fn common(a: usize, b: usize) -> i64 {
    assert_eq!(a, b, "plain-c: slices of different lengths");
    a as i64
}

/// `argmax_i w_i * inv_q_i` in f32 with `w = p` but `w[draft] = 0`; ties to
/// the first. Panics when the lengths differ.
pub fn recover_row_f32(p: &[f32], inv_q: &[f32], draft: usize) -> usize {
    let v = common(p.len(), inv_q.len());
    // SAFETY: both pointers are valid for `v` reads; the C code reads
    // indices 0..v only.
    unsafe { plain_recover_row_f32(p.as_ptr(), inv_q.as_ptr(), v, draft as i64) as usize }
}

/// [`recover_row_f32`] with f64 noise (the weight widened, the score in f64).
pub fn recover_row_f64(p: &[f32], inv_q: &[f64], draft: usize) -> usize {
    let v = common(p.len(), inv_q.len());
    // SAFETY: as in `recover_row_f32`.
    unsafe { plain_recover_row_f64(p.as_ptr(), inv_q.as_ptr(), v, draft as i64) as usize }
}

/// `argmax_i w_i * inv_q_i` in f32 with the residual `w = max(p - d, 0)`
/// (in f32); ties to the first. Panics when the lengths differ.
pub fn residual_row_f32(p: &[f32], d: &[f32], inv_q: &[f32]) -> usize {
    let v = common(p.len(), inv_q.len());
    common(d.len(), inv_q.len());
    // SAFETY: the three pointers are valid for `v` reads; the C code reads
    // indices 0..v only.
    unsafe { plain_residual_row_f32(p.as_ptr(), d.as_ptr(), inv_q.as_ptr(), v) as usize }
}

/// [`residual_row_f32`] with f64 noise (the f32 residual widened, the score
/// in f64).
pub fn residual_row_f64(p: &[f32], d: &[f32], inv_q: &[f64]) -> usize {
    let v = common(p.len(), inv_q.len());
    common(d.len(), inv_q.len());
    // SAFETY: as in `residual_row_f32`.
    unsafe { plain_residual_row_f64(p.as_ptr(), d.as_ptr(), inv_q.as_ptr(), v) as usize }
}

/// Fills `out` with `1 / E`, `E = -logf(u)` for 24-bit uniforms `u` in
/// (0, 1] from splitmix64 seeded with `seed`.
pub fn noise_f32(seed: u64, out: &mut [f32]) {
    // SAFETY: the pointer is valid for `out.len()` writes.
    unsafe { plain_noise_f32(seed, out.as_mut_ptr(), out.len() as i64) }
}

/// [`noise_f32`] with 53-bit uniforms and `log` in f64.
pub fn noise_f64(seed: u64, out: &mut [f64]) {
    // SAFETY: the pointer is valid for `out.len()` writes.
    unsafe { plain_noise_f64(seed, out.as_mut_ptr(), out.len() as i64) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ties_go_to_the_first_and_the_draft_is_zeroed() {
        let p = [0.5f32, 0.5, 0.9];
        assert_eq!(super::recover_row_f32(&p, &[1.0, 1.0, 1.0], 2), 0);
        assert_eq!(super::recover_row_f64(&p, &[1.0, 1.0, 1.0], 0), 2);
    }

    #[test]
    fn the_residual_is_clamped_at_zero_and_ties_go_to_the_first() {
        // Residuals 0.25, 0 (clamped from -0.5), 0.25 and 0.5.
        let p = [0.5f32, 0.25, 0.5, 0.75];
        let d = [0.25f32, 0.75, 0.25, 0.25];
        assert_eq!(super::residual_row_f32(&p, &d, &[2.0, 1.0, 2.0, 1.0]), 0);
        assert_eq!(super::residual_row_f64(&p, &d, &[1.0, 1e30, 1.0, 1.0]), 3);
        // Every residual 0: every score is 0, and the first token wins.
        assert_eq!(super::residual_row_f32(&d[1..2], &p[1..2], &[1.0]), 0);
    }

    #[test]
    fn noise_is_positive_and_finite() {
        let mut a = [0f32; 1000];
        let mut b = [0f64; 1000];
        super::noise_f32(1, &mut a);
        super::noise_f64(1, &mut b);
        // 1 / -log(u) with u in (0, 1]: u = 1 gives +inf, which 2^-24 per
        // draw makes unlikely in 1000 draws (about 6e-5).
        assert!(a.iter().all(|&x| x > 0.0 && x.is_finite()));
        assert!(b.iter().all(|&x| x > 0.0 && x.is_finite()));
    }
}
