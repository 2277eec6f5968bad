//! Events `<t, H>` of the unfolding of a [`System`], hash-consed in an arena, with the indexes
//! that make causality and conflict O(slots · log n) instead of a walk of whole histories.
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

use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::cone::{ConeForest, ConeLayout, Deeper, EMPTY, FLAT_MAX};
use super::parts::{SlotParts, TransitionWords};
use super::slots::{Slot, SlotCover, SlotMap};
use super::states::{StateBlocks, WHOLE_WORDS};
use super::{grow, short_hash, table_hash};
use crate::rows::Rows;
use crate::system::{Overflow, System, Transition};

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

/// The children of a node, in the order they were added (see [`EventStore::children_on`]).
pub struct Children<'a>(ChildWalk<'a>);

enum ChildWalk<'a> {
    /// Following the list threaded through the nodes, up to its last child.
    List {
        nodes: &'a [SlotNode],
        next: u32,
        last: u32,
    },
    /// Reading a node's array of children (see [`EventStore`]'s `wide`).
    Array(std::slice::Iter<'a, EventId>),
}

impl Iterator for Children<'_> {
    type Item = EventId;

    #[inline]
    fn next(&mut self) -> Option<EventId> {
        match &mut self.0 {
            ChildWalk::List { nodes, next, last } => {
                if *next == NO_NODE {
                    return None;
                }
                let node = &nodes[*next as usize];
                *next = if *next == *last {
                    NO_NODE
                } else {
                    node.next_sibling
                };
                Some(node.event)
            }
            ChildWalk::Array(it) => it.next().copied(),
        }
    }
}

/// The children of a node that has many: their number, and once a scan asks for them
/// ([`EventStore::index_children`]), arrays besides the list threaded through the nodes: in
/// the order they were added, so that long scans of siblings read memory in order; and by
/// label, so that a scan for the siblings of some labels reads neither the others nor the
/// siblings themselves. Until then the arrays stay empty: in runs without cutoffs most wide
/// nodes are never scanned (Raft-PT-02: none of 208, which had 10 children of each event).
#[derive(Clone, Debug, Default)]
struct WideChildren {
    /// How many children the node has.
    count: u32,
    /// Whether `all` lists them.
    listed: bool,
    /// In the order they were added, once listed.
    all: Vec<EventId>,
    /// By label, in the order the labels first came, for the first `indexed` children.
    groups: Vec<ChildGroup>,
    indexed: u32,
    /// Each label's group in `groups` (a node may have children of thousands of labels).
    group_of: FxHashMap<Transition, u32>,
    /// Below this many children the node is not grouped by label: its children had mostly
    /// labels of their own (see [`WideChildren::index_labels`]).
    ungrouped_below: u32,
}

/// The children of one label among a node's many (see [`EventStore::index_children`]): their
/// positions in the node's array and, for the slots of the label a scan asked for, each
/// child's parent there (its *columns*). A scan for the siblings that also share a parent with
/// some event on another slot compares them here, in order, instead of reading each sibling's
/// own nodes, scattered in memory; most siblings differ there.
#[derive(Clone, Debug)]
pub struct ChildGroup {
    label: Transition,
    /// The number `k` of columns, the `k` slot indexes (in the label's slots) they are for,
    /// increasing, then one row of `1 + k` words per child, in the order of the positions:
    /// its position, then its parents' nodes on those slots. Inline while it is short: most
    /// labels have one child at a node (an n-way conflict's n siblings make n groups).
    data: SmallVec<[u32; 4]>,
    /// In large groups, the rows sorted by one column: a scan for the siblings with one
    /// parent there reads those alone instead of every row (most differ).
    index: Option<Box<ColumnIndex>>,
}

/// The rows of a [`ChildGroup`] sorted by the value of one of its columns.
#[derive(Clone, Debug)]
struct ColumnIndex {
    /// The column's slot index (its key in the group).
    j: u32,
    /// `(value, row number)` for the rows before `upto`, sorted.
    sorted: Vec<(u32, u32)>,
    /// Rows from `upto` on were added since the sort, and are read one by one.
    upto: u32,
}

/// Children a group must have before a scan indexes it by a column.
const INDEX_AT: usize = 64;

/// Children indexed by label before a node whose children have mostly labels of their own
/// gives the grouping up (see [`WideChildren::index_labels`]).
const DIVERSE_AT: u32 = 64;

impl ChildGroup {
    fn new(label: Transition) -> Self {
        let mut data = SmallVec::new();
        data.push(0);
        ChildGroup {
            label,
            data,
            index: None,
        }
    }

    /// The children's label.
    pub fn label(&self) -> Transition {
        self.label
    }

    fn columns(&self) -> &[u32] {
        &self.data[1..1 + self.data[0] as usize]
    }

    fn stride(&self) -> usize {
        1 + self.data[0] as usize
    }

    fn table(&self) -> &[u32] {
        &self.data[1 + self.data[0] as usize..]
    }

    /// Children in the group.
    fn len(&self) -> usize {
        self.table().len() / self.stride()
    }

    /// Where, in a row of [`rows_from`](Self::rows_from), the column of the label's `j`-th
    /// slot is, if a scan asked for it ([`EventStore::index_children`]).
    pub fn column(&self, j: usize) -> Option<usize> {
        // Sorted: a scan asks for dozens of columns of labels on dozens of slots.
        self.columns()
            .binary_search(&(j as u32))
            .ok()
            .map(|at| at + 1)
    }

    /// The rows of the children at positions `from` and after: each starts with the child's
    /// position, followed by its columns (see [`column`](Self::column)); the nodes there are
    /// those of [`EventStore::parent_node_on_kth`].
    pub fn rows_from(&self, from: u32) -> std::slice::ChunksExact<'_, u32> {
        let (table, stride) = (self.table(), self.stride());
        // The positions are sorted.
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if table[mid * stride] < from {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        table[lo * stride..].chunks_exact(stride)
    }

    /// Adds the child at `position`, `parent(j)` giving its parent's node on the label's
    /// `j`-th slot.
    fn push(&mut self, position: u32, parent: impl Fn(usize) -> u32) {
        let k = self.data[0] as usize;
        self.data.push(position);
        for i in 0..k {
            let j = self.data[1 + i] as usize;
            let node = parent(j);
            self.data.push(node);
        }
    }

    /// Adds the column of the label's `j`-th slot, `parent(p, j)` giving the parent's node
    /// there of the child at position `p`.
    fn add_column(&mut self, j: usize, parent: impl Fn(u32, usize) -> u32) {
        let (stride, len) = (self.stride(), self.len());
        let columns = self.columns();
        // The columns stay sorted by slot index: the new one goes in at `at` in every row.
        let at = columns.partition_point(|&k| (k as usize) < j);
        debug_assert!(columns.get(at) != Some(&(j as u32)), "column {j} exists");
        let mut data = SmallVec::with_capacity(self.data.len() + 1 + len);
        data.push(self.data[0] + 1);
        data.extend_from_slice(&columns[..at]);
        data.push(j as u32);
        data.extend_from_slice(&columns[at..]);
        for row in self.table().chunks_exact(stride) {
            data.extend_from_slice(&row[..1 + at]);
            data.push(parent(row[0], j));
            data.extend_from_slice(&row[1 + at..]);
        }
        self.data = data;
    }

    /// Sorts the rows by the column of the label's `j`-th slot (which must exist), unless
    /// they are sorted by it already but for fewer new rows than a quarter of the sorted ones
    /// (each row is then sorted O(1) times, amortised).
    fn index_by(&mut self, j: usize) {
        let len = self.len() as u32;
        if let Some(index) = &self.index
            && index.j == j as u32
            && len - index.upto <= (index.upto / 4).max(INDEX_AT as u32)
        {
            return;
        }
        let at = self.column(j).expect("the column exists");
        let stride = self.stride();
        let mut sorted = self.index.take().map(|i| i.sorted).unwrap_or_default();
        sorted.clear();
        sorted.extend(
            self.table()
                .chunks_exact(stride)
                .enumerate()
                .map(|(r, row)| (row[at], r as u32)),
        );
        sorted.sort_unstable();
        self.index = Some(Box::new(ColumnIndex {
            j: j as u32,
            sorted,
            upto: len,
        }));
    }

    /// Calls `f` on the rows of [`rows_from`](Self::rows_from) whose column `at` holds
    /// `want`, in no set order: through the index when the group is sorted by that column.
    pub fn for_rows_with(&self, from: u32, at: usize, want: u32, f: impl FnMut(&[u32])) {
        #[cfg(debug_assertions)]
        self.check_rows_with(from, at, want);
        self.for_rows_with_unchecked(from, at, want, f)
    }

    /// Debug builds and tests: the index passes exactly the rows a plain scan keeps.
    #[cfg(any(debug_assertions, test))]
    fn check_rows_with(&self, from: u32, at: usize, want: u32) {
        let mut via_index = Vec::new();
        self.for_rows_with_unchecked(from, at, want, |row| via_index.push(row[0]));
        via_index.sort_unstable();
        let scanned: Vec<u32> = self
            .rows_from(from)
            .filter(|row| row[at] == want)
            .map(|row| row[0])
            .collect();
        assert_eq!(
            via_index, scanned,
            "rows from {from} with {want} in column {at}"
        );
    }

    fn for_rows_with_unchecked(&self, from: u32, at: usize, want: u32, mut f: impl FnMut(&[u32])) {
        let rows = self.rows_from(from);
        let (table, stride) = (self.table(), self.stride());
        let first = self.len() - rows.len();
        match &self.index {
            Some(index) if self.column(index.j as usize) == Some(at) => {
                let upto = index.upto as usize;
                if first < upto {
                    let start = index.sorted.partition_point(|&x| x < (want, first as u32));
                    for &(value, r) in &index.sorted[start..] {
                        if value != want {
                            break;
                        }
                        f(&table[r as usize * stride..(r as usize + 1) * stride]);
                    }
                }
                let tail = &table[upto.max(first) * stride..];
                tail.chunks_exact(stride)
                    .filter(|row| row[at] == want)
                    .for_each(f);
            }
            _ => rows.filter(|row| row[at] == want).for_each(f),
        }
    }

