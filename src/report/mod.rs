//! Reports: statistics (human and JSON), and the progress display.

pub mod contextual_dot;
pub mod dot;
pub mod dot_style;
pub mod interleaving;
pub mod mci;
pub mod occurrence_dot;
pub mod progress;
pub mod stats;
