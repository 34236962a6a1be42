//! vLLM Model Runner V2's Philox addressing: the per-position key
//! `tl.randint(seed, pos)`, salted for drafts, its f32 uniform, and how its
//! argmax breaks ties.

use exporace::philox;
use exporace::{Error, Result};

/// The salt MRV2 adds to a draft token's position (#54282).
pub const MRV2_DRAFT_SALT: u64 = 1 << 30;

/// How Model Runner V2's argmax breaks ties between equal scores, for every
/// recipe it runs.
pub(crate) const MRV2_TIE_RULE: &str = "first maximum per block of 1024 (tl.max with indices), then the first block (torch.argmax of the block maxima)";

/// The largest position MRV2 addresses: positions are int64 in the engine,
/// and a draft's salted position must stay one (`2^63 - 1 - 2^30`).
pub const MRV2_MAX_POS: u64 = i64::MAX as u64 - MRV2_DRAFT_SALT;

/// Refuses a position past [`MRV2_MAX_POS`], where a draft's salt would
/// leave int64 (and wrap in u64 onto another position's key).
///
/// ```
/// use exporace_study::models::{MRV2_MAX_POS, check_mrv2_pos};
/// assert!(check_mrv2_pos(MRV2_MAX_POS).is_ok());
/// assert!(check_mrv2_pos(u64::MAX).is_err());
/// ```
pub fn check_mrv2_pos(pos: u64) -> Result<()> {
    if pos > MRV2_MAX_POS {
        return Err(Error::BadArgument {
            name: "pos",
            value: exporace::ArgValue::Int(pos),
            rule: "positions are int64 in the engine; with a draft's 2^30 salt the most is 2^63 - 1 - 2^30",
        });
    }
    Ok(())
}

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
