//! The children of each node of a slot tree: the events whose parent on that slot is the
//! node's event, in the order they were added.
//!
//! Every node threads its children through the nodes themselves as a circular list, so that a
//! node costs no allocation of its own. A node with [`WIDE_AT`] children or more also gets a
//! [`WideChildren`], which counts them and, once a scan asks
//! ([`EventStore::index_children`]), keeps them in an array in the same order and grouped by
//! label ([`ChildGroup`]). Children are only appended, but for the removal of leaves, which
//! [`EventStore::siblings_removals`] counts so that a cursor ([`ChildCursor`]) knows when it
//! went stale.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{EventId, EventStore, NO_NODE, SlotNode};
use crate::system::Transition;
use crate::unfolding::slots::Slot;

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
/// nodes are never scanned.
#[derive(Clone, Debug, Default)]
pub(super) struct WideChildren {
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

/// Children above which a node keeps them in an array as well: scanning a long list of
/// siblings node by node waits on memory at every step, reading an array does not.
pub(super) const WIDE_AT: u8 = 12;

impl EventStore {
    /// Makes the node `me` of the new event `id` the last child of the node `parent`, and
    /// returns the `next_sibling` `me` must get (its own node is written by the caller).
    #[inline]
    pub(super) fn append_child(&mut self, parent: usize, me: u32, id: EventId) -> u32 {
        // The new last child comes before the first.
        let last = self.nodes[parent].last_child;
        let first = if last == NO_NODE {
            me
        } else {
            std::mem::replace(&mut self.nodes[last as usize].next_sibling, me)
        };
        self.nodes[parent].last_child = me;
        self.child_count[me as usize] = 0;
        if self.child_count[parent] >= WIDE_AT {
            let array = self.wide.get_mut(&(parent as u32));
            self.wide_bytes += array.expect("a wide node has its array").push(id);
        } else {
            self.child_count[parent] += 1;
            if self.child_count[parent] == WIDE_AT {
                // Listed when a scan asks (see `index_children`).
                let array = WideChildren {
                    count: u32::from(WIDE_AT),
                    ..WideChildren::default()
                };
                self.wide.insert(parent as u32, array);
            }
        }
        first
    }

    /// Takes the node `me` of a leaf event (being removed) out of its parent's children, and
    /// counts the removal there (see [`siblings_removals`](Self::siblings_removals)).
    pub(super) fn detach_leaf_node(&mut self, me: u32) {
        let pidx = self.nodes[me as usize].parent_node as usize;
        self.unlink_child(pidx, me);
        let removals = self.children_removals.entry(pidx as u32).or_default();
        *removals = removals.wrapping_add(1);
        // A leaf's nodes have no children left, but may keep an emptied array (only a node
        // that had WIDE_AT children has one: the count skips the lookup for others).
        if self.child_count[me as usize] >= WIDE_AT
            && let Some(array) = self.wide.remove(&me)
        {
            self.wide_bytes -= array.bytes();
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
