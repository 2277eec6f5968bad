//! The unfolding of a [`System`](crate::system::System): events `<t, H>`, their causality and
//! conflict indexes, and the slots those indexes are built on. Knows nothing of nets.

pub mod event;
pub mod order;
pub mod slots;
