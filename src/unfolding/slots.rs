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
//!
//! One relaxation: the movers of a token set ([`System::token_sets`]) get one slot although
//! some of them are independent (a process's steps between different control locations).
//! No two of them are ever enabled together unless they are dependent, so their events are
//! never concurrent and still form a chain inside every configuration; the unfolding, its
//! causality and its conflicts are those of the exact cover. Such a *token slot* is made only
//! where it replaces two cliques or more, and is not merged with others.

use crate::rows::Rows;
use crate::system::{Access, System, Transition};

/// Index of a slot.
pub type Slot = u32;

/// Which cliques the slots of a system are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlotCover {
    /// The resources' cliques, and one slot for the movers of each token set
    /// ([`System::token_sets`]), which covers the cliques made of them.
    #[default]
    TokenSets,
    /// The resources' cliques only.
    Resources,
}

/// The slots of a system: for every transition the sorted list of slots it is on.
#[derive(Clone, Debug)]
pub struct SlotMap {
    count: usize,
    offsets: Vec<u32>,
    slots: Vec<Slot>,
    /// By slot: whether it holds the movers of one of the system's token sets.
    token: Vec<bool>,
    /// By resource: the token slot of its set ([`NO_SLOT`] for none; empty when the system
    /// has no token sets).
    token_of: Vec<Slot>,
    /// By slot: how many transitions it holds.
    members: Vec<u32>,
}

/// No slot.
const NO_SLOT: Slot = Slot::MAX;

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

/// Merges slots (`kept`: sorted member lists, largest first, with their origins) whose union is
/// still a clique of the dependence relation, which `slots_of` (each transition's slots among
/// `kept`, sorted) gives: two transitions are dependent iff they share a slot. The result is a
/// cover with the same property and fewer slots per transition. The readers of a place each
/// get a slot of their own with all its writers (they commute with one another), but readers
/// that are dependent for another reason, such as the transitions of one process testing one
/// flag, can share one: each writer is then on one slot per group of readers instead of one
/// per reader. Returns the group of each slot of `kept` and each group's origin (the least of
/// its slots').
fn merge_cliques(
    kept: &Rows<Transition>,
    origins: &[u32],
    slots_of: &Rows<Slot>,
    fixed: impl Fn(u32) -> bool,
) -> (Vec<u32>, Vec<u32>) {
    let dependent = |a: Transition, b: Transition| {
        a == b || intersect(slots_of.row(a as usize), slots_of.row(b as usize))
    };
    // A group's members: those of the slot that founded it until another slot joins it.
    let mut founder: Vec<Slot> = Vec::new();
    let mut joined: Vec<Option<Vec<Transition>>> = Vec::new();
    let mut group_origins: Vec<u32> = Vec::new();
    let mut group_of: Vec<u32> = Vec::with_capacity(kept.len());
    let mut candidates: Vec<u32> = Vec::new();
    let mut budget = MERGE_BUDGET;
    let (mut only_slot, mut only_group) = (Vec::new(), Vec::new());
    for (k, &origin) in origins.iter().enumerate() {
        let m = kept.row(k);
        // Groups that share a member with the slot, the likeliest to form a clique with it:
        // a transition's groups are those of its slots met so far, in the order it joined.
        // (A fixed slot neither joins a group nor is joined.)
        candidates.clear();
        'collect: for &t in m.iter().take(if fixed(origin) { 0 } else { 4 }) {
            for &s in slots_of.row(t as usize) {
                if s as usize >= k {
                    break;
                }
                let g = group_of[s as usize];
                if !fixed(group_origins[g as usize]) && !candidates.contains(&g) {
                    candidates.push(g);
                    if candidates.len() == MERGE_TRIES {
                        break 'collect;
                    }
                }
            }
        }
        let target = candidates.iter().copied().find(|&g| {
            let group = match &joined[g as usize] {
                Some(members) => &members[..],
                None => kept.row(founder[g as usize] as usize),
            };
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
                let members = joined[g as usize]
                    .get_or_insert_with(|| kept.row(founder[g as usize] as usize).to_vec());
                for &t in m {
                    if let Err(at) = members.binary_search(&t) {
                        members.insert(at, t);
                    }
                }
                group_origins[g as usize] = group_origins[g as usize].min(origin);
                group_of.push(g);
            }
            None => {
                group_of.push(founder.len() as u32);
                founder.push(k as Slot);
                joined.push(None);
                group_origins.push(origin);
            }
        }
    }
    (group_of, group_origins)
}

