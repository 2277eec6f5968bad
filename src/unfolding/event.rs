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
//!   slot the two cones name events on different branches of that slot's tree.
//! - Each event keeps `state([e])`, computed from the state of its largest predecessor by
//!   firing the few events of the history outside that predecessor's local configuration.
//! - Events can be removed again, leaves first (an event none of whose causal successors is
//!   stored): that is how the exploration's memory-bounded cache gives memory back. A removed
//!   event's id and storage are reused by later insertions, so the arrays stop growing once
//!   removals keep up with insertions.

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use super::identity_hash as key_hash;
use super::slots::{Slot, SlotMap};
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
}

/// A node of a slot tree.
#[derive(Clone, Copy, Debug)]
struct SlotNode {
    parent: EventId,
    jump: EventId,
    depth: u32,
}

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
}

/// The arena of events with their indexes.
pub struct EventStore {
    slots: SlotMap,
    words: usize,
    events: Vec<EventData>,
    preds: Vec<EventId>,
    nodes: Vec<SlotNode>,
    /// Children of every node (same index as `nodes`), for immediate-conflict queries.
    children: Vec<Vec<EventId>>,
    cones: Vec<ConeEntry>,
    states: Vec<u64>,
    table: HashTable<EventId>,
    /// Ids of removed events, for reuse.
    free_ids: Vec<EventId>,
    /// Freed runs of `preds`, by length.
    free_preds: FxHashMap<u32, Vec<u32>>,
    /// Freed runs of `nodes` (and `children`), by length.
    free_nodes: FxHashMap<u32, Vec<u32>>,
    /// Events stored, ⊥ excluded.
    live: usize,
    /// Bytes held by the `children` lists, kept up to date so that `bytes` is O(1).
    children_bytes: usize,
    /// Scratch cone for insertions.
    cone_scratch: Vec<ConeEntry>,
    // Scratch space for history walks.
    stamp: Vec<u32>,
    epoch: u32,
    scratch: Vec<EventId>,
}

