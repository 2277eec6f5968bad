//! Explorers: they know only the [`System`](crate::system::System) trait (and, for net-level
//! answers such as token bounds, the net model), never the file a model came from.

pub mod brute;
pub mod brute_program;
pub mod contextual;
pub mod edpor;
pub mod global;
pub mod limits;
pub mod prefix;
pub mod reach;
pub mod traces;
pub mod udpor;
