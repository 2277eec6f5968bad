//! Slots: an edge clique cover of the dependence relation, built from footprints.
//!
//! The causality and conflict indexes need, for every resource, the events touching it to be
//! totally ordered inside a configuration. That holds when every access is exclusive, but reads
//! commute with reads and additions with additions (DESIGN §1), so a resource is split into
//! *slots*: sets of transitions that are pairwise dependent (cliques of the dependence graph),
//! chosen so that two transitions are dependent iff they share a slot. Then, inside any
//! configuration, the events on one slot form a chain, and across the unfolding they form a
//! tree (each event's parent on a slot is the previous event on it in its history).
//!
//! For a resource with pure readers `R`, pure adders `A` and the others `S` (every access with
//! `W`, and read-and-add), the pairs that conflict are `R×A`, everything with `S`, and never
//! `R×R` or `A×A`. The cliques `{r, a} ∪ S` for `r ∈ R`, `a ∈ A` cover exactly those pairs (with
//! `R` or `A` empty, `{r} ∪ S` or `{a} ∪ S`; with both empty, `S`). A transition with an empty
//! footprint gets a private slot, so that it is still dependent with itself.
//!
//! Those cliques are then merged where their union is still a clique (see `merge_cliques`):
//! readers of one place that are dependent through another resource share one slot with the
//! place's writers. Every slot of a transition costs each of its events a node and cone
//! entries, so fewer slots per transition make events smaller and cheaper to build.

use rustc_hash::FxHashMap;

use crate::system::{Access, System, Transition};

/// Index of a slot.
pub type Slot = u32;

/// The accessors of one resource: pure readers, pure adders, and the others.
type Accessors = (Vec<Transition>, Vec<Transition>, Vec<Transition>);

/// The slots of a system: for every transition the sorted list of slots it is on.
#[derive(Clone, Debug)]
pub struct SlotMap {
    count: usize,
    offsets: Vec<u32>,
    slots: Vec<Slot>,
}

/// Candidate groups [`merge_cliques`] tries for each slot, the most pairs of transitions it
/// tests for one candidate, and the most members it reads in all: bounds on the work of
/// building the slots of a large system (past the last one, slots are kept as they are).
const MERGE_TRIES: usize = 16;
const MERGE_PAIRS: usize = 1024;
const MERGE_BUDGET: usize = 50_000_000;

/// Whether two sorted lists share an element.
fn intersect(a: &[Slot], b: &[Slot]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// Merges slots (sorted member lists, largest first, with their origins) whose union is still a
/// clique of the dependence relation, which `slots_of` (each transition's slots among `kept`)
/// gives: two transitions are dependent iff they share a slot. The result is a cover with the
/// same property and fewer slots per transition. The readers of a place each get a slot of
/// their own with all its writers (they commute with one another), but readers that are
/// dependent for another reason, such as the transitions of one process testing one flag, can
/// share one: each writer is then on one slot per group of readers instead of one per reader.
/// Returns the merged slots, their origins (the least of the merged ones) and each
/// transition's merged slots.
fn merge_cliques(
    kept: Vec<Vec<Transition>>,
    origins: Vec<u32>,
    slots_of: &[Vec<Slot>],
) -> (Vec<Vec<Transition>>, Vec<u32>, Vec<Vec<Slot>>) {
    let dependent = |a: Transition, b: Transition| {
        a == b || intersect(&slots_of[a as usize], &slots_of[b as usize])
    };
    let mut groups: Vec<Vec<Transition>> = Vec::new();
    let mut group_origins: Vec<u32> = Vec::new();
    let mut groups_of: Vec<Vec<Slot>> = vec![Vec::new(); slots_of.len()];
    let mut candidates: Vec<Slot> = Vec::new();
    let mut budget = MERGE_BUDGET;
    let (mut only_slot, mut only_group) = (Vec::new(), Vec::new());
    for (m, origin) in kept.into_iter().zip(origins) {
        // Groups that share a member with the slot, the likeliest to form a clique with it.
        candidates.clear();
        'collect: for &t in m.iter().take(4) {
            for &g in &groups_of[t as usize] {
                if !candidates.contains(&g) {
                    candidates.push(g);
                    if candidates.len() == MERGE_TRIES {
                        break 'collect;
                    }
                }
            }
        }
        let target = candidates.iter().copied().find(|&g| {
            let group = &groups[g as usize];
            if group.len() + m.len() > 4 * MERGE_PAIRS || budget < group.len() + m.len() {
                return false;
            }
            budget -= group.len() + m.len();
            only_slot.clear();
            only_slot.extend(m.iter().filter(|t| group.binary_search(t).is_err()));
            only_group.clear();
            only_group.extend(group.iter().filter(|t| m.binary_search(t).is_err()));
            let pairs = only_slot.len() * only_group.len();
            if pairs > MERGE_PAIRS || budget < pairs {
                return false;
            }
            budget -= pairs;
            only_slot
                .iter()
                .all(|&a| only_group.iter().all(|&b| dependent(a, b)))
        });
        match target {
            Some(g) => {
                let group = &mut groups[g as usize];
                for &t in &m {
                    if let Err(at) = group.binary_search(&t) {
                        group.insert(at, t);
                        groups_of[t as usize].push(g);
                    }
                }
                group_origins[g as usize] = group_origins[g as usize].min(origin);
            }
            None => {
                let g = groups.len() as Slot;
                for &t in &m {
                    groups_of[t as usize].push(g);
                }
                groups.push(m);
                group_origins.push(origin);
            }
        }
    }
    (groups, group_origins, groups_of)
}

