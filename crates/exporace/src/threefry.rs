//! Threefry-2x32 with 20 rounds, the counter-based generator of Random123
//! (Salmon, Moraes, Dror and Shaw, 2011) that JAX (`threefry2x32_p`) and MLX
//! (`random::threefry2x32_hash`) key with a seed.
//!
//! A block is a pure function of a 64-bit key and a 64-bit counter, each as
//! two 32-bit words: five groups of four rounds (add, rotate, xor) with the
//! key schedule injected after each group. The engines lay their arrays of
//! random words over counters differently; those layouts are the study
//! layer's (`exporace_study::models`).

/// The rotations of the rounds, alternating by group of four.
const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];

/// Threefish's key-schedule parity constant for 32-bit words.
pub const PARITY: u32 = 0x1BD1_1BDA;

/// One Threefry-2x32-20 block: the two words for `counter` under `key`.
///
/// Random123's known-answer vectors (`kat_vectors`, also JAX's
/// `testThreefry2x32`, as `(counter, key) -> output`):
///
/// ```
/// use exporace::threefry::threefry2x32;
/// assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
/// let max = [u32::MAX; 2];
/// assert_eq!(threefry2x32(max, max), [0x1cb9_96fc, 0xbb00_2be7]);
/// let (key, counter) = ([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]);
/// assert_eq!(threefry2x32(key, counter), [0xc492_3a9c, 0x483d_f7a0]);
/// ```
#[inline(always)]
pub const fn threefry2x32(key: [u32; 2], counter: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ PARITY];
    let mut x0 = counter[0].wrapping_add(ks[0]);
    let mut x1 = counter[1].wrapping_add(ks[1]);
    let mut group = 0;
    while group < 5 {
        let rotations = ROTATIONS[group % 2];
        let mut r = 0;
        while r < 4 {
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(rotations[r]) ^ x0;
            r += 1;
        }
        x0 = x0.wrapping_add(ks[(group + 1) % 3]);
        x1 = x1
            .wrapping_add(ks[(group + 2) % 3])
            .wrapping_add(group as u32 + 1);
        group += 1;
    }
    [x0, x1]
}

/// The key JAX (`jax.random.key(seed)`, `threefry_seed`) and MLX
/// (`mx.random.key(seed)`) make of a 64-bit seed: its high word, then its
/// low word.
///
/// ```
/// use exporace::threefry::seed_key;
/// assert_eq!(seed_key(42), [0, 42]);
/// assert_eq!(seed_key(0x1234_5678_9abc_def0), [0x1234_5678, 0x9abc_def0]);
/// ```
#[inline(always)]
pub const fn seed_key(seed: u64) -> [u32; 2] {
    [(seed >> 32) as u32, seed as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's `threefry2x32_20` known answers, each as
    /// `(counter, key, output)`, from the `kat_vectors` file of its tests.
    const KAT: [([u32; 2], [u32; 2], [u32; 2]); 3] = [
        ([0, 0], [0, 0], [0x6b20_0159, 0x99ba_4efe]),
        (
            [0xffff_ffff, 0xffff_ffff],
            [0xffff_ffff, 0xffff_ffff],
            [0x1cb9_96fc, 0xbb00_2be7],
        ),
        (
            [0x243f_6a88, 0x85a3_08d3],
            [0x1319_8a2e, 0x0370_7344],
            [0xc492_3a9c, 0x483d_f7a0],
        ),
    ];

    #[test]
    fn random123_known_answers() {
        for (counter, key, output) in KAT {
            assert_eq!(threefry2x32(key, counter), output);
        }
    }

    /// The block is a `const fn`: keys and tables can be computed at compile time.
    #[test]
    fn evaluates_in_const_context() {
        const BLOCK: [u32; 2] = threefry2x32([0, 0], [0, 0]);
        assert_eq!(BLOCK, KAT[0].2);
    }
}
