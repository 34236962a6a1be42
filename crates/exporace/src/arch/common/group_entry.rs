//! The entry point of the group pass that each instruction set exports,
//! written once: `group_keys` over a chunk, through a driver
//! (`group_span` for steps per span, `group_chunk` for steps on registers)
//! on the set's steps, and the rows it hands the drivers ([`Rows`]).

use super::sizes::GROUP;

/// The rows of a group pass over the same tokens: four rows' weight
/// inputs `p` and `d` (`d` is `p` again for plain weights) and the noise
/// row they race against.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a, T> {
    /// Each row's weights, or its target probabilities for the residual.
    pub(crate) p: [&'a [f32]; GROUP],
    /// Each row's draft probabilities for the residual, else `p` again.
    pub(crate) d: [&'a [f32]; GROUP],
    /// The noise.
    pub(crate) noise: &'a [T],
}

/// Defines `group_keys`, the group pass over a chunk through `$driver`
/// (`group_span` or `group_chunk`, as the invoking module imports it) on
/// the steps `$lanes`: each part's row keys appended to `keys`, and the
/// largest input bits kept.
macro_rules! group_keys_on {
    ($driver:ident, $lanes:ty) => {
        /// The group pass over a chunk on this instruction set's steps, through
        /// the driver its folder names.
        #[inline]
        pub(crate) fn group_keys<T: $crate::float::NoiseFloat, const NOISE_CHECK: bool>(
            p: [&[f32]; $crate::arch::common::sizes::GROUP],
            d: [&[f32]; $crate::arch::common::sizes::GROUP],
            noise: &[T],
            keys: &mut alloc::vec::Vec<[u32; $crate::arch::common::sizes::GROUP]>,
        ) -> u32 {
            let rows = $crate::arch::common::group_entry::Rows { p, d, noise };
            $driver::group_keys::<$lanes, T, NOISE_CHECK>(rows, keys)
        }
    };
}
pub(crate) use group_keys_on;
