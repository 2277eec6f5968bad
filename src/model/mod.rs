//! Models: what parsers produce and what becomes a [`System`](crate::system::System).

pub mod net;
pub mod net_system;
