//! The study layer's import structure: the core's check, run on this crate's
//! `src/`.

#[path = "../../exporace/tests/import_structure.rs"]
mod import_structure;
