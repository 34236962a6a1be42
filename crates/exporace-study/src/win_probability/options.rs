//! How hard the exact computation works ([`ExactOptions`]).

use exporace::{Error, Result};

/// How hard to work.
///
/// No example: two limits with defaults (tolerance 1e-12, 4096 points); `win_probabilities` uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactOptions {
    /// Stop refining a group once its brackets add up to at most this.
    pub tolerance: f64,
    /// The most points placed on one group's range (each costs a few
    /// bisections per group).
    pub max_nodes: usize,
}

impl ExactOptions {
    /// Refuses a tolerance that is negative or NaN and fewer than 2 points
    /// (a group's range has two ends), naming the field.
    ///
    /// ```
    /// use exporace::Error;
    /// use exporace_study::win_probability::ExactOptions;
    /// assert!(ExactOptions { tolerance: 0.0, max_nodes: 2 }.check().is_ok());
    /// let o = ExactOptions { tolerance: -1.0, ..ExactOptions::default() };
    /// assert!(matches!(o.check(), Err(Error::BadArgument { name: "tolerance", .. })));
    /// let o = ExactOptions { max_nodes: 0, ..ExactOptions::default() };
    /// assert!(matches!(o.check(), Err(Error::BadArgument { name: "max_nodes", .. })));
    /// ```
    pub fn check(&self) -> Result<()> {
        if self.tolerance.is_nan() || self.tolerance < 0.0 {
            return Err(Error::BadArgument {
                name: "tolerance",
                value: exporace::ArgValue::Float(self.tolerance),
                rule: "it must be a number of at least 0",
            });
        }
        if self.max_nodes < 2 {
            return Err(Error::BadArgument {
                name: "max_nodes",
                value: exporace::ArgValue::Int(self.max_nodes as u64),
                rule: "it must be at least 2 (each group's range has two ends)",
            });
        }
        Ok(())
    }
}

impl Default for ExactOptions {
    /// Tolerance 1e-12, at most 4096 points per group.
    fn default() -> Self {
        ExactOptions {
            tolerance: 1e-12,
            max_nodes: 4096,
        }
    }
}
