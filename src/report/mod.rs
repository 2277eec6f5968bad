//! Reports: statistics (human and JSON), and the progress display.

pub mod progress;
pub mod stats;