/// Appends to `out` the sorted union of the sorted `strong` and the (at most two) `extra`
/// transitions, without repeats.
fn push_clique(out: &mut Vec<Transition>, given: &[Transition], strong: &[Transition]) {
    let from = out.len();
    // Sorted on the stack: this runs once per candidate slot.
    let mut room = [0; 2];
    let extra = &mut room[..given.len()];
    extra.copy_from_slice(given);
    extra.sort_unstable();
    let (mut i, mut j) = (0, 0);
    while i < extra.len() || j < strong.len() {
        let t = if j == strong.len() || (i < extra.len() && extra[i] < strong[j]) {
            i += 1;
            extra[i - 1]
        } else {
            j += 1;
            strong[j - 1]
        };
        if out[from..].last() != Some(&t) {
            out.push(t);
        }
    }
}

impl SlotMap {
    /// Builds the slots of `sys` from its footprints and its token sets.
    pub fn new<S: System + ?Sized>(sys: &S) -> Self {
        Self::with_cover(sys, SlotCover::TokenSets)
    }

    /// Builds the slots of `sys` from its footprints, and from its token sets
    /// ([`System::token_sets`]) as `cover` says: each set's movers get one slot, which covers
    /// every clique of the set's resources made of movers only (a chain of `n` places is then
    /// one slot instead of `n`).
    pub fn with_cover<S: System + ?Sized>(sys: &S, cover: SlotCover) -> Self {
        Self::with_cover_and_changers(sys, cover).0
    }

