//! The sizes the kernels work in: lanes, blocks, spans, groups of rows and
//! the chunks of a split row.

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

/// Tokens per chunk of the fused seeded race on a pool of two or more
/// threads (`split::split_fine`). Its chunks share their bar (`seeded::SharedBar`), so a chunk does not
/// restart from an empty bar, and many small chunks cost about what one
/// chunk per thread does.
pub(crate) const SEEDED_CHUNK: usize = 1 << 11;
