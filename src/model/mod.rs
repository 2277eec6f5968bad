//! Models: what parsers produce and what becomes a [`System`](crate::system::System).

pub mod coloured;
pub mod components;
pub mod net;
pub mod net_system;
pub mod program;
pub mod program_system;
pub mod read_arcs;
#[cfg(test)]
pub(crate) mod test_nets;
