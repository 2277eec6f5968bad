//! What the store answers about events from their cones and the slot trees: an event's
//! parents and cone entries, causality (`a ≤ b`), conflict (`a # b`), immediate conflict
//! (`a #ⁱ b`) and whether two histories form a configuration together.
//!
//! Every answer is a few cone lookups and ancestor queries (O(slots · log n)), never a walk of
//! a history: `a ≤ b` iff `a`'s node lies on the branch of `[b]`'s last event on `a`'s slot,
//! and `[a]`, `[b]` conflict iff on some slot both cones name events on different branches.

use super::{BOTTOM, ConeEntry, EventId, EventStore};
use crate::unfolding::slots::Slot;

impl EventStore {
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
    pub(super) fn cone(&self, e: EventId) -> u32 {
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
    /// `slots[i]`'s run; see [`ConeForest::for_new_slots_of_runs`](crate::unfolding::cone::ConeForest::for_new_slots_of_runs).
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
    pub(super) fn node_entry(&self, node: u32) -> ConeEntry {
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
    /// [`ConeForest::get_each`](crate::unfolding::cone::ConeForest::get_each)): a scan of siblings spends most of its time waiting for
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
}