    /// [`with_cover`](Self::with_cover), and by resource the transitions that change it (any
    /// access but a pure read: exactly those that conflict with a read), in increasing order,
    /// a transition naming a resource twice listed twice. They are read off the accesses
    /// grouped here anyway (grouping them again cost as much as this on large nets).
    pub fn with_cover_and_changers<S: System + ?Sized>(
        sys: &S,
        cover: SlotCover,
    ) -> (Self, Rows<Transition>) {
        let n = sys.transition_count();
        // Each resource's pure readers (kind 0), pure adders (1) and the others (2), each in
        // the order of transitions: one row per (resource, kind), filled by counting (a sort
        // of every access cost more than the rest of this on large nets).
        let kind = |acc: Access| {
            if acc == Access::READ {
                0
            } else if acc == Access::ADD {
                1
            } else {
                2
            }
        };
        // (Footprints name resources below `resource_count`, as the trait says.)
        let resources = sys.resource_count();
        let by_kind = Rows::group(3 * resources, || {
            (0..n as Transition).flat_map(move |t| {
                sys.footprint(t)
                    .iter()
                    .filter(|touch| !touch.access.is_empty())
                    .map(move |touch| (3 * touch.resource as usize + kind(touch.access), t))
            })
        });
        // Candidate slots, numbered in the order of their origin (resource, then rank within
        // the resource), one row each.
        let mut candidates: Rows<Transition> =
            Rows::with_capacity(resources, by_kind.items().len());
        let mut row: Vec<Transition> = Vec::new();
        // The token sets' movers come first: a resource's clique equal to one keeps the
        // least origin, and is then known as the token slot it is.
        let sets = match cover {
            SlotCover::TokenSets => sys.token_sets(),
            SlotCover::Resources => Vec::new(),
        };
        let mut set_of = vec![u32::MAX; if sets.is_empty() { 0 } else { resources }];
        for (k, set) in sets.iter().enumerate() {
            for &r in set {
                set_of[r as usize] = k as u32;
            }
        }
        let movers = Rows::group(sets.len(), || {
            let set_of = &set_of;
            (0..n as Transition).flat_map(move |t| {
                sys.footprint(t)
                    .iter()
                    .filter(|touch| touch.access.conflicts_with(Access::READ))
                    .filter_map(move |touch| {
                        let k = *set_of.get(touch.resource as usize)?;
                        (k != u32::MAX).then_some((k as usize, t))
                    })
            })
        });
        // A set's slot pays where it replaces two cliques or more: those of its resources
        // that only its movers access (a resource with other readers keeps one clique per
        // reader, which the set's slot does not cover). Others get an empty row (no slot):
        // a token slot is not merged with other cliques (see `merge_cliques`), and one that
        // replaced a single clique could only cost slots.
        let mut mover = vec![false; if sets.is_empty() { 0 } else { n }];
        // By transition: the set with a token slot whose token it moves (`NO_SET`: none,
        // `MANY_SETS`: several).
        const NO_SET: u32 = u32::MAX;
        const MANY_SETS: u32 = u32::MAX - 1;
        let mut mover_of = vec![NO_SET; if sets.is_empty() { 0 } else { n }];
        for (k, set) in sets.iter().enumerate() {
            row.clear();
            row.extend_from_slice(movers.row(k));
            // A mover changes two resources of its set.
            row.dedup();
            row.iter().for_each(|&t| mover[t as usize] = true);
            // (Cliques of resources that the same transitions change are one clique.)
            let by_kind = &by_kind;
            let changers = |r: u32| (1..3).flat_map(move |k| by_kind.row(3 * r as usize + k));
            let mut pure = set.iter().filter(|&&r| {
                by_kind
                    .row(3 * r as usize)
                    .iter()
                    .all(|&t| mover[t as usize])
            });
            let first = pure.next();
            let replaces_two = first.is_some_and(|&f| pure.any(|&r| !changers(r).eq(changers(f))));
            // A set whose resources share their bits of the state (a packed field) needs a
            // slot on which all its movers lie, for the state of a history to be assembled
            // by slots (see `parts`).
            let shared = || {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                set.len() > 1
                    && sys.resource_bits(set[0], &mut a)
                    && sys.resource_bits(set[1], &mut b)
                    && a.iter()
                        .any(|&(w, m)| b.iter().any(|&(x, n)| w == x && m & n != 0))
            };
            let replaces_two = replaces_two || shared();
            row.iter().for_each(|&t| mover[t as usize] = false);
            if replaces_two {
                for &t in &row {
                    let of = &mut mover_of[t as usize];
                    *of = if *of == NO_SET { k as u32 } else { MANY_SETS };
                }
            } else {
                row.clear();
            }
            candidates.push_row(row.iter().copied());
        }
        let token_rows = movers.len() as u32;
        drop(movers);
        let (mut readers, mut adders, mut strong) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..resources {
            // A clique of movers of the set holding `r` lies in the set's token slot: when
            // every transition touching `r` is one, none of `r`'s cliques is a candidate (a
            // chain of a million places has a million such resources).
            let set = set_of.get(r).copied().unwrap_or(u32::MAX);
            if set != u32::MAX
                && by_kind.items()[by_kind.range(3 * r).start..by_kind.range(3 * r + 2).end]
                    .iter()
                    .all(|&t| mover_of[t as usize] == set)
            {
                continue;
            }
            let of_kind = |k: usize, out: &mut Vec<Transition>| {
                out.clear();
                out.extend_from_slice(by_kind.row(3 * r + k));
                // A footprint naming a resource twice.
                out.dedup();
            };
            of_kind(0, &mut readers);
            of_kind(1, &mut adders);
            of_kind(2, &mut strong);
            if readers.is_empty() && adders.is_empty() && strong.is_empty() {
                continue;
            }
            // (The same holds of each clique alone, where only some touching `r` are movers.)
            let mut push = |extra: &[Transition]| {
                row.clear();
                push_clique(&mut row, extra, &strong);
                if set == u32::MAX || !row.iter().all(|&t| mover_of[t as usize] == set) {
                    candidates.push_row(row.iter().copied());
                }
            };
            match (readers.is_empty(), adders.is_empty()) {
                (true, true) => push(&[]),
                (false, true) => readers.iter().for_each(|&r| push(&[r])),
                (true, false) => adders.iter().for_each(|&a| push(&[a])),
                (false, false) => {
                    for &r in &readers {
                        for &a in &adders {
                            push(&[r, a]);
                        }
                    }
                }
            }
        }
        // A changer's access is not a pure read: a pure adder (kind 1) or another (kind 2).
        let mut changers: Rows<Transition> = Rows::with_capacity(
            resources,
            by_kind.items().len()
                - (0..resources)
                    .map(|r| by_kind.row(3 * r).len())
                    .sum::<usize>(),
        );
        for r in 0..resources {
            let (mut adders, mut others) = (by_kind.row(3 * r + 1), by_kind.row(3 * r + 2));
            while let (Some(&a), Some(&o)) = (adders.first(), others.first()) {
                if a <= o {
                    changers.push(a);
                    adders = &adders[1..];
                } else {
                    changers.push(o);
                    others = &others[1..];
                }
            }
            adders.iter().chain(others).for_each(|&t| changers.push(t));
            changers.end_row();
        }
        drop(by_kind);
        // A slot whose members all lie in another slot adds no pair: drop it. Sorting by size,
        // largest first, lets each slot be checked against the ones kept so far; equal slots
        // keep the least origin.
        // The size and first member, packed, decide most comparisons without reading the rows.
        let mut by_size: Vec<(u64, u32)> = (0..candidates.len())
            .map(|c| {
                let row = candidates.row(c);
                let size = u32::MAX - row.len() as u32;
                let first = row.first().copied().unwrap_or(0);
                ((size as u64) << 32 | first as u64, c as u32)
            })
            .collect();
        // Integers first (cheap to compare), then the rare runs of equal keys by their rows.
        by_size.sort_unstable();
        for run in by_size.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_unstable_by(|&(_, a), &(_, b)| {
                    candidates
                        .row(a as usize)
                        .cmp(candidates.row(b as usize))
                        .then(a.cmp(&b))
                });
            }
        }
        // (Rows of different keys differ: only equal keys need their rows read.)
        by_size.dedup_by(|b, a| {
            a.0 == b.0 && candidates.row(a.1 as usize) == candidates.row(b.1 as usize)
        });
        let mut kept: Rows<Transition> =
            Rows::with_capacity(by_size.len(), candidates.items().len());
        let mut origins: Vec<u32> = Vec::new();
        // Each transition's slots kept so far, as lists threaded through one array.
        let mut first_slot: Vec<u32> = vec![u32::MAX; n];
        let mut next_slot: Vec<(Slot, u32)> = Vec::new();
        let mut slot_count: Vec<u32> = vec![0; n];
        for (_, c) in by_size {
            let m = candidates.row(c as usize);
            let Some(&first) = m.first() else {
                continue;
            };
            let mut at = first_slot[first as usize];
            let mut covered = false;
            while at != u32::MAX && !covered {
                let (s, next) = next_slot[at as usize];
                let k = kept.row(s as usize);
                // Whether `t` lies in slot `s`: by its own list of slots when that is shorter
                // than a search of the slot's members (a token slot may hold millions).
                let holds = |t: Transition| {
                    if slot_count[t as usize] < k.len().ilog2() {
                        let mut at = first_slot[t as usize];
                        while at != u32::MAX && next_slot[at as usize].0 != s {
                            at = next_slot[at as usize].1;
                        }
                        at != u32::MAX
                    } else {
                        k.binary_search(&t).is_ok()
                    }
                };
                covered = m.iter().all(|&t| holds(t));
                at = next;
            }
            if covered {
                continue;
            }
            let id = kept.len() as Slot;
            for &t in m {
                next_slot.push((id, first_slot[t as usize]));
                first_slot[t as usize] = next_slot.len() as u32 - 1;
                slot_count[t as usize] += 1;
            }
            kept.push_row(m.iter().copied());
            origins.push(c);
        }
        let candidate_count = candidates.len();
        drop(candidates);
        // Each transition's kept slots, sorted (they are numbered in the order kept).
        let slots_of = Rows::group(n, || {
            (0..kept.len()).flat_map(|s| kept.row(s).iter().map(move |&t| (t as usize, s as Slot)))
        });
        let is_token = |origin: u32| origin < token_rows;
        let (group_of, mut origins) = merge_cliques(&kept, &origins, &slots_of, is_token);
        // Each transition's groups, and a slot of its own for a transition on none.
        let mut groups_of: Vec<Slot> = Vec::new();
        let mut starts: Vec<u32> = Vec::with_capacity(n + 1);
        starts.push(0);
        for t in 0..n {
            let from = groups_of.len();
            for &s in slots_of.row(t) {
                let g = group_of[s as usize];
                if !groups_of[from..].contains(&g) {
                    groups_of.push(g);
                }
            }
            if groups_of.len() == from {
                groups_of.push(origins.len() as Slot);
                origins.push(u32::MAX);
            }
            starts.push(groups_of.len() as u32);
        }
        // Number the slots of one resource consecutively: an event's slots then lie close
        // together, and so do its entries in the cone trees (see `super::cone`).
        // Origins are distinct candidate numbers (private slots, `u32::MAX`, come last in
        // their order): placed by counting, not sorted.
        let mut at_origin = vec![u32::MAX; candidate_count];
        for (g, &o) in origins.iter().enumerate() {
            if o != u32::MAX {
                at_origin[o as usize] = g as u32;
            }
        }
        let mut renumber = vec![0; origins.len()];
        let mut next = 0;
        for &g in at_origin.iter().filter(|&&g| g != u32::MAX) {
            renumber[g as usize] = next;
            next += 1;
        }
        for (g, _) in origins.iter().enumerate().filter(|&(_, &o)| o == u32::MAX) {
            renumber[g] = next;
            next += 1;
        }
        debug_assert_eq!(next as usize, origins.len());
        for g in &mut groups_of {
            *g = renumber[*g as usize];
        }
        for t in 0..n {
            groups_of[starts[t] as usize..starts[t + 1] as usize].sort_unstable();
        }
        let mut token = vec![false; origins.len()];
        let mut slot_of_set = vec![NO_SLOT; token_rows as usize];
        for (g, &o) in origins.iter().enumerate() {
            token[renumber[g] as usize] = is_token(o);
            if is_token(o) {
                slot_of_set[o as usize] = renumber[g];
            }
        }
        let token_of = set_of
            .iter()
            .map(|&k| slot_of_set.get(k as usize).copied().unwrap_or(NO_SLOT))
            .collect();
        let mut members = vec![0; origins.len()];
        groups_of.iter().for_each(|&s| members[s as usize] += 1);
        let slots = SlotMap {
            count: origins.len(),
            offsets: starts,
            slots: groups_of,
            token,
            token_of,
            members,
        };
        (slots, changers)
    }

    /// Number of slots.
    pub fn count(&self) -> usize {
        self.count
    }

    /// How many transitions slot `s` holds: a bound on the labels of the children of an
    /// event on `s`.
    pub fn member_count(&self, s: Slot) -> usize {
        self.members[s as usize] as usize
    }

    /// Number of token slots.
    pub fn token_count(&self) -> usize {
        self.token.iter().filter(|&&t| t).count()
    }

    /// Whether slot `s` holds the movers of a token set ([`System::token_sets`]): after an
    /// event on it, the guards on the set's resources that the event's transition did not
    /// change fail.
    #[inline]
    pub fn is_token(&self, s: Slot) -> bool {
        self.token[s as usize]
    }

    /// The token slot of the set that resource `r` belongs to, if any (a set whose movers
    /// another slot covers has none).
    #[inline]
    pub fn token_slot_of(&self, r: crate::system::Resource) -> Option<Slot> {
        self.token_of
            .get(r as usize)
            .copied()
            .filter(|&s| s != NO_SLOT)
    }

    /// The slots of transition `t`, sorted.
    #[inline]
    pub fn of(&self, t: Transition) -> &[Slot] {
        &self.slots[self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize]
    }
}