    /// Takes the child at position `at` out, and moves the positions after it down by one.
    fn remove_position(&mut self, at: u32) {
        // Row numbers change: the index is rebuilt by the next scan that wants it.
        self.index = None;
        let (stride, head) = (self.stride(), 1 + self.data[0] as usize);
        let mut kept = head;
        for r in (head..self.data.len()).step_by(stride) {
            let p = self.data[r];
            if p == at {
                continue;
            }
            self.data.copy_within(r..r + stride, kept);
            if p > at {
                self.data[kept] = p - 1;
            }
            kept += stride;
        }
        self.data.truncate(kept);
    }

    fn bytes(&self) -> usize {
        // (Rows inline are counted as if they were not: an upper bound, kept in step by the
        // callers' increments.)
        32 + 8 * self.data.len()
            + self
                .index
                .as_ref()
                .map_or(0, |index| 48 + 16 * index.sorted.len())
    }
}

impl WideChildren {
    /// Adds the child `c`; returns the bytes this took (see [`bytes`](Self::bytes)).
    fn push(&mut self, c: EventId) -> usize {
        self.count += 1;
        if !self.listed {
            return 0;
        }
        self.all.push(c);
        8
    }

    /// Lists the children, given in the order they were added; returns the bytes this took.
    fn list(&mut self, children: impl Iterator<Item = EventId>) -> usize {
        debug_assert!(!self.listed);
        self.all.reserve_exact(self.count as usize);
        self.all.extend(children);
        debug_assert_eq!(self.all.len(), self.count as usize);
        self.listed = true;
        8 * self.all.len()
    }

    /// Brings the groups by label up to date, `label` giving the children's labels and
    /// `parent(c, j)` the node of child `c`'s parent on its label's `j`-th slot (for the
    /// columns of the groups); returns the bytes this took and the bytes counted before
    /// that it gave back. `labels` bounds the labels the children may have.
    fn index_labels(
        &mut self,
        labels: usize,
        label: impl Fn(EventId) -> Transition,
        parent: impl Fn(EventId, usize) -> u32,
    ) -> (usize, usize) {
        if self.count < self.ungrouped_below {
            return (0, 0);
        }
        let mut bytes = 0;
        for at in self.indexed..self.all.len() as u32 {
            let c = self.all[at as usize];
            let label = label(c);
            // Labels mostly come in runs: the last group is looked at first.
            let g = match self.groups.last() {
                Some(group) if group.label == label => self.groups.len() - 1,
                _ => {
                    // Groups of about one child each cost more to make and to scan than
                    // the children one by one (an n-way conflict's n siblings): given up
                    // until the node has twice as many children. (Not where the labels are
                    // too few for that: a node's first children often have labels of their
                    // own, the later ones repeat them.)
                    if at >= DIVERSE_AT
                        && 2 * self.groups.len() as u32 > at
                        && 2 * labels > self.count as usize
                    {
                        // (The groups' bytes include those of this call, not yet counted.)
                        let held: usize = self.groups.iter().map(ChildGroup::bytes).sum();
                        self.groups = Vec::new();
                        self.group_of = FxHashMap::default();
                        self.indexed = 0;
                        self.ungrouped_below = 2 * self.count;
                        return (0, held - bytes);
                    }
                    *self.group_of.entry(label).or_insert_with(|| {
                        self.groups.push(ChildGroup::new(label));
                        bytes += 40;
                        self.groups.len() as u32 - 1
                    }) as usize
                }
            };
            let group = &mut self.groups[g];
            group.push(at, |j| parent(c, j));
            bytes += 8 * group.stride();
        }
        self.indexed = self.all.len() as u32;
        (bytes, 0)
    }

    /// Whether the children from position `from` on are fewer than the labels, or not
    /// grouped: a scan then reads them one by one instead of by label.
    fn one_by_one(&self, from: u32) -> bool {
        self.count < self.ungrouped_below
            || self.all.len() - (from as usize).min(self.all.len()) < self.groups.len()
    }

    /// Takes the child `c` out; the positions after it move down by one.
    fn remove(&mut self, c: EventId) {
        self.count -= 1;
        if !self.listed {
            return;
        }
        let at = self.all.iter().position(|&x| x == c);
        let at = at.expect("the child is in its parent's array") as u32;
        self.all.remove(at as usize);
        if at < self.indexed {
            self.indexed -= 1;
            for group in &mut self.groups {
                group.remove_position(at);
            }
            self.groups.retain(|group| group.len() > 0);
            self.group_of.clear();
            for (g, group) in self.groups.iter().enumerate() {
                self.group_of.insert(group.label, g as u32);
            }
        }
    }

    /// Bytes held, counting arrays at twice their length (they grow by doubling).
    fn bytes(&self) -> usize {
        8 * self.all.len() + self.groups.iter().map(ChildGroup::bytes).sum::<usize>()
    }
}

/// The children of a node added after some point, by label where it has many (see
/// [`EventStore::labeled_children_of_node_after`]).
pub enum LabeledChildren<'a> {
    /// One by one, as a list (their labels are the store's [`label`](EventStore::label)).
    Each(Children<'a>),
    /// By label: the children of each label are `all[p]` for the positions `p` in its group
    /// from `from` on.
    Grouped {
        all: &'a [EventId],
        groups: &'a [ChildGroup],
        from: u32,
    },
}

/// A place in a list of children, to come back to later and see only the children added since
/// (see [`EventStore::children_after`]). It stays valid while no child is removed from that
/// list ([`EventStore::siblings_removals`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildCursor {
    /// The last child seen (`NO_NODE` for none), and how many were seen.
    node: u32,
    seen: u32,
}

impl ChildCursor {
    /// How many children were seen.
    pub fn seen(&self) -> u32 {
        self.seen
    }

    /// Before the first child.
    pub const START: ChildCursor = ChildCursor {
        node: NO_NODE,
        seen: 0,
    };
}

/// The most events made and not yet in the store's table (see `EventStore::pending`): a
/// scan of them is cheaper than a probe of the table that misses the cache.
const PENDING: usize = 32;

/// Events made and not yet in the store's table (see `EventStore::pending`), with their
/// [`short_hash`]es: in arrays, so that the hashes are compared all at once.
#[derive(Clone, Debug)]
struct Batch {
    len: usize,
    ids: [EventId; PENDING],
    /// Past `len`, left over.
    hashes: [u32; PENDING],
}

impl Batch {
    fn new() -> Self {
        Batch {
            len: 0,
            ids: [0; PENDING],
            hashes: [0; PENDING],
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn push(&mut self, e: EventId, h: u32) {
        self.ids[self.len] = e;
        self.hashes[self.len] = h;
        self.len += 1;
    }

    /// The events and their hashes.
    fn entries(&self) -> impl Iterator<Item = (EventId, u32)> + '_ {
        self.ids[..self.len]
            .iter()
            .copied()
            .zip(self.hashes[..self.len].iter().copied())
    }

    /// Takes `e` out; whether it was there.
    fn remove(&mut self, e: EventId) -> bool {
        let Some(i) = self.ids[..self.len].iter().position(|&x| x == e) else {
            return false;
        };
        self.len -= 1;
        self.ids[i] = self.ids[self.len];
        self.hashes[i] = self.hashes[self.len];
        true
    }

    /// The positions of the events with hash `h`, as bits.
    #[inline]
    fn with_hash(&self, h: u32) -> u32 {
        const { assert!(PENDING <= 32) };
        let mut found = 0u32;
        for (i, &x) in self.hashes.iter().enumerate() {
            found |= u32::from(x == h) << i;
        }
        found & ((1u64 << self.len) - 1) as u32
    }
}

/// Children above which a node keeps them in an array as well: scanning a long list of
/// siblings node by node waits on memory at every step, reading an array does not.
const WIDE_AT: u8 = 12;

/// Events stored before [`EventStore::choose_cone_layout`] compares the memory of the cones
/// as trees and as flat arrays: enough for the fixed costs to be a small share.
pub const CONE_SAMPLE: usize = 8192;

#[derive(Clone, Copy, Debug)]
struct EventData {
    label: Transition,
    preds_start: u32,
    preds_len: u32,
    /// |[e]|, ⊥ not counted.
    size: u32,
    /// Index of this event's first node in `nodes` (one per slot of its label).
    node_start: u32,
    /// Foata level: 1 + the largest level of a predecessor (⊥ is at level 0).
    level: u32,
    /// The root of the event's cone in the store's [`ConeForest`].
    cone: u32,
}

/// How a store computes the state of a new event's history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryStates {
    /// Assembled from the states of the history's last events on the slots where it reaches
    /// beyond its largest predecessor, when the system says which bits each resource holds and
    /// each resource is changed on one slot (see [`super::parts`]); fired otherwise.
    #[default]
    Auto,
    /// Fired: the events of the history outside its largest predecessor's local
    /// configuration, one by one.
    Fire,
}

/// Scratch room of a sparse build: which words of the history's state are loaded.
#[derive(Default)]
struct SparseRoom {
    /// By word, the epoch in which it was loaded.
    stamp: Vec<u32>,
    epoch: u32,
    loaded: Vec<u32>,
    changes: Vec<(u32, u64)>,
}

impl SparseRoom {
    /// Forgets the words loaded (for states of `words` words).
    fn begin(&mut self, words: usize) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 || self.stamp.len() < words {
            self.stamp.clear();
            self.stamp.resize(words, 0);
            self.epoch = 1;
        }
        self.loaded.clear();
    }

    /// Loads word `w` of `base`'s state into `h`, unless it is loaded already.
    #[inline]
    fn load(&mut self, w: usize, h: &mut [u64], states: &StateBlocks, base: EventId) {
        if self.stamp[w] != self.epoch {
            self.stamp[w] = self.epoch;
            self.loaded.push(w as u32);
            h[w] = states.word(base, w);
        }
    }
}

