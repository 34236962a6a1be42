//! The exact computation for a model chosen at run time: by a visitor
//! ([`WinProbabilityVisitor`]) or by catalogue entry
//! ([`win_probabilities_of`]).

use super::answer::WinProbabilities;
use super::group::Group;
use super::options::ExactOptions;
use super::solver::win_probabilities;
use crate::models::{CatalogueEntry, ModelVisitor, NoiseModel};
use exporace::Result;

/// [`win_probabilities`] for a model chosen at run time.
///
/// No example: the visitor behind [`win_probabilities_of`], which has one.
#[derive(Clone, Copy, Debug)]
pub struct WinProbabilityVisitor<'a> {
    /// The groups.
    pub groups: &'a [Group],
    /// The options.
    pub options: ExactOptions,
}

impl ModelVisitor for WinProbabilityVisitor<'_> {
    type Output = Result<WinProbabilities>;
    fn visit<M: NoiseModel>(self, model: &M) -> Self::Output {
        win_probabilities(model, self.groups, &self.options)
    }
}

/// [`win_probabilities`] for a catalogue model at its own precision.
///
/// ```
/// use exporace_study::models::CatalogueEntry;
/// use exporace_study::win_probability::{ExactOptions, Group, win_probabilities_of};
/// let ideal = CatalogueEntry::find("ideal").unwrap();
/// let p = win_probabilities_of(ideal, &[Group::new(3.0, 1), Group::new(1.0, 1)], &ExactOptions::default())?;
/// assert_eq!(p.model, "ideal");
/// assert!((p.groups[0].probability - 0.75).abs() < 1e-12);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn win_probabilities_of(
    entry: &CatalogueEntry,
    groups: &[Group],
    options: &ExactOptions,
) -> Result<WinProbabilities> {
    entry.visit(
        None,
        WinProbabilityVisitor {
            groups,
            options: *options,
        },
    )?
}
