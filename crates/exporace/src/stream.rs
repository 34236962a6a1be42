//! The random streams of one seed: the third word of every Philox counter
//! the crate draws, re-exported as `noise::Stream`.

/// Independent random streams of one seed, so that the noise of a race, the
/// acceptance uniforms and the bonus draws never share bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Stream {
    /// Exp(1) noise of a race (recovered tokens: row = request).
    Race = 0,
    /// Acceptance uniforms of rejection sampling (row 0, token = draft position).
    Accept = 1,
    /// Exp(1) noise of bonus-token races (row = request).
    Bonus = 2,
    /// Noise for drawing draft tokens in experiments (row = trial).
    Draft = 3,
}