impl SlotMap {
    /// Builds the slots of `sys` from its footprints.
    pub fn new<S: System + ?Sized>(sys: &S) -> Self {
        let n = sys.transition_count();
        // Each candidate slot with its origin (resource rank, then rank within the resource).
        let mut members: Vec<(Vec<Transition>, u32)> = Vec::new();
        let mut by_resource: FxHashMap<u32, Accessors> = FxHashMap::default();
        for t in 0..n as Transition {
            for touch in sys.footprint(t) {
                let (r, a, s) = by_resource.entry(touch.resource).or_default();
                let acc = touch.access;
                if acc == Access::READ {
                    r.push(t);
                } else if acc == Access::ADD {
                    a.push(t);
                } else if !acc.is_empty() {
                    s.push(t);
                }
            }
        }
        let mut resources: Vec<_> = by_resource.into_iter().collect();
        resources.sort_unstable_by_key(|(r, _)| *r);
        for (_, (readers, adders, strong)) in resources {
            let clique = |extra: &[Transition]| {
                let mut c: Vec<Transition> = extra.iter().chain(&strong).copied().collect();
                c.sort_unstable();
                c.dedup();
                c
            };
            let mut push = |m: Vec<Transition>| {
                let origin = members.len() as u32;
                members.push((m, origin));
            };
            match (readers.is_empty(), adders.is_empty()) {
                (true, true) => push(clique(&[])),
                (false, true) => readers.iter().for_each(|&r| push(clique(&[r]))),
                (true, false) => adders.iter().for_each(|&a| push(clique(&[a]))),
                (false, false) => {
                    for &r in &readers {
                        for &a in &adders {
                            push(clique(&[r, a]));
                        }
                    }
                }
            }
        }
        // A slot whose members all lie in another slot adds no pair: drop it. Sorting by size,
        // largest first, lets each slot be checked against the ones kept so far.
        members.sort_unstable_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        members.dedup_by(|(a, _), (b, _)| a == b);
        let mut kept: Vec<Vec<Transition>> = Vec::new();
        let mut origins: Vec<u32> = Vec::new();
        let mut slots_of: Vec<Vec<Slot>> = vec![Vec::new(); n];
        for (m, origin) in members {
            if m.is_empty() {
                continue;
            }
            // Candidates: the slots of the first member that are large enough.
            let first = m[0] as usize;
            let covered = slots_of[first].iter().any(|&s| {
                let k = &kept[s as usize];
                m.iter().all(|t| k.binary_search(t).is_ok())
            });
            if covered {
                continue;
            }
            let id = kept.len() as Slot;
            for &t in &m {
                slots_of[t as usize].push(id);
            }
            kept.push(m);
            origins.push(origin);
        }
        let (mut kept, mut origins, mut slots_of) = merge_cliques(kept, origins, &slots_of);
        for (t, list) in slots_of.iter_mut().enumerate() {
            if list.is_empty() {
                list.push(kept.len() as Slot);
                kept.push(vec![t as Transition]);
                origins.push(u32::MAX);
            }
        }
        // Number the slots of one resource consecutively: an event's slots then lie close
        // together, and so do its entries in the cone trees (see `super::cone`).
        let mut by_origin: Vec<Slot> = (0..kept.len() as Slot).collect();
        by_origin.sort_by_key(|&s| origins[s as usize]);
        let mut renumber = vec![0; kept.len()];
        for (new, &old) in by_origin.iter().enumerate() {
            renumber[old as usize] = new as Slot;
        }
        for list in &mut slots_of {
            list.iter_mut().for_each(|s| *s = renumber[*s as usize]);
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut slots = Vec::new();
        offsets.push(0);
        for list in &mut slots_of {
            list.sort_unstable();
            slots.extend_from_slice(list);
            offsets.push(slots.len() as u32);
        }
        SlotMap {
            count: kept.len(),
            offsets,
            slots,
        }
    }

    /// Number of slots.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The slots of transition `t`, sorted.
    #[inline]
    pub fn of(&self, t: Transition) -> &[Slot] {
        &self.slots[self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize]
    }
}