/// What the walk of [`EventStore::history_state`] does with an event it reaches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Test whether it lies in the largest predecessor's local configuration.
    Test,
    /// Known to lie outside it (an immediate predecessor other than that one).
    Outside,
    /// List it: its predecessors outside are listed already.
    List,
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
    /// Per node, its number of children, up to [`WIDE_AT`]; past that, `wide` counts them,
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
    /// The events by identity, each with its [`short_hash`], but for the `pending` ones.
    table: HashTable<(EventId, u32)>,
    /// The events made since the last [`flush`](Self::flush_pending) into `table`, with
    /// their [`short_hash`]es, at most [`PENDING`]. Once the table outgrows the caches, an
    /// insertion misses them (it reads the probed group before it writes), and one at a time,
    /// each new event waited on that miss; inserted together, the misses of a batch overlap
    /// (Raft-PT-02 without cutoffs: 3 % of the time).
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

impl EventStore {
    /// A store holding only ⊥, whose state is the initial state of `sys`.
    pub fn new<S: System + ?Sized>(sys: &S) -> Self {
        Self::with_options(
            sys,
            ConeLayout::Auto,
            HistoryStates::Auto,
            SlotCover::TokenSets,
        )
    }

    /// [`new`](Self::new), with cones laid out as `layout` says, states of histories
    /// computed as `history` says and slots made as `cover` says.
    pub fn with_options<S: System + ?Sized>(
        sys: &S,
        layout: ConeLayout,
        history: HistoryStates,
        cover: SlotCover,
    ) -> Self {
        let (slots, changers) = SlotMap::with_cover_and_changers(sys, cover);
        Self::with_slots(sys, layout, history, slots, &changers)
    }

    /// [`with_options`](Self::with_options), on the slots `slots` (of
    /// [`SlotMap::with_cover_and_changers`], with the `changers` it gave).
    pub fn with_slots<S: System + ?Sized>(
        sys: &S,
        layout: ConeLayout,
        history: HistoryStates,
        slots: SlotMap,
        changers: &Rows<u32>,
    ) -> Self {
        let n = slots.count();
        let words = sys.state_words();
        let mut initial = vec![0; words];
        sys.initial_state(&mut initial);
        let mut states = StateBlocks::new(words);
        states.put(BOTTOM, &initial, None);
        EventStore {
            words,
            events: vec![EventData {
                label: NO_LABEL,
                preds_start: 0,
                preds_len: 0,
                size: 0,
                node_start: 0,
                level: 0,
                cone: EMPTY,
            }],
            preds: Vec::new(),
            // ⊥'s node on slot s is node s, its own parent.
            nodes: (0..n as u32).map(SlotNode::bottom).collect(),
            children_removals: FxHashMap::default(),
            child_count: vec![0; n],
            wide: FxHashMap::default(),
            wide_bytes: 0,
            cones: if layout == ConeLayout::Flat && n <= FLAT_MAX {
                ConeForest::new_flat(n)
            } else {
                ConeForest::new(n)
            },
            states,
            parts: if history == HistoryStates::Fire {
                None
            } else {
                SlotParts::with_changers(sys, &slots, changers)
            },
            // (Read only by sparse builds, of states wider than those kept whole.)
            words_of: if history == HistoryStates::Fire || words <= WHOLE_WORDS {
                None
            } else {
                TransitionWords::new(sys)
            },
            sparse: SparseRoom::default(),
            table: HashTable::new(),
            pending: Batch::new(),
            free_ids: Vec::new(),
            free_preds: FxHashMap::default(),
            free_nodes: FxHashMap::default(),
            nodes_in_order: true,
            live: 0,
            cone_layout_chosen: layout != ConeLayout::Auto,
            roots_scratch: Vec::new(),
            own_scratch: Vec::new(),
            stamp: vec![0],
            epoch: 0,
            scratch: Vec::new(),
            walk_scratch: Vec::new(),
            state_scratch: Vec::new(),
            columns_wanted: Vec::new(),
            slots,
        }
    }

    /// The slots of the system.
    pub fn slots(&self) -> &SlotMap {
        &self.slots
    }

    /// One past the largest id in use (⊥ included): every event id is below it.
    pub fn id_bound(&self) -> usize {
        self.events.len()
    }

    /// One more than the largest index of a node ([`parent_node_on_kth`](Self::parent_node_on_kth)).
    pub fn node_bound(&self) -> usize {
        self.nodes.len()
    }

    /// Number of events stored, ⊥ excluded.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Once [`CONE_SAMPLE`] events are stored, flattens the cones (see [`ConeForest`]) if flat
    /// cones would cost at most a tenth more memory in all than the trees did so far: they are
    /// cheaper to build and to read. Cone roots change, so the caller must not hold any
    /// (none of [`raise_to_cone_depths`](Self::raise_to_cone_depths)'s `merged` blocks).
    #[inline]
    pub fn choose_cone_layout(&mut self) {
        if self.cone_layout_chosen || self.live < CONE_SAMPLE {
            return;
        }
        self.cone_layout_chosen = true;
        let Some(flat) = self.cones.flat_cone_bytes() else {
            return;
        };
        let (tree, all) = (self.cones.bytes_in_use(), self.bytes());
        if flat * self.live as u64 <= tree + all / 10 {
            self.cones.flatten(
                self.events
                    .iter_mut()
                    .filter(|d| d.label != FREE_LABEL)
                    .map(|d| &mut d.cone),
            );
        }
    }

    /// Whether the states of histories are assembled from the slots' last events (see
    /// [`HistoryStates`]).
    pub fn assembles_histories(&self) -> bool {
        self.parts.is_some()
    }

    /// The words of a state `t` reads or writes, when the system says (see
    /// [`TransitionWords`]), histories are not to be fired and states are wider than
    /// [`WHOLE_WORDS`].
    #[inline]
    pub fn touched_words(&self, t: Transition) -> Option<&[u32]> {
        self.words_of.as_ref().map(|w| w.of(t))
    }

    /// Whether the cones are flat.
    pub fn cones_are_flat(&self) -> bool {
        self.cones.is_flat()
    }

    /// Whether only ⊥ is stored.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether `e` names a stored event (⊥ included).
    pub fn is_live(&self, e: EventId) -> bool {
        self.events
            .get(e as usize)
            .is_some_and(|d| d.label != FREE_LABEL)
    }

    /// Ids freed by removals and not reused yet.
    pub fn free_ids(&self) -> usize {
        self.free_ids.len()
    }

    /// Whether no stored event has `e` in its history (so `e` may be removed).
    pub fn is_leaf(&self, e: EventId) -> bool {
        let d = &self.events[e as usize];
        let k = self.slots.of(d.label).len();
        self.nodes[d.node_start as usize..d.node_start as usize + k]
            .iter()
            .all(|n| n.last_child == NO_NODE)
    }

    /// Removes the leaf `e` (not ⊥): its id and storage will be reused.
    pub fn remove(&mut self, e: EventId) {
        debug_assert!(e != BOTTOM && self.is_live(e) && self.is_leaf(e));
        let d = self.events[e as usize];
        let k = self.slots.of(d.label).len();
        for i in 0..k {
            let me = d.node_start + i as u32;
            let pidx = self.nodes[me as usize].parent_node as usize;
            self.unlink_child(pidx, me);
            let removals = self.children_removals.entry(pidx as u32).or_default();
            *removals = removals.wrapping_add(1);
            // A leaf's nodes have no children left, but may keep an emptied array (only a
            // node that had WIDE_AT children has one: the count skips the lookup for others).
            if self.child_count[me as usize] >= WIDE_AT
                && let Some(array) = self.wide.remove(&me)
            {
                self.wide_bytes -= array.bytes();
            }
        }
        if !self.pending.remove(e) {
            let h = short_hash(d.label, self.preds(e));
            if let Ok(entry) = self.table.find_entry(table_hash(h), |&(x, _)| x == e) {
                entry.remove();
            }
        }
        self.free_preds
            .entry(d.preds_len)
            .or_default()
            .push(d.preds_start);
        self.free_nodes
            .entry(k as u32)
            .or_default()
            .push(d.node_start);
        self.cones.release(d.cone);
        self.states.take(e);
        self.events[e as usize].label = FREE_LABEL;
        self.free_ids.push(e);
        self.live -= 1;
    }

    /// Takes the node `child` out of the child list of the node `parent`.
    fn unlink_child(&mut self, parent: usize, child: u32) {
        if self.child_count[parent] >= WIDE_AT
            && let Some(array) = self.wide.get_mut(&(parent as u32))
        {
            self.wide_bytes -= array.bytes();
            array.remove(self.nodes[child as usize].event);
            self.wide_bytes += array.bytes();
        } else {
            self.child_count[parent] -= 1;
        }
        let next = self.nodes[child as usize].next_sibling;
        let last = self.nodes[parent].last_child;
        debug_assert!(last != NO_NODE, "the child is in its parent's list");
        // The walk starts at the first child, the last one's successor.
        let mut prev = last;
        let mut at = self.nodes[last as usize].next_sibling;
        while at != child {
            debug_assert!(at != last, "the child is in its parent's list");
            prev = at;
            at = self.nodes[at as usize].next_sibling;
        }
        if prev == child {
            // It was the only child.
            self.nodes[parent].last_child = NO_NODE;
        } else {
            self.nodes[prev as usize].next_sibling = next;
            if last == child {
                self.nodes[parent].last_child = prev;
            }
        }
    }

    /// The label of a (non-⊥) event.
    #[inline]
    pub fn label(&self, e: EventId) -> Transition {
        self.events[e as usize].label
    }

    /// The immediate predecessors of `e`, sorted (`[⊥]` for a minimal event, empty for ⊥).
    #[inline]
    pub fn preds(&self, e: EventId) -> &[EventId] {
        let d = &self.events[e as usize];
        &self.preds[d.preds_start as usize..(d.preds_start + d.preds_len) as usize]
    }

    /// `|[e]|`, ⊥ not counted.
    #[inline]
    pub fn size(&self, e: EventId) -> u32 {
        self.events[e as usize].size
    }

    /// The Foata level of `e` (the length of the longest causal chain ending in it).
    #[inline]
    pub fn level(&self, e: EventId) -> u32 {
        self.events[e as usize].level
    }

