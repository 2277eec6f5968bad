//! The unfolding of a [`System`](crate::system::System): events `<t, H>`, their causality and
//! conflict indexes, and the slots those indexes are built on. Knows nothing of nets.

pub mod cone;
pub mod event;
pub mod log;
pub mod order;
pub mod parts;
pub mod slots;
pub mod states;

/// The hash of an event's identity: its label and its sorted immediate predecessors.
///
/// Every word is mixed in on its own (multiply, then fold the high bits down): an xor of the
/// label with the first predecessor would make `<t_i, {e_(i-1)}>` of a chain, whose labels and
/// ids grow together, collide in a handful of values.
fn identity_hash(label: crate::system::Transition, preds: &[u32]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64, w: u32| {
        let h = (h ^ w as u64).wrapping_mul(K);
        h ^ (h >> 32)
    };
    let mut h = mix(0x243F_6A88_85A3_08D3, label);
    for &p in preds {
        h = mix(h, p);
    }
    h
}

/// An event's identity hash as the tables keep it beside the event's id: 32 bits, so that a
/// growing table moves its entries without reading any event again.
pub(crate) fn short_hash(label: crate::system::Transition, preds: &[u32]) -> u32 {
    (identity_hash(label, preds) >> 32) as u32
}

/// The hash a table is given for a [`short_hash`]: hashbrown takes the bucket from the low
/// bits and a tag from the top seven, so both halves carry the whole short hash.
#[inline]
pub(crate) fn table_hash(short: u32) -> u64 {
    (u64::from(short) << 32) | u64::from(short)
}

/// Makes room for `extra` more elements, growing by an eighth at a time instead of doubling,
/// so that the store's allocations track its contents closely under a memory limit.
pub(crate) fn grow<T>(v: &mut Vec<T>, extra: usize) {
    if v.len() + extra > v.capacity() {
        v.reserve_exact(extra.max(v.len() / 8).max(256));
    }
}
