//! Precision forensics: why two pipelines disagree, where noise overflowed,
//! and which tokens a model can never let win.

mod dead_zone;
pub mod exact_score;
mod flip;
mod model_compare;
mod overflow;

pub use dead_zone::{DeadGroups, DeadZone, dead_zone, dead_zone_groups};
pub use flip::{DifferingToken, FlipReport, compare, compare_cast, compare_on_reference};
pub use model_compare::compare_models;
pub use overflow::{OverflowEntry, OverflowReport, overflow_anatomy, overflow_entries};
