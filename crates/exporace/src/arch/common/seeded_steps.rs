//! What the fused seeded race's filters search: a chunk's whole steps of
//! weights with the address of their noise ([`Steps`]), and the bound a
//! quiet step meets, `w * MARGIN <= bar * u` ([`MARGIN`]; on 32-bit words,
//! [`word_scale`]).

use super::sizes::LANES;
use crate::philox::key;
use crate::stream::Stream;

/// `1 + 2^-19`: the bound's margin over `w / u`.
pub(crate) const MARGIN: f64 = 1.0 + 1.0 / (1u64 << 19) as f64;

/// A chunk's whole steps of weights and the address of their noise: step
/// `s` holds tokens `first + s * LANES` on, whose noise
/// is that of (seed, stream, row, token). What the searches for the next
/// step that may change the standings take.
#[derive(Clone, Copy)]
pub(crate) struct Steps<'a> {
    /// The weights, a step of [`LANES`] each.
    pub(crate) weights: &'a [[f32; LANES]],
    /// The noise's seed.
    pub(crate) seed: u64,
    /// The noise's stream.
    pub(crate) stream: Stream,
    /// The noise's row.
    pub(crate) row: u64,
    /// The first token of step 0.
    pub(crate) first: usize,
}

impl Steps<'_> {
    /// Step 0's Philox address: the first token's counter word, the
    /// counter's other three words and the key. Token `first + t`'s block
    /// is `philox4x32_10([counter + t, words...], key)` (`+` wrapping).
    #[inline(always)]
    pub(crate) fn philox(&self) -> (u32, [u32; 3], [u32; 2]) {
        let row = self.row;
        (
            self.first as u32,
            [row as u32, self.stream as u32, (row >> 32) as u32],
            key(self.seed),
        )
    }
}

#[cfg(test)]
impl<'a> Steps<'a> {
    /// The steps of `weights` at the noise address `(seed, stream, row,
    /// first)` (as `test_inputs::Mix::noise_address` draws one).
    pub(crate) fn at(
        weights: &'a [[f32; LANES]],
        (seed, stream, row, first): (u64, Stream, u64, usize),
    ) -> Self {
        Steps {
            weights,
            seed,
            stream,
            row,
            first,
        }
    }
}

/// `(1 + 2^-17) 2^32 / bar` rounded up to f32, for a bar above `+0.0`
/// (`None` for `+0.0`, `-0.0` or a NaN bar): the scale of the word filters' bounds.
#[inline]
#[allow(
    dead_code,
    reason = "the word filters' scale, where an instruction set has one"
)]
pub(crate) fn word_scale(bar: f64) -> Option<f32> {
    /// `(1 + 2^-17) 2^32`, exact in f64.
    const LIFT: f64 = 4_294_967_296.0 + 32_768.0;
    (bar > 0.0).then(|| {
        let c = LIFT / bar;
        let up = c as f32;
        if f64::from(up) < c { up.next_up() } else { up }
    })
}