    /// Words of a state.
    pub fn words(&self) -> usize {
        self.words
    }

    /// `state([e])` in place, when states are small enough to be kept whole
    /// ([`WHOLE_WORDS`] words or fewer); otherwise read it with
    /// [`state_into`](Self::state_into).
    #[inline]
    pub fn state(&self, e: EventId) -> Option<&[u64]> {
        self.states.as_slice(e)
    }

    /// Word `w` of `state([e])`.
    #[inline]
    pub fn state_word(&self, e: EventId, w: usize) -> u64 {
        self.states.word(e, w)
    }

    /// The blocks holding the events' states, for a [`StateSet`](super::states::StateSet)
    /// whose wide states share them (an event's tree outlives the event when a set holds it).
    pub fn state_blocks(&self) -> &StateBlocks {
        &self.states
    }

    /// [`state_blocks`](Self::state_blocks), to add to a set.
    pub fn state_blocks_mut(&mut self) -> &mut StateBlocks {
        &mut self.states
    }

    /// Writes `state([e])` into `out` (`words` long).
    pub fn state_into(&self, e: EventId, out: &mut [u64]) {
        self.states.read(e, out);
    }

    /// Writes the words `range` of `state([e])` into the same places of `out` (`words` long),
    /// leaving its other words alone.
    pub fn state_words_into(&self, e: EventId, range: std::ops::Range<usize>, out: &mut [u64]) {
        self.states.read_words(e, range, out);
    }

    /// The slots of a (non-⊥) event's label.
    #[inline]
    pub fn event_slots(&self, e: EventId) -> &[Slot] {
        self.slots.of(self.label(e))
    }

    /// Index in `nodes` of `e`'s node on slot `s` (`e` must be on `s`).
    #[inline]
    fn node_index(&self, e: EventId, s: Slot) -> usize {
        let d = &self.events[e as usize];
        if e == BOTTOM {
            return s as usize;
        }
        let pos = self
            .slots
            .of(d.label)
            .binary_search(&s)
            .expect("event is on the slot");
        d.node_start as usize + pos
    }

    /// `e`'s parent on slot `s`: the last event on `s` in its history.
    #[inline]
    pub fn parent_on(&self, e: EventId, s: Slot) -> EventId {
        let parent = self.nodes[self.node_index(e, s)].parent_node;
        self.nodes[parent as usize].event
    }

    /// The (non-⊥) event `e`'s parent on the `k`-th slot of its label.
    #[inline]
    pub fn parent_on_kth(&self, e: EventId, k: usize) -> EventId {
        self.nodes[self.parent_node_on_kth(e, k)].event
    }

