//! The checks before any arithmetic: the work a call may take and the
//! groups it is given.

use super::group::Group;
use super::options::ExactOptions;
use exporace::{Error, Position, Result, ValueProblem};

/// The most work one call may take: groups x rivals x points, each point a
/// bisection per rival (2^24, some seconds natively).
pub const MAX_WORK: u64 = 1 << 24;

/// Refuses options that [`ExactOptions::check`] refuses, and a call whose
/// work, `groups^2 x max_nodes`, passes [`MAX_WORK`]:
/// 64 groups at the default 4096 points is the most. Groups of equal weight
/// merge into one (a multiplicity), which costs what one group does.
///
/// ```
/// use exporace::Error;
/// use exporace_study::win_probability::{ExactOptions, check_work};
/// let o = ExactOptions::default(); // 4096 points: 64^2 * 4096 = 2^24
/// assert!(check_work(64, &o).is_ok());
/// assert!(matches!(check_work(65, &o), Err(Error::TooLarge { size: 17_305_600, .. })));
/// ```
pub fn check_work(groups: usize, options: &ExactOptions) -> Result<()> {
    options.check()?;
    let g = groups as u64;
    let work = g
        .saturating_mul(g)
        .saturating_mul(options.max_nodes.max(2) as u64);
    if work > MAX_WORK {
        return Err(Error::TooLarge {
            what: "exact work (groups^2 x max_nodes; merge groups of equal weight)",
            size: work,
            limit: MAX_WORK,
        });
    }
    Ok(())
}

/// Checks groups: finite non-negative weights, at least one positive, counts
/// of at least 1.
///
/// ```
/// use exporace::Error;
/// use exporace_study::win_probability::{Group, validate_groups};
/// assert!(validate_groups(&[Group::new(0.0, 2), Group::new(1.0, 1)]).is_ok());
/// assert!(matches!(validate_groups(&[Group::new(1.0, 0)]), Err(Error::ZeroMultiplicity { index: 0 })));
/// assert!(matches!(validate_groups(&[Group::new(0.0, 1)]), Err(Error::AllZeroWeights)));
/// ```
pub fn validate_groups(groups: &[Group]) -> Result<()> {
    if groups.is_empty() {
        return Err(Error::EmptyVocab);
    }
    for (index, g) in groups.iter().enumerate() {
        let problem = if g.weight.is_nan() {
            Some(ValueProblem::Nan)
        } else if g.weight.is_infinite() {
            Some(ValueProblem::Infinite)
        } else if g.weight < 0.0 {
            Some(ValueProblem::Negative)
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::BadValue {
                tensor: "group weights",
                at: Position { index, row_len: 0 },
                value: g.weight,
                problem,
            });
        }
        if g.count == 0 {
            return Err(Error::ZeroMultiplicity { index });
        }
    }
    if groups.iter().all(|g| g.weight == 0.0) {
        return Err(Error::AllZeroWeights);
    }
    Ok(())
}