impl EventStore {
    /// A store holding only ⊥, whose state is the initial state of `sys`.
    pub fn new<S: System + ?Sized>(sys: &S) -> Self {
        let slots = SlotMap::new(sys);
        let n = slots.count();
        let words = sys.state_words();
        let mut states = vec![0; words];
        sys.initial_state(&mut states);
        EventStore {
            words,
            events: vec![EventData {
                label: NO_LABEL,
                preds_start: 0,
                preds_len: 0,
                size: 0,
                node_start: 0,
                level: 0,
            }],
            preds: Vec::new(),
            nodes: vec![
                SlotNode {
                    parent: BOTTOM,
                    jump: BOTTOM,
                    depth: 0,
                };
                n
            ],
            children: vec![Vec::new(); n],
            cones: vec![
                ConeEntry {
                    event: BOTTOM,
                    depth: 0
                };
                n
            ],
            states,
            table: HashTable::new(),
            free_ids: Vec::new(),
            free_preds: FxHashMap::default(),
            free_nodes: FxHashMap::default(),
            live: 0,
            children_bytes: 0,
            cone_scratch: Vec::new(),
            stamp: vec![0],
            epoch: 0,
            scratch: Vec::new(),
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

    /// Number of events stored, ⊥ excluded.
    pub fn live(&self) -> usize {
        self.live
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
        self.children[d.node_start as usize..d.node_start as usize + k]
            .iter()
            .all(Vec::is_empty)
    }

    /// Removes the leaf `e` (not ⊥): its id and storage will be reused.
    pub fn remove(&mut self, e: EventId) {
        debug_assert!(e != BOTTOM && self.is_live(e) && self.is_leaf(e));
        let d = self.events[e as usize];
        let k = self.slots.of(d.label).len();
        for i in 0..k {
            let s = self.slots.of(d.label)[i];
            let parent = self.nodes[d.node_start as usize + i].parent;
            let pidx = self.node_index(parent, s);
            let list = &mut self.children[pidx];
            if let Some(pos) = list.iter().position(|&c| c == e) {
                list.remove(pos);
            }
        }
        let h = key_hash(d.label, self.preds(e));
        if let Ok(entry) = self.table.find_entry(h, |&x| x == e) {
            entry.remove();
        }
        self.free_preds
            .entry(d.preds_len)
            .or_default()
            .push(d.preds_start);
        self.free_nodes
            .entry(k as u32)
            .or_default()
            .push(d.node_start);
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

    /// `state([e])`.
    #[inline]
    pub fn state(&self, e: EventId) -> &[u64] {
        &self.states[e as usize * self.words..(e as usize + 1) * self.words]
    }

    /// The slots `e` is on (every slot for ⊥).
    #[inline]
    fn slots_of(&self, e: EventId) -> SlotsOf<'_> {
        if e == BOTTOM {
            SlotsOf::All(self.slots.count() as u32)
        } else {
            SlotsOf::Some(self.slots.of(self.label(e)))
        }
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
        self.nodes[self.node_index(e, s)].parent
    }

    /// `e`'s depth on slot `s`.
    #[inline]
    pub fn depth_on(&self, e: EventId, s: Slot) -> u32 {
        self.nodes[self.node_index(e, s)].depth
    }

    /// The cone of `e`: for every slot, the last event of `[e]` on it.
    #[inline]
    pub fn cone(&self, e: EventId) -> &[ConeEntry] {
        let n = self.slots.count();
        &self.cones[e as usize * n..(e as usize + 1) * n]
    }

    /// The children of `e` on slot `s`.
    pub fn children_on(&self, e: EventId, s: Slot) -> &[EventId] {
        &self.children[self.node_index(e, s)]
    }

    /// The ancestor of `e` (on slot `s`) at depth `depth` (at most `e`'s depth).
    fn ancestor_at(&self, mut e: EventId, s: Slot, depth: u32) -> EventId {
        loop {
            let node = self.nodes[self.node_index(e, s)];
            if node.depth <= depth {
                return e;
            }
            let jump_depth = self.nodes[self.node_index(node.jump, s)].depth;
            e = if jump_depth >= depth {
                node.jump
            } else {
                node.parent
            };
        }
    }

    /// Whether `a` is an ancestor of (or equal to) `b` in the tree of slot `s`.
    #[inline]
    pub fn below_on(&self, a: ConeEntry, b: ConeEntry, s: Slot) -> bool {
        a.depth <= b.depth
            && (a.event == b.event || self.ancestor_at(b.event, s, a.depth) == a.event)
    }

    /// Whether `a` and `b` are on one branch of slot `s`'s tree.
    #[inline]
    pub fn comparable_on(&self, a: ConeEntry, b: ConeEntry, s: Slot) -> bool {
        if a.depth <= b.depth {
            self.below_on(a, b, s)
        } else {
            self.below_on(b, a, s)
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
        let s = self.event_slots(a)[0];
        let entry = ConeEntry {
            event: a,
            depth: self.depth_on(a, s),
        };
        self.below_on(entry, self.cone(b)[s as usize], s)
    }

    /// Conflict: `a # b` (some event of `[a]` and some of `[b]` are dependent and unordered).
    pub fn conflict(&self, a: EventId, b: EventId) -> bool {
        self.conflicts_with_cone(a, self.cone(b))
    }

    /// Whether `[e]` conflicts with a configuration given by its cone.
    pub fn conflicts_with_cone(&self, e: EventId, cone: &[ConeEntry]) -> bool {
        let mine = self.cone(e);
        mine.iter()
            .zip(cone)
            .enumerate()
            .any(|(s, (&x, &y))| x != y && !self.comparable_on(x, y, s as Slot))
    }

    /// Immediate conflict `a #ⁱ b`: `a # b`, and `[a] ∪ [b] \ {a, b}` is a configuration. With
    /// both histories compatible, that means: on every slot they share they have the same
    /// parent, and no other slot separates their histories.
    pub fn immediate_conflict(&self, a: EventId, b: EventId) -> bool {
        if a == b || a == BOTTOM || b == BOTTOM {
            return false;
        }
        let (sa, sb) = (self.event_slots(a), self.event_slots(b));
        let mut shared = false;
        let (mut i, mut j) = (0, 0);
        while i < sa.len() && j < sb.len() {
            match sa[i].cmp(&sb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if self.parent_on(a, sa[i]) != self.parent_on(b, sb[j]) {
                        return false;
                    }
                    shared = true;
                    i += 1;
                    j += 1;
                }
            }
        }
        if !shared {
            return false;
        }
        // Histories: the cones with each event replaced by its parent on its own slots.
        let (ca, cb) = (self.cone(a), self.cone(b));
        let n = self.slots.count();
        for s in 0..n as Slot {
            let x = self.history_cone_entry(a, sa, ca, s);
            let y = self.history_cone_entry(b, sb, cb, s);
            if x != y && !self.comparable_on(x, y, s) {
                return false;
            }
        }
        true
    }

    #[inline]
    fn history_cone_entry(
        &self,
        e: EventId,
        slots: &[Slot],
        cone: &[ConeEntry],
        s: Slot,
    ) -> ConeEntry {
        let c = cone[s as usize];
        if c.event == e && slots.binary_search(&s).is_ok() {
            let parent = self.parent_on(e, s);
            ConeEntry {
                event: parent,
                depth: c.depth - 1,
            }
        } else {
            c
        }
    }

    /// The event `<t, H>` with immediate predecessors `preds`, if it exists.
    pub fn find(&self, t: Transition, preds: &[EventId]) -> Option<EventId> {
        let h = key_hash(t, preds);
        self.table
            .find(h, |&e| self.label(e) == t && self.preds(e) == preds)
            .copied()
    }

    /// Computes `state(H)` for the history `H = ⋃ [p]` over `preds` into `out`, and returns
    /// `|H|`. Fires only the events of `H` outside the local configuration of the largest
    /// predecessor.
    pub fn history_state<S: System + ?Sized>(
        &mut self,
        sys: &S,
        preds: &[EventId],
        out: &mut [u64],
    ) -> Result<u32, Overflow> {
        let base = *preds
            .iter()
            .max_by_key(|&&p| self.size(p))
            .expect("a history has a maximal event");
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
        if self.stamp.len() < self.events.len() {
            self.stamp.resize(self.events.len(), 0);
        }
        let mut stack: Vec<EventId> = preds.iter().copied().filter(|&p| p != base).collect();
        let mut outside = std::mem::take(&mut self.scratch);
        outside.clear();
        while let Some(x) = stack.pop() {
            if self.stamp[x as usize] == self.epoch || self.leq(x, base) {
                continue;
            }
            self.stamp[x as usize] = self.epoch;
            outside.push(x);
            stack.extend_from_slice(self.preds(x));
        }
        // Sizes of local configurations grow along causality: a topological order.
        outside.sort_unstable_by_key(|&x| self.size(x));
        out.copy_from_slice(self.state(base));
        let mut tmp = vec![0u64; self.words];
        for &x in &outside {
            sys.fire(out, self.label(x), &mut tmp)?;
            out.copy_from_slice(&tmp);
        }
        let size = self.size(base) + outside.len() as u32;
        self.scratch = outside;
        Ok(size)
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
        debug_assert!(self.find(t, preds).is_none());
        let n = self.slots.count();
        let reused = self.free_ids.pop();
        let id = reused.unwrap_or(self.events.len() as EventId);
        // Cone: the deepest entry of the predecessors' cones on every slot, then e itself on
        // its own slots.
        let mut cone = std::mem::take(&mut self.cone_scratch);
        cone.clear();
        cone.extend_from_slice(self.cone(preds[0]));
        for &p in &preds[1..] {
            for (s, c) in self.cone(p).iter().enumerate() {
                if c.depth > cone[s].depth {
                    cone[s] = *c;
                }
            }
        }
        let my_slots = self.slots.of(t);
        let k = my_slots.len();
        let node_start = match self.free_nodes.get_mut(&(k as u32)).and_then(Vec::pop) {
            Some(start) => start,
            None => {
                let start = self.nodes.len() as u32;
                grow(&mut self.nodes, k);
                grow(&mut self.children, k);
                for _ in 0..k {
                    self.nodes.push(SlotNode {
                        parent: BOTTOM,
                        jump: BOTTOM,
                        depth: 0,
                    });
                    self.children.push(Vec::new());
                }
                start
            }
        };
        for (i, &parent) in xs.iter().enumerate().take(k) {
            let s = self.slots.of(t)[i];
            let pidx = self.node_index(parent.event, s);
            let pnode = self.nodes[pidx];
            let jnode_depth = self.nodes[self.node_index(pnode.jump, s)].depth;
            let jjump = self.nodes[self.node_index(pnode.jump, s)].jump;
            let jj_depth = self.nodes[self.node_index(jjump, s)].depth;
            let jump = if pnode.depth - jnode_depth == jnode_depth - jj_depth && pnode.depth > 0 {
                jjump
            } else {
                parent.event
            };
            let list = &mut self.children[pidx];
            let before = list.capacity();
            list.push(id);
            self.children_bytes += (list.capacity() - before) * 4;
            self.nodes[node_start as usize + i] = SlotNode {
                parent: parent.event,
                jump,
                depth: parent.depth + 1,
            };
            cone[s as usize] = ConeEntry {
                event: id,
                depth: parent.depth + 1,
            };
        }
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
            size: history_size + 1,
            node_start,
            level,
        };
        if reused.is_some() {
            let i = id as usize;
            self.events[i] = data;
            self.cones[i * n..(i + 1) * n].copy_from_slice(&cone);
            self.states[i * self.words..(i + 1) * self.words].copy_from_slice(state);
        } else {
            grow(&mut self.events, 1);
            grow(&mut self.cones, n);
            grow(&mut self.states, self.words);
            self.events.push(data);
            self.cones.extend_from_slice(&cone);
            self.states.extend_from_slice(state);
        }
        self.cone_scratch = cone;
        self.live += 1;
        let h = key_hash(t, preds);
        let (events, all_preds) = (&self.events, &self.preds);
        self.table.insert_unique(h, id, |&e| {
            let d = &events[e as usize];
            key_hash(
                d.label,
                &all_preds[d.preds_start as usize..(d.preds_start + d.preds_len) as usize],
            )
        });
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
            + self.children.capacity() * size_of::<Vec<EventId>>()
            + self.children_bytes
            + self.cones.capacity() * size_of::<ConeEntry>()
            + self.states.capacity() * 8
            + self.table.capacity() * 5
            + self.stamp.capacity() * 4
            + free) as u64
    }

    /// The local configuration `[e]` (⊥ excluded), in a causal order.
    pub fn local_configuration(&self, e: EventId) -> Vec<EventId> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![e];
        let mut out = Vec::new();
        while let Some(x) = stack.pop() {
            if x == BOTTOM || !seen.insert(x) {
                continue;
            }
            out.push(x);
            stack.extend_from_slice(self.preds(x));
        }
        out.sort_unstable_by_key(|&x| self.size(x));
        out
    }

    /// Every slot `e` is on, for iteration.
    pub fn slots_of_event(&self, e: EventId) -> Vec<Slot> {
        match self.slots_of(e) {
            SlotsOf::All(n) => (0..n).collect(),
            SlotsOf::Some(s) => s.to_vec(),
        }
    }
}

/// Makes room for `extra` more elements, growing by an eighth at a time instead of doubling,
/// so that the store's allocations track its contents closely under a memory limit.
fn grow<T>(v: &mut Vec<T>, extra: usize) {
    if v.len() + extra > v.capacity() {
        v.reserve_exact(extra.max(v.len() / 8).max(256));
    }
}

enum SlotsOf<'a> {
    All(u32),
    Some(&'a [Slot]),
}
