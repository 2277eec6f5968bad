//! Events `<t, H>` of the unfolding of a [`System`](crate::system::System), hash-consed in an
//! arena, with the indexes that make causality and conflict O(slots · log n) instead of a walk
//! of whole histories.
//!
//! - An event is identified by its label and its immediate predecessors (the maximal events of
//!   its history `H`), so rediscovering an event returns the same id.
//! - Per slot (see [`super::slots`]), the events on it form a tree rooted at ⊥: each event's
//!   parent on slot `s` is the last event on `s` in its history. Each tree node keeps its depth
//!   and a jump pointer (Myers' skew-binary scheme) so "the ancestor at depth d" is O(log n).
//! - Each event keeps its *cone*: for every slot, the last event on that slot in `[e]`, with its
//!   depth. `a ≤ b` is then one cone lookup and one ancestor query; `a # b` holds iff on some
//!   slot the two cones name events on different branches of that slot's tree. Cones are
//!   persistent trees ([`super::cone`]): an event's cone shares every part that does not
//!   change with its predecessors' cones, and comparisons skip the shared parts.
//! - A node's children on its slot are a list threaded through the nodes themselves, so that
//!   the millions of nodes of a large run cost no allocation each; the few nodes with many
//!   children also keep them in an array, so that long scans of siblings read memory in order,
//!   and group them by label once a scan asks, so that a scan skips the labels it has no use for.
//! - Each event keeps `state([e])`, stored in blocks shared with its largest predecessor's
//!   state ([`super::states`]). The state of its history is that predecessor's with, where the
//!   system allows ([`super::parts`]), the bits of each slot on which the history reaches
//!   further copied from the state of its last event there; otherwise the events of the history
//!   outside that predecessor's local configuration are fired one by one.
//! - Events can be removed again, leaves first (an event none of whose causal successors is
//!   stored): that is how the exploration's memory-bounded cache gives memory back. A removed
//!   event's id and storage are reused by later insertions, so the arrays stop growing once
//!   removals keep up with insertions.
//!
//! This module holds the data (ids, cone entries, slot-tree nodes, the store's fields); the
//! store's operations are split by what they do:
//!
//! - `store`: the arena itself: building a store, adding events (hash-consed by identity),
//!   finding them, removing them, and what each event records;
//! - `children`: the children of each slot-tree node, as lists and, for wide nodes, arrays
//!   grouped by label;
//! - `queries`: causality, conflict, immediate conflict and the compatibility of histories,
//!   answered from the cones and the slot trees;
//! - `history`: the state of a new event's history (walked and fired, or assembled from the
//!   slots' last events) and the events built on it.

mod children;
mod history;
mod queries;
mod store;

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use super::cone::ConeForest;
use super::parts::{SlotParts, TransitionWords};
use super::slots::{Slot, SlotMap};
use super::states::StateBlocks;
use crate::system::Transition;
use children::WideChildren;
use history::{SparseRoom, Walk};
use store::Batch;

pub use children::{ChildCursor, ChildGroup, Children, LabeledChildren};
pub use history::HistoryStates;
pub use store::CONE_SAMPLE;

/// Dense id of an event; [`BOTTOM`] is the virtual initial event ⊥.
pub type EventId = u32;

/// The virtual initial event ⊥ (on every slot, at depth 0).
pub const BOTTOM: EventId = 0;

/// The label of ⊥.
const NO_LABEL: Transition = Transition::MAX;

/// The label of a removed event's id, until it is reused.
const FREE_LABEL: Transition = Transition::MAX - 1;

/// One entry of a cone: the last event on a slot and its depth in that slot's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConeEntry {
    /// The event.
    pub event: EventId,
    /// Its depth on the slot (⊥ is at depth 0).
    pub depth: u32,
    /// Its node in the slot's tree (an index private to the store), so that walking up the
    /// tree needs no lookup.
    pub node: u32,
}

impl ConeEntry {
    /// ⊥ on slot `s`, the root of that slot's tree.
    #[inline]
    pub fn bottom(s: Slot) -> ConeEntry {
        // ⊥'s node on slot s is node s.
        ConeEntry {
            event: BOTTOM,
            depth: 0,
            node: s,
        }
    }
}

/// No node (an empty child list, the end of a sibling list).
const NO_NODE: u32 = u32::MAX;

