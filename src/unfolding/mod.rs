//! The unfolding of a [`System`](crate::system::System): events `<t, H>`, their causality and
//! conflict indexes, and the slots those indexes are built on. Knows nothing of nets.

pub mod event;
pub mod log;
pub mod order;
pub mod slots;

/// The hash of an event's identity: its label and its sorted immediate predecessors.
pub(crate) fn identity_hash(label: crate::system::Transition, preds: &[u32]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64 ^ label as u64;
    for &p in preds {
        h = (h ^ p as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h
}
