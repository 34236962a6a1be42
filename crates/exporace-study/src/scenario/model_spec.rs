//! A model named in a scenario, resolved through the catalogue.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;

use crate::models::{CATALOGUE, CatalogueEntry, ModelVisitor};
use exporace::{Error, Precision, Result};

/// A model named in a scenario: `"torch-cuda-f32"`, or
/// `{"model": "triton-flipped", "precision": "f64"}` to run a recipe at the
/// other precision.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ModelSpec {
    /// A catalogue name at its engine's precision.
    Name(String),
    /// A catalogue name at a chosen precision.
    Full {
        /// Catalogue name.
        model: String,
        /// Precision (default: the engine's).
        #[serde(default)]
        precision: Option<Precision>,
    },
}

impl ModelSpec {
    fn resolve(&self) -> Result<(&'static CatalogueEntry, Option<Precision>)> {
        let (name, precision) = match self {
            ModelSpec::Name(n) => (n.as_str(), None),
            ModelSpec::Full { model, precision } => (model.as_str(), *precision),
        };
        let entry = CatalogueEntry::find(name).ok_or_else(|| {
            let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
            Error::Scenario(alloc::format!(
                "unknown model {name:?}; the catalogue has {}",
                names.join(", ")
            ))
        })?;
        Ok((entry, precision))
    }

    /// Runs `v` on the model this names.
    pub fn visit<V: ModelVisitor>(&self, v: V) -> Result<V::Output> {
        let (entry, precision) = self.resolve()?;
        entry.visit(precision, v)
    }
}
