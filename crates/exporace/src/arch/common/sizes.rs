//! The sizes the kernels work in: lanes, blocks, spans and groups of rows.

/// Lanes of one explicit SIMD step: 16 f32 scores fill one AVX-512 register,
/// two AVX2 registers or four SSE2 / SIMD128 registers.
pub(crate) const LANES: usize = 16;

/// Tokens per filter block: large enough to amortise a check of the bar, small
/// enough that a rescan re-reads it from L1.
pub(crate) const BLOCK: usize = 512;

/// Tokens per span: the group pass and the span keys take one key per span
/// and row (two blocks), so that a pass's fixed cost (the bars, four
/// verdicts) is spread over many tokens.
pub(crate) const SPAN: usize = 2 * BLOCK;

/// Rows scanned together by the group pass.
pub(crate) const GROUP: usize = 4;
