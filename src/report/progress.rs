//! A progress line on a terminal; silent when standard error is not one.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner with a message, drawn on standard error only when it is a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A spinner, or nothing when standard error is not a terminal (or `quiet`).
    pub fn spinner(quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .expect("static template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    /// Whether anything is drawn.
    pub fn is_visible(&self) -> bool {
        self.bar.is_some()
    }

    /// Replaces the message.
    pub fn set_message(&self, msg: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_message(msg());
        }
    }

    /// Runs `f` with the spinner hidden, so that what `f` writes to the terminal is not
    /// drawn over.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the spinner from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
