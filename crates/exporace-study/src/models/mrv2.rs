//! vLLM Model Runner V2's Philox addressing: the per-position key
//! `tl.randint(seed, pos)`, salted for drafts, and its f32 uniform.

use exporace::philox;

/// The salt MRV2 adds to a draft token's position (#54282).
pub const MRV2_DRAFT_SALT: u64 = 1 << 30;

/// MRV2's per-position key `tl.randint(seed, pos)`, salted for drafts.
pub fn mrv2_key(seed: u64, pos: u64, draft: bool) -> u32 {
    let pos = if draft {
        pos.wrapping_add(MRV2_DRAFT_SALT)
    } else {
        pos
    };
    philox::randint(seed, pos)
}

/// MRV2's uniform `tl.rand(tl.randint(seed, pos), token)` in f32.
pub fn mrv2_uniform(seed: u64, pos: u64, draft: bool, token: u32) -> f32 {
    philox::rand(mrv2_key(seed, pos, draft) as u64, token as u64)
}
