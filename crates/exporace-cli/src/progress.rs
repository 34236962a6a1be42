//! Progress bars on stderr for long work (drawn only when stderr is a
//! terminal, so piped output and tests stay clean).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps with `template` (indicatif's syntax), or a hidden one
/// when `show` is false.
pub fn bar(len: u64, template: &str, show: bool) -> ProgressBar {
    let bar = if show {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
