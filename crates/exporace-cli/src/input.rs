//! The scenario text a command reads: from a file or stdin, under the
//! scenario reader's limit.

/// The scenario text of `path`, or of stdin for `-`, refused as soon as it
/// passes the scenario reader's limit (a pipe or `/dev/zero` is never held
/// in memory whole).
pub(crate) fn read_input(path: &std::path::Path) -> Result<String, String> {
    let limit = exporace_study::scenario::MAX_SCENARIO_BYTES as u64;
    let bytes = if path.as_os_str() == "-" {
        exporace_io::read_stream("stdin", std::io::stdin().lock(), limit, 0)
    } else {
        exporace_io::read_limited(path, limit, limit)
    }
    .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        let name = if path.as_os_str() == "-" {
            "stdin".to_string()
        } else {
            path.display().to_string()
        };
        format!("{name}: not UTF-8 text ({e})")
    })
}