    /// For each slot of the (non-⊥) event `e`, in order, the slot and the index of `e`'s
    /// parent's node there (node `s` for ⊥), as [`ConeEntry::node`] names nodes.
    #[inline]
    pub fn parent_nodes(&self, e: EventId) -> impl Iterator<Item = (Slot, u32)> + '_ {
        let d = &self.events[e as usize];
        let slots = self.slots.of(d.label);
        let nodes = &self.nodes[d.node_start as usize..d.node_start as usize + slots.len()];
        slots.iter().zip(nodes).map(|(&s, n)| (s, n.parent_node))
    }

    /// The root of `e`'s cone: the last event of `[e]` on every slot.
    #[inline]
    fn cone(&self, e: EventId) -> u32 {
        self.events[e as usize].cone
    }

    /// The last event of `[e]` on slot `s` (⊥ at depth 0 when `[e]` has none).
    #[inline]
    pub fn cone_at(&self, e: EventId, s: Slot) -> ConeEntry {
        // ⊥'s node on slot s is node s: node_entry gives ConeEntry::bottom(s) for it.
        self.node_entry(self.cones.get(self.cone(e), s))
    }

    /// Raises `depths[i]` to the depth of `[e]` on `slots[i]` for the indexes `i` in
    /// `picked` (increasing; `slots` sorted), skipping the runs of `slots` in one leaf of
    /// `[e]`'s cone whose block `merged` names (their depths are in already): `runs[i]` is
    /// `slots[i]`'s run; see [`ConeForest::for_new_slots_of_runs`].
    pub fn raise_to_cone_depths(
        &self,
        e: EventId,
        slots: &[Slot],
        picked: &[u32],
        runs: &[u32],
        depths: &mut [u32],
        merged: &mut [u32],
    ) {
        self.cones.for_new_slots_of_runs(
            self.cone(e),
            picked
                .iter()
                .map(|&i| (i as usize, slots[i as usize], runs[i as usize])),
            merged,
            |i, node| {
                depths[i] = depths[i].max(self.nodes[node as usize].depth);
            },
        );
    }

    /// The cone entry of a node.
    #[inline]
    fn node_entry(&self, node: u32) -> ConeEntry {
        let n = &self.nodes[node as usize];
        ConeEntry {
            event: n.event,
            depth: n.depth,
            node,
        }
    }

    /// The (non-⊥) event `e` as a cone entry on the `k`-th slot of its label.
    #[inline]
    pub fn entry_on_kth(&self, e: EventId, k: usize) -> ConeEntry {
        let node = self.events[e as usize].node_start as usize + k;
        ConeEntry {
            event: e,
            depth: self.nodes[node].depth,
            node: node as u32,
        }
    }

    /// The parent of the (non-⊥) entry `c` in its slot's tree.
    #[inline]
    pub fn parent_entry(&self, c: ConeEntry) -> ConeEntry {
        let node = &self.nodes[c.node as usize];
        ConeEntry {
            event: self.nodes[node.parent_node as usize].event,
            depth: c.depth - 1,
            node: node.parent_node,
        }
    }

    /// A number that grows whenever an event is removed from the siblings of the (non-⊥)
    /// event `e` on its slots (its only possible immediate conflicts). While it stays the
    /// same, siblings are only ever appended to [`children_on`](Self::children_on) of `e`'s
    /// parents: a memo of `e`'s immediate conflicts needs only to look at the new ones.
    pub fn siblings_removals(&self, e: EventId) -> u64 {
        if self.children_removals.is_empty() {
            return 0;
        }
        let d = &self.events[e as usize];
        let k = self.slots.of(d.label).len();
        self.nodes[d.node_start as usize..d.node_start as usize + k]
            .iter()
            .map(|n| {
                u64::from(
                    self.children_removals
                        .get(&n.parent_node)
                        .copied()
                        .unwrap_or(0),
                )
            })
            .sum()
    }

    /// The children of `e` on slot `s`, in the order they were added.
    pub fn children_on(&self, e: EventId, s: Slot) -> Children<'_> {
        self.children_after(e, s, ChildCursor::START)
    }

    /// The children of `e` on slot `s` added after the one `cursor` names (all of them for
    /// [`ChildCursor::START`]).
    pub fn children_after(&self, e: EventId, s: Slot, cursor: ChildCursor) -> Children<'_> {
        self.children_of_node_after(self.node_index(e, s), cursor)
    }

    /// The index of the node of the parent of the (non-⊥) event `e` on the `k`-th slot of its
    /// label: where its siblings there are listed.
    #[inline]
    pub fn parent_node_on_kth(&self, e: EventId, k: usize) -> usize {
        self.nodes[self.events[e as usize].node_start as usize + k].parent_node as usize
    }

    /// Whether `e` is the only child its parent on `e`'s `k`-th slot got between the cursors
    /// `from` and `to` (the parent's [last child](Self::last_child_of_node), read by the
    /// caller).
    #[inline]
    pub fn only_new_child_is(
        &self,
        e: EventId,
        k: usize,
        from: ChildCursor,
        to: ChildCursor,
    ) -> bool {
        to.seen == from.seen + 1
            && to.node as usize == self.events[e as usize].node_start as usize + k
    }

    /// The children of the node with index `node` (see
    /// [`parent_node_on_kth`](Self::parent_node_on_kth)), in the order they were added.
    pub fn children_of_node(&self, node: usize) -> Children<'_> {
        self.children_of_node_after(node, ChildCursor::START)
    }

    /// [`children_after`](Self::children_after) of a node given by its index.
    fn children_of_node_after(&self, node: usize, cursor: ChildCursor) -> Children<'_> {
        if self.child_count[node] >= WIDE_AT
            && let Some(array) = self.wide.get(&(node as u32))
            && array.listed
        {
            return Children(ChildWalk::Array(array.all[cursor.seen as usize..].iter()));
        }
        let last = self.nodes[node].last_child;
        let next = if last == NO_NODE || cursor.node == last {
            NO_NODE
        } else if cursor == ChildCursor::START {
            self.nodes[last as usize].next_sibling
        } else {
            self.nodes[cursor.node as usize].next_sibling
        };
        Children(ChildWalk::List {
            nodes: &self.nodes,
            next,
            last,
        })
    }

    /// Groups the children of the node `node` by label, where it keeps them in arrays: for
    /// [`labeled_children_of_node_after`](Self::labeled_children_of_node_after). Then, for
    /// each label with children at positions `from` and after, fills its group's columns (see
    /// [`ChildGroup::column`]) for the slot indexes `wanted(its slots, list)` lists, and sorts
    /// a large group's rows by the first of them (see [`ChildGroup::for_rows_with`]).
    pub fn index_children(
        &mut self,
        node: usize,
        from: u32,
        mut wanted: impl FnMut(&[Slot], &mut Vec<usize>),
    ) {
        if self.child_count[node] < WIDE_AT {
            return;
        }
        let Some(array) = self.wide.get_mut(&(node as u32)) else {
            return;
        };
        let (events, nodes) = (&self.events, &self.nodes);
        if !array.listed {
            // The list, from its first child (the last one's successor) round to the last.
            let last = nodes[node].last_child;
            let mut at = last;
            let children = std::iter::from_fn(|| {
                at = nodes[at as usize].next_sibling;
                Some(nodes[at as usize].event)
            });
            self.wide_bytes += array.list(children.take(array.count as usize));
        }
        let parent =
            |c: EventId, j: usize| nodes[events[c as usize].node_start as usize + j].parent_node;
        // The children's labels are transitions of the node's slot.
        let slot = if node < self.slots.count() {
            node as Slot
        } else {
            let e = &events[nodes[node].event as usize];
            self.slots.of(e.label)[node - e.node_start as usize]
        };
        let labels = self.slots.member_count(slot);
        let (mut bytes, freed) = array.index_labels(labels, |c| events[c as usize].label, parent);
        self.wide_bytes -= freed;
        if !array.one_by_one(from) {
            for group in &mut array.groups {
                if group.rows_from(from).len() == 0 {
                    continue;
                }
                self.columns_wanted.clear();
                wanted(self.slots.of(group.label), &mut self.columns_wanted);
                let before = group.bytes();
                for &j in &self.columns_wanted {
                    if group.column(j).is_none() {
                        let all = &array.all;
                        group.add_column(j, |p, j| parent(all[p as usize], j));
                    }
                }
                // A scan reads the rows with `wanted`'s first parent through the index.
                if let Some(&j) = self.columns_wanted.first()
                    && group.len() >= INDEX_AT
                {
                    group.index_by(j);
                }
                bytes += group.bytes();
                bytes -= before;
            }
        }
        self.wide_bytes += bytes;
    }

    /// The children of the node `node` added after the one `cursor` names (see
    /// [`parent_node_on_kth`](Self::parent_node_on_kth) and
    /// [`children_after`](Self::children_after)): grouped by label where the node keeps
    /// them in arrays, has not given the grouping up (children with mostly labels of their
    /// own) and they are at least as many as the labels, so that a scan for some labels
    /// skips the others whole (as far as [`index_children`](Self::index_children) grouped
    /// them: the scan must call it first).
    pub fn labeled_children_of_node_after(
        &self,
        node: usize,
        cursor: ChildCursor,
    ) -> LabeledChildren<'_> {
        if self.child_count[node] >= WIDE_AT
            && let Some(array) = self.wide.get(&(node as u32))
            && array.listed
            && !array.one_by_one(cursor.seen)
        {
            return LabeledChildren::Grouped {
                all: &array.all,
                groups: &array.groups,
                from: cursor.seen,
            };
        }
        LabeledChildren::Each(self.children_of_node_after(node, cursor))
    }

    /// A cursor after the last child so far of the node `node`.
    pub fn last_child_of_node(&self, node: usize) -> ChildCursor {
        // (The count first: most nodes are narrow, and need no lookup in `wide`.)
        let count = self.child_count[node];
        let seen = if count >= WIDE_AT {
            self.wide
                .get(&(node as u32))
                .map_or(u32::from(count), |array| array.count)
        } else {
            u32::from(count)
        };
        ChildCursor {
            node: self.nodes[node].last_child,
            seen,
        }
    }

    /// The ancestor of the entry `b` on its slot at depth `depth` (at most `b`'s depth), by
    /// skip pointers.
    #[inline]
    pub fn ancestor_on(&self, b: ConeEntry, depth: u32) -> EventId {
        let mut idx = b.node as usize;
        loop {
            let node = &self.nodes[idx];
            if node.depth <= depth {
                return node.event;
            }
            idx = if node.jump_depth >= depth {
                node.jump_node as usize
            } else {
                node.parent_node as usize
            };
        }
    }

    /// Whether `a` is an ancestor of (or equal to) `b` in the tree of slot `s`.
    #[inline]
    pub fn below_on(&self, a: ConeEntry, b: ConeEntry) -> bool {
        a.depth <= b.depth && (a.event == b.event || self.ancestor_on(b, a.depth) == a.event)
    }

    /// Whether `a` and `b` are on one branch of slot `s`'s tree.
    #[inline]
    pub fn comparable_on(&self, a: ConeEntry, b: ConeEntry) -> bool {
        if a.depth <= b.depth {
            self.below_on(a, b)
        } else {
            self.below_on(b, a)
        }
    }

    /// Causality: `a ≤ b`.
    pub fn leq(&self, a: EventId, b: EventId) -> bool {
        if a == b || a == BOTTOM {
            return true;
        }
        if b == BOTTOM || self.size(a) >= self.size(b) {
            return false;
        }
        // a's first node is its node on the first slot of its label.
        let s = self.event_slots(a)[0];
        let entry = self.node_entry(self.events[a as usize].node_start);
        self.below_on(entry, self.cone_at(b, s))
    }

    /// Causality `a ≤ b` between two events of one configuration: on `a`'s first slot both
    /// `a` and the last event of `[b]` there lie in that configuration, so on one branch of the
    /// slot's tree, and comparing their depths decides it (no walk up the tree).
    #[inline]
    pub fn leq_in_configuration(&self, a: EventId, b: EventId) -> bool {
        let answer = if a == b || a == BOTTOM {
            true
        } else if b == BOTTOM || self.size(a) >= self.size(b) {
            false
        } else {
            let s = self.event_slots(a)[0];
            self.nodes[self.events[a as usize].node_start as usize].depth
                <= self.cone_at(b, s).depth
        };
        debug_assert_eq!(answer, self.leq(a, b), "{a} ≤ {b}");
        answer
    }

    /// Conflict: `a # b` (some event of `[a]` and some of `[b]` are dependent and unordered).
    /// Only slots both local configurations touch can separate them (⊥ is below everything).
    pub fn conflict(&self, a: EventId, b: EventId) -> bool {
        self.conflict_slot(a, b).is_some()
    }

    /// A slot on which `[a]` and `[b]` part (see [`conflict`](Self::conflict)), if any.
    pub fn conflict_slot(&self, a: EventId, b: EventId) -> Option<Slot> {
        self.first_slot_where(a, b, |x, y| self.nodes_part(x, y))
    }

    /// Whether `[a]` and `[b]` part on slot `s`: one slot of [`conflict`](Self::conflict), for
    /// trying first the slot on which the last pair tested parted.
    pub fn conflict_on(&self, a: EventId, b: EventId, s: Slot) -> bool {
        self.holds_on(a, b, s, |x, y| self.nodes_part(x, y))
    }

    /// Whether two nodes of one slot are events on different branches.
    #[inline]
    fn nodes_part(&self, x: u32, y: u32) -> bool {
        !self.comparable_on(self.node_entry(x), self.node_entry(y))
    }

    /// The first slot on which the cones of `a` and `b` name two different events (neither
    /// ⊥) for which `parts` holds, if any.
    #[inline]
    fn first_slot_where(
        &self,
        a: EventId,
        b: EventId,
        parts: impl Fn(u32, u32) -> bool,
    ) -> Option<Slot> {
        let mut found = None;
        self.cones
            .any_shared(self.cone(a), self.cone(b), |s, x, y| {
                let here = parts(x, y);
                if here {
                    found = Some(s);
                }
                here
            });
        found
    }

    /// Whether on slot `s` the cones of `a` and `b` name two different events (neither ⊥) for
    /// which `parts` holds: one slot of [`first_slot_where`](Self::first_slot_where).
    #[inline]
    fn holds_on(&self, a: EventId, b: EventId, s: Slot, parts: impl Fn(u32, u32) -> bool) -> bool {
        let (x, y) = (
            self.cones.get(self.cone(a), s),
            self.cones.get(self.cone(b), s),
        );
        x != y && x != s && y != s && parts(x, y)
    }

    /// Whether `[e]` conflicts with a configuration given by its cone as an array (one entry
    /// per slot).
    pub fn conflicts_with_cone(&self, e: EventId, cone: &[ConeEntry]) -> bool {
        self.conflict_slot_with_cone(e, cone).is_some()
    }

    /// A slot on which `[e]` conflicts with the configuration of cone `cone` (see
    /// [`conflicts_with_cone`](Self::conflicts_with_cone)), if any.
    pub fn conflict_slot_with_cone(&self, e: EventId, cone: &[ConeEntry]) -> Option<Slot> {
        let mut found = None;
        // Slots where [e] has no event cannot separate: ⊥ is below everything.
        self.cones.any_entry(self.cone(e), |s, x| {
            let parts = self.node_parts_from(x, cone[s as usize]);
            if parts {
                found = Some(s);
            }
            parts
        });
        found
    }

    /// Whether `[e]` conflicts with the configuration of cone `cone` on slot `s`: one slot
    /// of [`conflicts_with_cone`](Self::conflicts_with_cone), for trying first the slot on
    /// which the last candidate conflicted.
    pub fn conflicts_with_cone_on(&self, e: EventId, cone: &[ConeEntry], s: Slot) -> bool {
        let x = self.cones.get(self.cone(e), s);
        x != s && self.node_parts_from(x, cone[s as usize])
    }

    /// Whether the node `x` (not ⊥'s) and the entry `y`, on one slot, are events on different
    /// branches.
    #[inline]
    fn node_parts_from(&self, x: u32, y: ConeEntry) -> bool {
        x != y.node && !self.comparable_on(self.node_entry(x), y)
    }

    /// Immediate conflict `a #ⁱ b`: `a # b`, and `[a] ∪ [b] \ {a, b}` is a configuration. With
    /// both histories compatible, that means: on every slot they share they have the same
    /// parent, and no other slot separates their histories.
    pub fn immediate_conflict(&self, a: EventId, b: EventId) -> bool {
        self.immediate_conflict_from(a, b, None)
    }

    /// [`immediate_conflict`](Self::immediate_conflict), and `s` is the first slot `a` and
    /// `b` share: each pair in immediate conflict is then found once, on one slot's siblings.
    pub fn immediate_conflict_first_on(&self, a: EventId, b: EventId, s: Slot) -> bool {
        self.immediate_conflict_from(a, b, Some(s))
    }

    /// The slots `a` and `b` share, in order, each with the indexes in `nodes` of their
    /// two nodes there.
    #[inline(always)]
    fn shared_nodes(&self, a: EventId, b: EventId) -> impl Iterator<Item = (Slot, usize, usize)> {
        let (sa, sb) = (self.event_slots(a), self.event_slots(b));
        // The i-th node of an event is its node on the i-th slot of its label.
        let (na, nb) = (
            self.events[a as usize].node_start as usize,
            self.events[b as usize].node_start as usize,
        );
        let (mut i, mut j) = (0, 0);
        std::iter::from_fn(move || {
            while i < sa.len() && j < sb.len() {
                match sa[i].cmp(&sb[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        let found = (sa[i], na + i, nb + j);
                        i += 1;
                        j += 1;
                        return Some(found);
                    }
                }
            }
            None
        })
    }

    /// The first slot on which `a` and `b` are children of one node (siblings there, so in
    /// conflict), with that parent.
    pub fn sibling_slot(&self, a: EventId, b: EventId) -> Option<(Slot, EventId)> {
        self.shared_nodes(a, b).find_map(|(s, x, y)| {
            let parent = self.nodes[x].parent_node;
            (parent == self.nodes[y].parent_node).then(|| (s, self.nodes[parent as usize].event))
        })
    }

    /// `a` and `b` are in conflict but their histories are not. Cheap rejections first:
    /// the two must be siblings on every slot they share.
    fn immediate_conflict_from(&self, a: EventId, b: EventId, first: Option<Slot>) -> bool {
        if a == b || a == BOTTOM || b == BOTTOM {
            return false;
        }
        let mut shared = false;
        for (s, x, y) in self.shared_nodes(a, b) {
            if !shared && first.is_some_and(|f| f != s) {
                return false;
            }
            if self.nodes[x].parent_node != self.nodes[y].parent_node {
                return false;
            }
            shared = true;
        }
        shared && self.histories_compatible(a, b)
    }

    /// Whether `[a] ∪ [b] \ {a, b}` is a configuration (for two non-⊥ events): the cones with
    /// each event replaced by its parent on its own slots agree. Only slots both cones name
    /// can separate them.
    pub fn histories_compatible(&self, a: EventId, b: EventId) -> bool {
        self.histories_parting_slot(a, b).is_none()
    }

    /// `None` when [`histories_compatible`](Self::histories_compatible) holds; otherwise a
    /// slot on which the two histories part (see [`histories_part_on`](Self::histories_part_on)).
    pub fn histories_parting_slot(&self, a: EventId, b: EventId) -> Option<Slot> {
        self.first_slot_where(a, b, |x, y| self.entries_part(a, b, x, y))
    }

    /// Whether `[a] \ {a}` and `[b] \ {b}` (for two non-⊥ events) name events on different
    /// branches of slot `s`, so that their union is no configuration: one slot of the test of
    /// [`histories_compatible`](Self::histories_compatible), for trying first the slot on
    /// which the last candidate's history parted from `a`'s (candidates alike part alike).
    pub fn histories_part_on(&self, a: EventId, b: EventId, s: Slot) -> bool {
        self.holds_on(a, b, s, |x, y| self.entries_part(a, b, x, y))
    }

    /// [`histories_part_on`](Self::histories_part_on) for `a` and each event of `bs` on one
    /// slot `s`: `parted[i]` for `bs[i]`. The events' cones are read together (see
    /// [`ConeForest::get_each`]): a scan of siblings spends most of its time waiting for
    /// their scattered cones, and this waits for many at once. `room` is scratch.
    pub fn histories_part_on_each(
        &self,
        a: EventId,
        s: Slot,
        bs: &[EventId],
        room: &mut Vec<u32>,
        parted: &mut Vec<bool>,
    ) {
        parted.clear();
        let x = self.cones.get(self.cone(a), s);
        if x == s {
            parted.resize(bs.len(), false);
            return;
        }
        let xa = self.history_cone_entry(a, self.node_entry(x));
        room.clear();
        room.extend(bs.iter().map(|&b| self.cone(b)));
        self.cones.get_each(s, room);
        parted.extend(bs.iter().zip(room.iter()).map(|(&b, &y)| {
            y != x && y != s && {
                let yb = self.history_cone_entry(b, self.node_entry(y));
                xa != yb && !self.comparable_on(xa, yb)
            }
        }));
        debug_assert!(
            bs.iter()
                .zip(parted.iter())
                .all(|(&b, &p)| p == self.histories_part_on(a, b, s))
        );
    }

    /// Whether the nodes `x` of `[a]` and `y` of `[b]` (on one slot, not ⊥'s) become, with
    /// `a` and `b` replaced by their parents, two events on different branches.
    #[inline]
    fn entries_part(&self, a: EventId, b: EventId, x: u32, y: u32) -> bool {
        let x = self.history_cone_entry(a, self.node_entry(x));
        let y = self.history_cone_entry(b, self.node_entry(y));
        x != y && !self.comparable_on(x, y)
    }

    /// The entry of `[e] \ {e}` on slot `s`, given the entry `c` of `[e]` there.
    #[inline]
    fn history_cone_entry(&self, e: EventId, c: ConeEntry) -> ConeEntry {
        if c.event == e {
            self.parent_entry(c)
        } else {
            c
        }
    }

    /// The event `<t, H>` with immediate predecessors `preds`, if it exists.
    pub fn find(&self, t: Transition, preds: &[EventId]) -> Option<EventId> {
        let h = short_hash(t, preds);
        let is = |e: EventId, eh: u32| eh == h && self.label(e) == t && self.preds(e) == preds;
        let mut same = self.pending.with_hash(h);
        while same != 0 {
            let e = self.pending.ids[same.trailing_zeros() as usize];
            same &= same - 1;
            if is(e, h) {
                return Some(e);
            }
        }
        self.table
            .find(table_hash(h), |&(e, eh)| is(e, eh))
            .map(|&(e, _)| e)
    }

    /// [`find`](Self::find), given the parents of the event on the slots of `t` (as
    /// [`insert`](Self::insert) takes them): an event whose parent on some slot has no children
    /// does not exist, and the probe of the table (a miss in the cache) is spared.
    pub fn find_by_parents(
        &self,
        t: Transition,
        preds: &[EventId],
        parents: &[ConeEntry],
    ) -> Option<EventId> {
        if self.has_childless_parent(parents) {
            return None;
        }
        self.find(t, preds)
    }

    /// Whether one of `parents` (entries of events on their slots) has no children there: no
    /// event has those parents then.
    fn has_childless_parent(&self, parents: &[ConeEntry]) -> bool {
        parents
            .iter()
            .any(|x| self.nodes[x.node as usize].last_child == NO_NODE)
    }

    /// Moves the pending events into the table.
    fn flush_pending(&mut self) {
        self.table
            .reserve(self.pending.len(), |&(_, eh)| table_hash(eh));
        for (e, h) in self.pending.entries() {
            self.table
                .insert_unique(table_hash(h), (e, h), |&(_, eh)| table_hash(eh));
        }
        self.pending.clear();
    }

    /// Computes `state(H)` for the history `H = ⋃ [p]` over `preds` into `out`, and returns
    /// `|H|`. Fires only the events of `H` outside the local configuration of the largest
    /// predecessor. `H` must be a configuration (as the history of an event is), and `preds`
    /// its maximal events: none of them lies below another, so only their own predecessors
    /// need the test of causality.
    pub fn history_state<S: System + ?Sized>(
        &mut self,
        sys: &S,
        preds: &[EventId],
        out: &mut [u64],
    ) -> Result<u32, Overflow> {
        let base = self.largest(preds);
        if let [_] = preds {
            // H = [base]: nothing to walk.
            self.states.read(base, out);
            return Ok(self.size(base));
        }
        // Two stamps per walk: an event seen outside `[base]`, and one seen inside it.
        self.epoch = self.epoch.wrapping_add(2);
        if self.epoch < 2 {
            self.stamp.fill(0);
            self.epoch = 2;
        }
        let (seen_outside, seen_inside) = (self.epoch, self.epoch + 1);
        if self.stamp.len() < self.events.len() {
            self.stamp.resize(self.events.len(), 0);
        }
        // A depth-first walk down the predecessors that lists an event once all of its
        // predecessors outside `[base]` are listed: a causal order, with no sort.
        let mut stack = std::mem::take(&mut self.walk_scratch);
        stack.clear();
        stack.extend(
            preds
                .iter()
                .filter(|&&p| p != base)
                .map(|&p| (p, Walk::Outside)),
        );
        let mut outside = std::mem::take(&mut self.scratch);
        outside.clear();
        while let Some((x, step)) = stack.pop() {
            if step == Walk::List {
                outside.push(x);
                continue;
            }
            let mark = self.stamp[x as usize];
            if mark == seen_outside || mark == seen_inside {
                continue;
            }
            debug_assert!(step == Walk::Test || !self.leq_in_configuration(x, base));
            if step == Walk::Test && self.leq_in_configuration(x, base) {
                self.stamp[x as usize] = seen_inside;
                continue;
            }
            self.stamp[x as usize] = seen_outside;
            stack.push((x, Walk::List));
            for &p in self.preds(x) {
                let mark = self.stamp[p as usize];
                if mark != seen_outside && mark != seen_inside {
                    stack.push((p, Walk::Test));
                }
            }
        }
        self.states.read(base, out);
        let mut tmp = std::mem::take(&mut self.state_scratch);
        tmp.resize(self.words, 0);
        let mut fired = Ok(());
        for &x in &outside {
            fired = sys.fire(out, self.label(x), &mut tmp);
            if fired.is_err() {
                break;
            }
            out.copy_from_slice(&tmp);
        }
        let size = self.size(base) + outside.len() as u32;
        self.scratch = outside;
        self.walk_scratch = stack;
        self.state_scratch = tmp;
        fired.map(|()| size)
    }

    /// Inserts the new event `<t, H>`: `preds` are the maximal events of `H` (sorted), `xs`
    /// the last event of `H` on each slot of `t` (in the order of `slots.of(t)`), `size = |H|`,
    /// and `state` is `state([e])` (after firing `t`). The event must not exist yet.
    pub fn insert(
        &mut self,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
        history_size: u32,
        state: &[u64],
    ) -> EventId {
        let id = self.link(t, preds, xs);
        self.events[id as usize].size = history_size + 1;
        // The largest predecessor's state differs from this one in the fewest blocks.
        let like = preds.iter().copied().max_by_key(|&p| self.size(p));
        self.states.put(id, state, like);
        id
    }

    /// Builds the event `<t, H>` if `t` is enabled at `state(H)`, and inserts it: `preds` are
    /// the maximal events of `H` (sorted), `xs` the last event of `H` on each slot of `t` (in
    /// the order of `slots.of(t)`). The event must not exist yet. `h` and `after` are scratch
    /// room of [`words`](Self::words) words: they end as `state(H)` and `state([e])`.
    pub fn make<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
        h: &mut [u64],
        after: &mut [u64],
    ) -> Result<Option<EventId>, Overflow> {
        if self.words_of.is_some()
            && self.words > WHOLE_WORDS
            && (preds.len() == 1 || self.parts.is_some())
        {
            return self.make_sparse(sys, t, preds, xs, h);
        }
        if self.parts.is_none() || preds.len() == 1 {
            // With one predecessor p, H = [p]: nothing to walk or to assemble.
            let size = self.history_state(sys, preds, h)?;
            if !sys.is_enabled(h, t) {
                return Ok(None);
            }
            sys.fire(h, t, after)?;
            return Ok(Some(self.insert(t, preds, xs, size, after)));
        }
        let base = self.largest(preds);
        let id = self.link(t, preds, xs);
        let size = self.assemble_history_state(id, base, h);
        #[cfg(debug_assertions)]
        {
            let mut walked = vec![0; self.words];
            let walked_size = self.history_state(sys, preds, &mut walked);
            assert_eq!(walked_size, Ok(size), "|H| of <{t}, {preds:?}>");
            assert_eq!(walked, h, "state(H) of <{t}, {preds:?}>");
        }
        let fired = if sys.is_enabled(h, t) {
            sys.fire(h, t, after).map(|()| true)
        } else {
            Ok(false)
        };
        if fired != Ok(true) {
            self.discard(id);
            return fired.map(|_| None);
        }
        self.events[id as usize].size = size + 1;
        self.states.put(id, after, Some(base));
        Ok(Some(id))
    }

    /// [`make`](Self::make) for states of many words: `h` gets only the words the history's
    /// assembly patches and the words `t` reads or writes (its other words are stale), `t` is
    /// fired on them in place, and the new state is stored as the largest predecessor's with
    /// the words that differ. The cost follows the history's difference and `t`'s footprint,
    /// not the size of the state.
    fn make_sparse<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
        h: &mut [u64],
    ) -> Result<Option<EventId>, Overflow> {
        let base = self.largest(preds);
        let mut room = std::mem::take(&mut self.sparse);
        room.begin(self.words);
        let (linked, size) = if preds.len() == 1 {
            (None, self.size(base))
        } else {
            let id = self.link(t, preds, xs);
            let states = &self.states;
            let size = self.assemble_history(id, base, |w, m, x| {
                room.load(w, h, states, base);
                h[w] = (h[w] & !m) | (states.word(x, w) & m);
            });
            (Some(id), size)
        };
        let words_of = self.words_of.as_ref().expect("checked by make");
        for &w in words_of.of(t) {
            room.load(w as usize, h, &self.states, base);
        }
        let fired = if sys.is_enabled(h, t) {
            sys.fire_in_place(h, t).map(|()| true)
        } else {
            Ok(false)
        };
        let result = if fired == Ok(true) {
            room.changes.clear();
            for &w in &room.loaded {
                let w = w as usize;
                if h[w] != self.states.word(base, w) {
                    room.changes.push((w as u32, h[w]));
                }
            }
            let id = linked.unwrap_or_else(|| self.link(t, preds, xs));
            self.events[id as usize].size = size + 1;
            self.states.put_changes(id, base, &mut room.changes);
            Ok(Some(id))
        } else {
            if let Some(id) = linked {
                self.discard(id);
            }
            fired.map(|_| None)
        };
        self.sparse = room;
        #[cfg(debug_assertions)]
        self.check_sparse(sys, t, preds, &result);
        result
    }

    /// Debug builds: the event [`make_sparse`](Self::make_sparse) built (or did not) against
    /// the whole state of its history, fired.
    #[cfg(debug_assertions)]
    fn check_sparse<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        result: &Result<Option<EventId>, Overflow>,
    ) {
        let mut full = vec![0; self.words];
        let size = self.history_state(sys, preds, &mut full);
        let enabled = size.is_ok() && sys.is_enabled(&full, t);
        match result {
            Ok(Some(id)) => {
                assert!(enabled, "<{t}, {preds:?}> built, but t is not enabled");
                assert_eq!(size, Ok(self.size(*id) - 1), "|H| of <{t}, {preds:?}>");
                let mut after = vec![0; self.words];
                sys.fire(&full, t, &mut after).expect("fired sparsely");
                let mut got = vec![0; self.words];
                self.states.read(*id, &mut got);
                assert_eq!(got, after, "state of <{t}, {preds:?}>");
            }
            Ok(None) => assert!(!enabled, "<{t}, {preds:?}> not built, but t is enabled"),
            Err(_) => {}
        }
    }

    /// The predecessor with the largest local configuration (the last of them if several
    /// tie, as `max_by_key` picks).
    fn largest(&self, preds: &[EventId]) -> EventId {
        *preds
            .iter()
            .max_by_key(|&&p| self.size(p))
            .expect("a history has a maximal event")
    }

    /// `state(H)` into `h`, and `|H|`, for the history `H` of the event `e` just linked (whose
    /// state is not stored yet), from the state of `base`, its largest predecessor: on every
    /// slot where `H` reaches further than `[base]`, the bits the slot decides come from the
    /// state of `H`'s last event on it (see [`super::parts`]), and the events between count
    /// towards the size.
    fn assemble_history_state(&self, e: EventId, base: EventId, h: &mut [u64]) -> u32 {
        self.states.read(base, h);
        let states = &self.states;
        self.assemble_history(e, base, |w, m, x| {
            h[w] = (h[w] & !m) | (states.word(x, w) & m);
        })
    }

    /// The walk of [`assemble_history_state`](Self::assemble_history_state): calls
    /// `patch(w, m, x)` for the bits `m` of word `w` that `state(H)` takes from `state([x])`
    /// (the others are `base`'s), and returns `|H|`.
    fn assemble_history(
        &self,
        e: EventId,
        base: EventId,
        mut patch: impl FnMut(usize, u64, EventId),
    ) -> u32 {
        let parts = self
            .parts
            .as_ref()
            .expect("the system's slots decide its state");
        let mut size = self.size(base);
        let nodes = &self.nodes;
        let (mine, theirs) = (
            self.events[e as usize].cone,
            self.events[base as usize].cone,
        );
        self.cones
            .for_each_difference(mine, theirs, parts.read(), |s, x, y| {
                // On e's own slots, H's last event is e's parent.
                let nx = &nodes[x as usize];
                let x = if nx.event == e { nx.parent_node } else { x };
                if x == y {
                    return;
                }
                let (nx, ny) = (&nodes[x as usize], &nodes[y as usize]);
                size += nx.firsts - ny.firsts;
                for &(w, m) in parts.of(s) {
                    patch(w as usize, m, nx.event);
                }
            });
        size
    }

    /// Takes back the event `e` just linked, whose state is not stored: the room of its nodes
    /// is given back to `nodes` when they were the last, so that their order stays intact.
    fn discard(&mut self, e: EventId) {
        let d = self.events[e as usize];
        let k = self.slots.of(d.label).len();
        self.remove(e);
        if d.node_start as usize + k == self.nodes.len() {
            let run = self.free_nodes.get_mut(&(k as u32)).and_then(Vec::pop);
            debug_assert_eq!(run, Some(d.node_start));
            self.nodes.truncate(d.node_start as usize);
            self.child_count.truncate(d.node_start as usize);
        }
    }

    /// [`insert`](Self::insert) without the size and the state: the event's nodes, cone,
    /// predecessors and table entry.
    fn link(&mut self, t: Transition, preds: &[EventId], xs: &[ConeEntry]) -> EventId {
        debug_assert!(self.find(t, preds).is_none());
        let reused = self.free_ids.pop();
        let id = reused.unwrap_or(self.events.len() as EventId);
        let mut own = std::mem::take(&mut self.own_scratch);
        own.clear();
        let my_slots = self.slots.of(t);
        let k = my_slots.len();
        let node_start = match self.free_nodes.get_mut(&(k as u32)).and_then(Vec::pop) {
            Some(start) => {
                self.nodes_in_order = false;
                start
            }
            None => {
                let start = self.nodes.len() as u32;
                grow(&mut self.nodes, k);
                grow(&mut self.child_count, k);
                for _ in 0..k {
                    self.nodes.push(SlotNode::bottom(0));
                    self.child_count.push(0);
                }
                start
            }
        };
        // Each event counts towards the sizes of histories on one of its slots.
        let primary = self.parts.as_ref().map_or(0, |p| p.primary(t));
        for (i, &parent) in xs.iter().enumerate().take(k) {
            let s = self.slots.of(t)[i];
            let pidx = parent.node as usize;
            debug_assert_eq!(pidx, self.node_index(parent.event, s));
            let pnode = self.nodes[pidx];
            let jnode = self.nodes[pnode.jump_node as usize];
            // Skew-binary jumps: O(log depth) steps to any ancestor.
            let (jump_node, jump_depth) = if pnode.depth > 0
                && pnode.depth - pnode.jump_depth == pnode.jump_depth - jnode.jump_depth
            {
                (jnode.jump_node, jnode.jump_depth)
            } else {
                (pidx as u32, pnode.depth)
            };
            let me = node_start + i as u32;
            // The new last child comes before the first.
            let first = if pnode.last_child == NO_NODE {
                me
            } else {
                let last = pnode.last_child as usize;
                std::mem::replace(&mut self.nodes[last].next_sibling, me)
            };
            self.nodes[pidx].last_child = me;
            self.child_count[me as usize] = 0;
            if self.child_count[pidx] >= WIDE_AT {
                let array = self.wide.get_mut(&(pidx as u32));
                self.wide_bytes += array.expect("a wide node has its array").push(id);
            } else {
                self.child_count[pidx] += 1;
                if self.child_count[pidx] == WIDE_AT {
                    // Listed when a scan asks (see `index_children`).
                    let array = WideChildren {
                        count: u32::from(WIDE_AT),
                        ..WideChildren::default()
                    };
                    self.wide.insert(pidx as u32, array);
                }
            }
            self.nodes[me as usize] = SlotNode {
                event: id,
                depth: parent.depth + 1,
                parent_node: pidx as u32,
                jump_node,
                jump_depth,
                firsts: pnode.firsts + u32::from(i == primary),
                last_child: NO_NODE,
                next_sibling: first,
            };
            own.push((s, me));
        }
        // Cone: the predecessors' cones merged (the deeper entry where two name a slot: they
        // lie in one configuration, so those are on one branch), then e itself on its own
        // slots, where it is deeper than anything of its history.
        let mut roots = std::mem::take(&mut self.roots_scratch);
        roots.clear();
        roots.extend(preds.iter().map(|&p| self.events[p as usize].cone));
        let nodes = &self.nodes;
        let depth = |n: u32| nodes[n as usize].depth;
        let deeper = if self.nodes_in_order {
            Deeper::ByIndex
        } else {
            Deeper::ByDepth(depth)
        };
        let cone = self.cones.build(&roots, &own, deeper);
        #[cfg(debug_assertions)]
        for s in 0..self.slots.count() as u32 {
            let mut want = s;
            for &r in &roots {
                let n = self.cones.get(r, s);
                if n != s
                    && (want == s || self.nodes[n as usize].depth > self.nodes[want as usize].depth)
                {
                    want = n;
                }
            }
            if let Some(&(_, n)) = own.iter().find(|x| x.0 == s) {
                want = n;
            }
            assert_eq!(
                self.cones.get(cone, s),
                want,
                "slot {s} of {} slots, roots {roots:?}, own {own:?}",
                self.slots.count()
            );
        }
        self.roots_scratch = roots;
        self.own_scratch = own;
        let preds_len = preds.len() as u32;
        let preds_start = match self.free_preds.get_mut(&preds_len).and_then(Vec::pop) {
            Some(start) => {
                self.preds[start as usize..(start + preds_len) as usize].copy_from_slice(preds);
                start
            }
            None => {
                let start = self.preds.len() as u32;
                grow(&mut self.preds, preds.len());
                self.preds.extend_from_slice(preds);
                start
            }
        };
        let level = 1 + preds.iter().map(|&p| self.level(p)).max().unwrap_or(0);
        let data = EventData {
            label: t,
            preds_start,
            preds_len,
            // Set by the caller.
            size: 0,
            node_start,
            level,
            cone,
        };
        if reused.is_some() {
            self.events[id as usize] = data;
        } else {
            grow(&mut self.events, 1);
            self.events.push(data);
        }
        self.live += 1;
        if self.pending.len() == PENDING {
            self.flush_pending();
        }
        self.pending.push(id, short_hash(t, preds));
        id
    }

    /// Bytes held by the store (allocated capacity), in O(1).
    pub fn bytes(&self) -> u64 {
        use std::mem::size_of;
        let free: usize = self.free_ids.capacity() * 4
            + (self.free_preds.len() + self.free_nodes.len()) * 32
            + self
                .free_preds
                .values()
                .chain(self.free_nodes.values())
                .map(|v| v.capacity() * 4)
                .sum::<usize>();
        (self.events.capacity() * size_of::<EventData>()
            + self.preds.capacity() * 4
            + self.nodes.capacity() * size_of::<SlotNode>()
            + self.children_removals.capacity() * 12
            + self.child_count.capacity()
            // Arrays grow by doubling: count them at twice their length.
            + self.wide.capacity() * 56
            + self.wide_bytes
            + self.cones.bytes() as usize
            + self.roots_scratch.capacity() * 4
            + self.own_scratch.capacity() * 8
            + self.states.bytes() as usize
            + self.table.capacity() * 9
            + PENDING * 8
            + self.stamp.capacity() * 4
            + free) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net_system::NetSystem;
    use crate::model::test_nets::machines;

    /// Events are found (and removed events are not) whether they still wait in the batch of
    /// new events or were moved into the table, and with their parents given or not.
    #[test]
    fn events_are_found_pending_or_not_and_after_removals() {
        // Transitions all taking the one machine out of its state 0: ⊥'s only extensions, in
        // conflict, with ⊥ their parent on every slot.
        let n = 3 * PENDING + 5;
        let moves: Vec<_> = (0..n).map(|i| vec![(0, 0, 1 + i % 2)]).collect();
        let net = machines(1, &moves);
        let sys = NetSystem::new(&net);
        let mut store = EventStore::new(&sys);
        let mut initial = vec![0; sys.state_words()];
        sys.initial_state(&mut initial);
        let mut after = initial.clone();
        let parents = |store: &EventStore, t: Transition| -> Vec<ConeEntry> {
            store
                .slots()
                .of(t)
                .iter()
                .map(|&s| ConeEntry::bottom(s))
                .collect()
        };
        let preds = [BOTTOM];
        let mut ids = vec![None; n];
        let check = |store: &EventStore, ids: &[Option<EventId>]| {
            for (t, &id) in ids.iter().enumerate() {
                let t = t as Transition;
                assert_eq!(store.find(t, &preds), id, "t{t}");
                assert_eq!(
                    store.find_by_parents(t, &preds, &parents(store, t)),
                    id,
                    "t{t}"
                );
            }
            // Each live event is named once, in the table or in the batch.
            let live = ids.iter().flatten().count();
            assert_eq!(store.table.len() + store.pending.len(), live);
        };
        check(&store, &ids);
        for i in 0..n {
            let t = i as Transition;
            sys.fire(&initial, t, &mut after).unwrap();
            ids[i] = Some(store.insert(t, &preds, &parents(&store, t), 0, &after));
            if i % 7 == 3 {
                check(&store, &ids);
            }
        }
        check(&store, &ids);
        // Some of those removed were moved into the table, the last ones still wait.
        let gone: Vec<usize> = (0..n).filter(|t| t % 3 == 0 || t + 3 > n).collect();
        for &t in &gone {
            store.remove(ids[t].take().unwrap());
            check(&store, &ids);
        }
        // Their ids are reused.
        for &t in &gone {
            let tt = t as Transition;
            sys.fire(&initial, tt, &mut after).unwrap();
            ids[t] = Some(store.insert(tt, &preds, &parents(&store, tt), 0, &after));
        }
        check(&store, &ids);
    }

    /// Children with labels of their own are not grouped by label, unless the labels they may
    /// have are too few; grouping is tried again once the children have doubled, and the
    /// bytes counted follow the groups made and given up.
    #[test]
    fn children_of_distinct_labels_are_not_grouped() {
        let label = |c: EventId| if c < 100 { c } else { 7 };
        let parent = |_: EventId, _: usize| 0;
        let mut array = WideChildren::default();
        let mut counted = 0;
        let add = |array: &mut WideChildren, cs: std::ops::Range<EventId>| {
            if array.listed {
                cs.map(|c| array.push(c)).sum()
            } else {
                array.count += cs.len() as u32;
                array.list(cs)
            }
        };
        counted += add(&mut array, 0..100);
        let (made, freed) = array.index_labels(1000, label, parent);
        counted = counted + made - freed;
        assert!(array.groups.is_empty() && array.one_by_one(0), "given up");
        assert_eq!(array.ungrouped_below, 200);
        assert_eq!(counted, array.bytes());
        // Not tried again before the children double.
        counted += add(&mut array, 100..150);
        assert_eq!(array.index_labels(1000, label, parent), (0, 0));
        assert!(array.one_by_one(0));
        // With 200 children, 100 labels are few enough: grouped, the last hundred as one.
        counted += add(&mut array, 150..200);
        let (made, freed) = array.index_labels(100, label, parent);
        counted = counted + made - freed;
        assert_eq!(counted, array.bytes());
        assert_eq!(array.groups.len(), 100);
        assert_eq!(array.groups[7].len(), 101);
        assert!(!array.one_by_one(0) && array.one_by_one(150));
        // Labels given as many as the children: given up again (the first ones decide).
        let mut wide = WideChildren::default();
        counted = add(&mut wide, 0..200);
        let (made, freed) = wide.index_labels(200, label, parent);
        counted = counted + made - freed;
        assert!(wide.groups.is_empty() && wide.one_by_one(0));
        assert_eq!(counted, wide.bytes());
    }

    /// A group's index passes the same rows as a plain scan, for every start and value,
    /// while rows are added after the sort, a column is added, and rows are removed.
    #[test]
    fn indexed_rows_match_a_scan() {
        let mut group = ChildGroup::new(0);
        // Children with parents 0..7 on the label's slot 1 and 0..3 on slot 0.
        let parent = |p: u32, j: usize| if j == 1 { p * 5 % 7 } else { p % 3 };
        for p in 0..200 {
            group.push(p, |j| parent(p, j));
        }
        group.add_column(1, parent);
        let check = |group: &ChildGroup, at: usize| {
            for from in [0, 1, 63, 64, 150, 199, 250, 300] {
                for want in 0..8 {
                    group.check_rows_with(from, at, want);
                }
            }
        };
        group.index_by(1);
        assert!(group.index.is_some());
        let at = group.column(1).unwrap();
        check(&group, at);
        // Rows added after the sort are read from the tail.
        for p in 200..240 {
            group.push(p, |j| parent(p, j));
        }
        group.index_by(1);
        assert_eq!(
            group.index.as_ref().unwrap().upto,
            200,
            "few new rows: no new sort"
        );
        check(&group, at);
        // A second column moves no row number; the first stays indexed.
        group.add_column(0, parent);
        for j in [0, 1] {
            let at = group.column(j).unwrap();
            assert!(
                group.rows_from(0).all(|row| row[at] == parent(row[0], j)),
                "column {j} holds the parents there"
            );
        }
        check(&group, group.column(1).unwrap());
        check(&group, group.column(0).unwrap());
        // Removing a row renumbers the rows after it: the index is dropped, then rebuilt.
        group.remove_position(17);
        assert!(group.index.is_none());
        group.index_by(1);
        check(&group, group.column(1).unwrap());
    }
}
