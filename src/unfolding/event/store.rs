//! The arena of events: building a store, adding events, finding them by identity and
//! removing them, and what the store records of each event.
//!
//! Events are hash-consed: an event is its label and its sorted immediate predecessors, and
//! [`EventStore::find`] returns the id an identity already has. Ids are dense; a removed
//! event's id, predecessor run and nodes are reused by later insertions.

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use super::history::{HistoryStates, SparseRoom};
use super::{
    BOTTOM, ConeEntry, EventData, EventId, EventStore, FREE_LABEL, NO_LABEL, NO_NODE, SlotNode,
};
use crate::rows::Rows;
use crate::system::{System, Transition};
use crate::unfolding::cone::{ConeForest, ConeLayout, Deeper, EMPTY, FLAT_MAX};
use crate::unfolding::parts::{SlotParts, TransitionWords};
use crate::unfolding::slots::{Slot, SlotCover, SlotMap};
use crate::unfolding::states::{StateBlocks, WHOLE_WORDS};
use crate::unfolding::{grow, short_hash, table_hash};

/// The most events made and not yet in the store's table (see `EventStore::pending`): a
/// scan of them is cheaper than a probe of the table that misses the cache.
pub(super) const PENDING: usize = 32;

/// Events made and not yet in the store's table (see `EventStore::pending`), with their
/// [`short_hash`]es: in arrays, so that the hashes are compared all at once.
#[derive(Clone, Debug)]
pub(super) struct Batch {
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

/// Events stored before [`EventStore::choose_cone_layout`] compares the memory of the cones
/// as trees and as flat arrays: enough for the fixed costs to be a small share.
pub const CONE_SAMPLE: usize = 8192;

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
            self.detach_leaf_node(d.node_start + i as u32);
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

    /// The blocks holding the events' states, for a [`StateSet`](crate::unfolding::states::StateSet)
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
    pub(super) fn node_index(&self, e: EventId, s: Slot) -> usize {
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

    /// Takes back the event `e` just linked, whose state is not stored: the room of its nodes
    /// is given back to `nodes` when they were the last, so that their order stays intact.
    pub(super) fn discard(&mut self, e: EventId) {
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
    pub(super) fn link(&mut self, t: Transition, preds: &[EventId], xs: &[ConeEntry]) -> EventId {
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
            let first = self.append_child(pidx, me, id);
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
}
