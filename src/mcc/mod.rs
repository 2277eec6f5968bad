//! The Model Checking Contest: its vocabulary ([`answer`]), its instance folders and BenchKit
//! environment ([`instance`]), and answering an examination ([`examine`](mod@examine)).
//!
//! `unfold mcc` is a thin shell over this module: it reads the net, calls [`examine::examine`]
//! and prints the answer lines on standard output and the notes on standard error.

pub mod answer;
pub mod examine;
pub mod instance;

pub use answer::Examination;
pub use examine::{Answer, DeadlockMethod, Options, examine, examine_with};
