//! Progress bars on standard error.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-counting progress bar on stderr, drawn only when stderr is a terminal.
pub fn bytes_bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Turns `bar` (a [`bytes_bar`]) into a count of events without a total:
/// how an OTF2 archive's conversion tells its progress
/// ([`mpelog::trace::Step::Events`]).
pub fn count_events(bar: &ProgressBar, at: u64) {
    if bar.length().is_some() {
        bar.set_style(
            ProgressStyle::with_template("{msg}: {human_pos} events").expect("valid template"),
        );
        bar.unset_length();
    }
    bar.set_position(at);
}
