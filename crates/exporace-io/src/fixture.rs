//! Regression fixtures: a dump's inputs as `.npy` files and the expected
//! outputs for each noise precision and NaN policy, listed in a JSON
//! manifest (`fixture.json`), so that an engine's test suite can load them
//! with `numpy.load` and compare; and the check of any fixture, of a dump
//! or of a scenario. The format is documented in `docs/fixtures.md`.

use std::path::Path;

use serde_json::Value;

pub use crate::dump_fixture::{FORMAT_VERSION, MANIFEST, request, write_fixture};
use crate::error::{IoError, Result};
use crate::{dump_fixture, limited_read, scenario_fixture};

/// Loads a fixture (of a dump or of a scenario), recomputes every expected
/// output with this build of exporace and returns the differences (empty
/// when the fixture holds).
///
/// No example: it reads files written by [`write_fixture`] or `exporace fixture`, which runs it on every fixture it writes.
pub fn check_fixture(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join(MANIFEST);
    let name = path.display().to_string();
    let text = limited_read::read_text_limited(
        &path,
        limited_read::MAX_FILE_BYTES,
        limited_read::MAX_STREAM_BYTES,
    )?;
    let m: Value = serde_json::from_str(&text).map_err(|e| IoError::Json {
        name: name.clone(),
        detail: e.to_string(),
    })?;
    let mut diffs = Vec::new();
    if m.get("scenario").is_some() {
        diffs.extend(scenario_fixture::check(dir, &m)?);
    }
    diffs.extend(dump_fixture::check(dir, &m, name)?);
    Ok(diffs)
}
