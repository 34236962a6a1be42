//! The random rows the kernel tests race: lengths around lane, block and
//! chunk edges, each kind of weights, and a row scanned in chunks and
//! merged; and the macro that runs a generic check at both precisions.

use alloc::vec::Vec;

use crate::arch::common::sizes::BLOCK;
use crate::float::NoiseFloat;
use crate::kernel::inputs::Inputs;
use crate::kernel::row::scan;
use crate::kernel::scan::Scan;
use crate::kernel::split::{Cost, split_into};
use crate::kernel::weights::Weights;
use crate::test_inputs::Mix;

/// The tokens of one job of a race over f32 noise.
pub(super) const CHUNK: usize = Cost::scan(32).chunk();

/// A random row: lengths around lane, block and chunk edges.
pub(super) struct Row<T> {
    pub(super) p: Vec<f32>,
    pub(super) d: Vec<f32>,
    pub(super) noise: Vec<T>,
    pub(super) zero: Option<usize>,
}

pub(super) fn row<T: NoiseFloat>(mix: &mut Mix) -> Row<T> {
    let n = match mix.below(4) {
        0 => 1 + mix.below(40) as usize,
        1 => BLOCK * (1 + mix.below(4) as usize) + mix.below(3) as usize - 1,
        _ => 1 + mix.below(3 * BLOCK as u64) as usize,
    };
    let shape = mix.below(12);
    let special = mix.below(3) == 0;
    let p = (0..n).map(|i| mix.weight(i, shape)).collect();
    let d = (0..n).map(|i| mix.weight(i, shape + 3)).collect();
    let noise = (0..n).map(|_| mix.noise(special)).collect();
    let zero = (mix.below(2) == 0).then(|| mix.below(n as u64) as usize);
    Row { p, d, noise, zero }
}

pub(super) fn kinds<'a, T>(r: &'a Row<T>) -> [Weights<'a>; 3] {
    [
        Weights::Plain(&r.p),
        Weights::Residual { p: &r.p, d: &r.d },
        Weights::Zeroed {
            p: &r.p,
            zero: r.zero,
        },
    ]
}

/// [`scan`] of a row in chunks of `chunk` tokens, merged.
pub(super) fn scan_chunks<T: NoiseFloat>(inputs: Inputs<'_, T>, chunk: usize) -> Scan<T> {
    split_into(inputs.noise.len(), chunk, |c| {
        scan(inputs.range(c.clone()), c.start)
    })
}

#[path = "both_precisions.rs"]
mod precisions;
pub(crate) use precisions::both_precisions;