/// A node of a slot tree.
#[derive(Clone, Copy, Debug)]
struct SlotNode {
    /// The event this node belongs to.
    event: EventId,
    depth: u32,
    /// Indexes in `nodes` of the parent's and the jump target's nodes on the same slot, and the
    /// jump target's depth: ancestor queries then walk the tree without looking slots up.
    parent_node: u32,
    jump_node: u32,
    jump_depth: u32,
    /// How many events on the branch from ⊥ down to this node (this one included) have this
    /// slot as their primary one (see [`SlotParts`]): summed over the slots of a
    /// configuration's cone, its size (every event is counted on exactly one slot).
    firsts: u32,
    /// The children of this node, in the order they were added, as a circular list threaded
    /// through the nodes: a node costs no allocation of its own, however many children it
    /// gets. This names the last child added (`NO_NODE`: none), whose `next_sibling` is the
    /// first; one field fewer than a list with both ends keeps a node at 32 bytes.
    last_child: u32,
    /// The next child of this node's parent, or the first after the last.
    next_sibling: u32,
}

impl SlotNode {
    /// ⊥'s node on slot `s` (node `s`): its own parent and jump target.
    fn bottom(s: Slot) -> SlotNode {
        SlotNode {
            event: BOTTOM,
            depth: 0,
            parent_node: s,
            jump_node: s,
            jump_depth: 0,
            firsts: 0,
            last_child: NO_NODE,
            next_sibling: NO_NODE,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct EventData {
    label: Transition,
    preds_start: u32,
    preds_len: u32,
    /// `|[e]|`, ⊥ not counted.
    size: u32,
    /// Index of this event's first node in `nodes` (one per slot of its label).
    node_start: u32,
    /// Foata level: 1 + the largest level of a predecessor (⊥ is at level 0).
    level: u32,
    /// The root of the event's cone in the store's [`ConeForest`].
    cone: u32,
}

/// The arena of events with their indexes.
pub struct EventStore {
    slots: SlotMap,
    words: usize,
    events: Vec<EventData>,
    preds: Vec<EventId>,
    nodes: Vec<SlotNode>,
    /// By node, how often a child was removed from its list (never reset, so that a count
    /// once seen is never seen again for that node); nodes that never lost a child are absent.
    /// Children are otherwise only appended. A map, not a table: removals come from the cache
    /// alone, and most runs never remove an event.
    children_removals: FxHashMap<u32, u32>,
    /// Per node, its number of children, up to [`WIDE_AT`](children::WIDE_AT); past that, `wide` counts them,
    /// and keeps them in the same order and by label once a scan asks.
    child_count: Vec<u8>,
    wide: FxHashMap<u32, WideChildren>,
    /// Bytes held by `wide`'s arrays, for [`bytes`](Self::bytes).
    wide_bytes: usize,
    /// The events' cones, sharing their common parts. A node of ⊥ (node `s` on slot `s`)
    /// stands for "no event on that slot"; nodes of events come after ⊥'s.
    cones: ConeForest,
    /// `state([e])` of every event, by id.
    states: StateBlocks,
    /// The bits of the state each slot decides, when the system says (see [`super::parts`]):
    /// states of histories are then assembled from those of their last events, not fired.
    parts: Option<SlotParts>,
    /// The words each transition reads and writes, when the system says (and histories are
    /// not to be fired): states of many words are then built from those words alone.
    words_of: Option<TransitionWords>,
    /// Scratch room of [`make_sparse`](Self::make_sparse).
    sparse: SparseRoom,
    /// The events by identity, each with its [`short_hash`](super::short_hash), but for the
    /// `pending` ones.
    table: HashTable<(EventId, u32)>,
    /// The events made since the last [`flush`](Self::flush_pending) into `table`, with
    /// their short hashes, at most [`PENDING`](store::PENDING). Once the table outgrows the
    /// caches, an insertion misses them (it reads the probed group before it writes), and one
    /// at a time, each new event waited on that miss; inserted together, the misses of a batch
    /// overlap.
    pending: Batch,
    /// Ids of removed events, for reuse.
    free_ids: Vec<EventId>,
    /// Freed runs of `preds`, by length.
    free_preds: FxHashMap<u32, Vec<u32>>,
    /// Freed runs of `nodes`, by length.
    free_nodes: FxHashMap<u32, Vec<u32>>,
    /// Whether every node was appended to `nodes` (none reuses a removed event's room): then
    /// on every branch of a slot's tree the deeper node has the larger index, and cones merge
    /// by comparing indexes, without reading depths.
    nodes_in_order: bool,
    /// Events stored, ⊥ excluded.
    live: usize,
    /// Whether [`choose_cone_layout`](Self::choose_cone_layout) has decided.
    cone_layout_chosen: bool,
    /// Scratch room of insertions: the predecessors' cones, and the new event's own entries.
    roots_scratch: Vec<u32>,
    own_scratch: Vec<(Slot, u32)>,
    // Scratch space for history walks.
    stamp: Vec<u32>,
    epoch: u32,
    scratch: Vec<EventId>,
    walk_scratch: Vec<(EventId, Walk)>,
    state_scratch: Vec<u64>,
    columns_wanted: Vec<usize>,
}
