//! A model named in a scenario, resolved through the catalogue.

use alloc::string::String;
use alloc::vec::Vec;

use core::fmt;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};

use crate::models::{CATALOGUE, CatalogueEntry, ModelVisitor};
use exporace::{Error, Precision, Result};

/// A model named in a scenario: `"torch-cuda-f32"`, or
/// `{"model": "triton-flipped", "precision": "f64"}` to run a recipe at the
/// other precision. An object with any other field is refused.
///
/// ```
/// use exporace_study::scenario::ModelSpec;
/// let full: ModelSpec = serde_json::from_str(r#"{"model": "ideal", "precision": "f64"}"#)?;
/// assert!(matches!(full, ModelSpec::Full { .. }));
/// let e = serde_json::from_str::<ModelSpec>(r#"{"model": "ideal", "x": 1}"#).unwrap_err();
/// assert!(e.to_string().contains("unknown field `x`"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ModelSpec {
    /// A catalogue name at its engine's precision.
    Name(String),
    /// A catalogue name at a chosen precision.
    Full {
        /// Catalogue name.
        model: String,
        /// Precision (default: the engine's).
        precision: Option<Precision>,
    },
}

/// The object form of [`ModelSpec`], read with unknown fields refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FullSpec {
    model: String,
    #[serde(default)]
    precision: Option<Precision>,
}

/// Reads a string or an object straight from the reader, so that an
/// object's own refusal (an unknown field, a wrong type) is the message.
impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = ModelSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a catalogue name, or {\"model\": name, \"precision\": \"f32\" or \"f64\"}",
                )
            }
            fn visit_str<E>(self, v: &str) -> core::result::Result<ModelSpec, E> {
                Ok(ModelSpec::Name(v.into()))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                map: A,
            ) -> core::result::Result<ModelSpec, A::Error> {
                let f = FullSpec::deserialize(MapAccessDeserializer::new(map))?;
                Ok(ModelSpec::Full {
                    model: f.model,
                    precision: f.precision,
                })
            }
        }
        d.deserialize_any(SpecVisitor)
    }
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
