//! The first step of Extend: the transitions an event may extend into, those sharing one of
//! its slots (its label's dependents), less those whose guard the event's local state denies.
//!
//! They come from a sorted list per transition while they are few, otherwise from the guard
//! classes of the event's slots, member by member or joined as bitsets. What
//! [`Dependents::visit`] returns is sorted and without repeats, and leaves its marks all false.
//!
//! The struct [`Dependents`] itself is defined beside [`Explorer`](super::explorer::Explorer),
//! whose code unit its methods must share (see its doc).

use super::explorer::{Dependents, extend_to};
use super::guards::Guard;
use super::options::ClassBitsets;
use crate::rows::Rows;
use crate::system::{Access, Footprint, GuardField, Resource, System, Transition};
use crate::unfolding::slots::{Slot, SlotMap};

/// How many times, at least, a transition's slots must name each of its dependents on
/// average for it to keep bitsets.
const REPEATS_FOR_BITSETS: usize = 4;

/// A transition's entry in `Dependents::bits_at` when it has no bitsets.
const NO_BITS: usize = usize::MAX;

/// What puts members of a slot in one class: the resource of their guard on the slot and its
/// [`System::guard_class`] (or the transition itself, when it has none); `None` for members
/// with no guard on the slot.
type ClassKey = Option<(Resource, Result<u64, Transition>)>;

/// A class of the members of one slot (see [`Dependents`]).
#[derive(Clone, Copy, Default)]
pub(super) struct GuardClass {
    /// Where the class ends in the slot's members.
    end: u32,
    /// The guard the class shares, as a member and the resource it tests; `None` for the
    /// members with no guard on the slot, which are always looked at.
    guard: Option<(Transition, Resource)>,
    /// That guard as one field of the state, when the system says.
    field: Option<GuardField>,
}

impl Dependents {
    /// Most listed entries in all (32 MiB).
    const LISTED_ENTRIES: usize = 8 << 20;

    /// Most words of bitsets in all (32 MiB), with [`ClassBitsets::Auto`].
    const BITSET_WORDS: usize = 4 << 20;

    pub(super) fn new<S: System + ?Sized>(
        sys: &S,
        slots: &SlotMap,
        members: &Rows<Transition>,
        guards: &Rows<Guard>,
        listed: usize,
        bitsets: ClassBitsets,
    ) -> Self {
        let n = sys.transition_count();
        let mut deps = Dependents {
            listed: Rows::with_capacity(n, 0),
            is_listed: Vec::with_capacity(n),
            // The same members, grouped by class.
            members: Rows::with_capacity(members.len(), members.items().len()),
            classes: Rows::with_capacity(members.len(), 0),
            token: (0..members.len() as Slot)
                .map(|s| slots.is_token(s))
                .collect(),
            class_at: Vec::new(),
            union: Rows::with_capacity(n, 0),
            bits_at: Vec::with_capacity(n),
            class_bits: Vec::new(),
        };
        let mut entries = 0;
        let mut v: Vec<Transition> = Vec::new();
        for t in 0..n as Transition {
            let mine = slots.of(t);
            let bound: usize = mine.iter().map(|&s| members.row(s as usize).len()).sum();
            // The list is at least as long as the longest slot's members: past `listed`, it
            // is not built (n transitions on one slot would cost n² here).
            let widest = mine
                .iter()
                .map(|&s| members.row(s as usize).len())
                .max()
                .unwrap_or(0);
            v.clear();
            if widest <= listed && bound <= 16 * listed && entries + bound <= Self::LISTED_ENTRIES {
                v.extend(
                    mine.iter()
                        .flat_map(|&s| members.row(s as usize).iter().copied()),
                );
                v.sort_unstable();
                v.dedup();
                if v.len() <= listed {
                    // Left out: dependents whose guard on a slot shared with t always fails
                    // after t (on that slot their history ends with t's event, whose state
                    // decides it). Only on lists kept: on longer ones this would cost the
                    // square of a slot's members, and their classes drop such dependents at
                    // once anyway.
                    v.retain(|&x| {
                        !guards.row(x as usize).iter().any(|g| {
                            mine.binary_search(&g.slot).is_ok() && sys.disables(t, x, g.resource)
                        })
                    });
                    entries += v.len();
                    deps.is_listed.push(true);
                    deps.listed.push_row(v.iter().copied());
                    continue;
                }
            }
            deps.is_listed.push(false);
            deps.listed.push_row([]);
        }
        // Each slot's members by class, the classes in the order their first members come.
        // A class is found from the resource of its key: `head[r]` is the last class made
        // with a key on `r` in the slot at hand, `next_of[c]` the one made before `c` (classes
        // of one resource are few); `head` is reset after each slot (O(members), cheaper than
        // a hash map of keys on a slot of a million members).
        let mut head: Vec<u32> = vec![u32::MAX; sys.resource_count()];
        let mut next_of: Vec<u32> = Vec::new();
        let mut keyed: Vec<(u32, Transition)> = Vec::new();
        let mut keys: Vec<ClassKey> = Vec::new();
        let mut ends: Vec<u32> = Vec::new();
        for s in 0..members.len() {
            keyed.clear();
            keys.clear();
            next_of.clear();
            let mut unguarded = u32::MAX;
            for &t in members.row(s) {
                let key: ClassKey = guards
                    .row(t as usize)
                    .iter()
                    // On a token slot, a mover's class is that of its guard on a resource of
                    // the set (the place it takes the token from), which visit relies on.
                    .find(|g| {
                        g.slot == s as Slot
                            && (!deps.token[s] || slots.token_slot_of(g.resource) == Some(g.slot))
                    })
                    .map(|g| (g.resource, sys.guard_class(t, g.resource).ok_or(t)));
                let known = match key {
                    None => (unguarded != u32::MAX).then_some(unguarded),
                    // A guard with no class is a class of its own.
                    Some((_, Err(_))) => None,
                    Some((r, Ok(_))) => {
                        let mut c = head[r as usize];
                        while c != u32::MAX && keys[c as usize] != key {
                            c = next_of[c as usize];
                        }
                        (c != u32::MAX).then_some(c)
                    }
                };
                let class = known.unwrap_or_else(|| {
                    let c = keys.len() as u32;
                    keys.push(key);
                    match key {
                        None => {
                            unguarded = c;
                            next_of.push(u32::MAX);
                        }
                        Some((r, _)) => {
                            next_of.push(head[r as usize]);
                            head[r as usize] = c;
                        }
                    }
                    c
                });
                keyed.push((class, t));
            }
            for (r, _) in keys.iter().flatten() {
                head[*r as usize] = u32::MAX;
            }
            if deps.token[s] {
                // Classes by the resource of their guard (`None` first), and an index from
                // each resource to its first class: an event finds the classes of the places
                // it changed without a scan.
                let mut order: Vec<u32> = (0..keys.len() as u32).collect();
                order.sort_by_key(|&c| keys[c as usize].map(|(r, _)| r));
                let mut rank = vec![0; keys.len()];
                for (i, &c) in order.iter().enumerate() {
                    rank[c as usize] = i as u32;
                }
                for k in &mut keyed {
                    k.0 = rank[k.0 as usize];
                }
                keys = order.iter().map(|&c| keys[c as usize]).collect();
                for (c, key) in keys.iter().enumerate().rev() {
                    if let Some((r, _)) = key {
                        extend_to(&mut deps.class_at, *r as usize + 1, (0, u32::MAX));
                        deps.class_at[*r as usize] = (s as Slot, c as u32);
                    }
                }
            }
            // Stable: a class keeps its members in order.
            keyed.sort_by_key(|&(class, _)| class);
            deps.members.push_row(keyed.iter().map(|&(_, t)| t));
            // Where each class ends in `keyed`.
            ends.clear();
            ends.resize(keys.len(), 0);
            keyed.iter().for_each(|&(c, _)| ends[c as usize] += 1);
            ends.iter_mut().fold(0, |sum, end| {
                *end += sum;
                *end
            });
            deps.classes
                .push_row(keys.iter().enumerate().map(|(c, key)| {
                    let start = c.checked_sub(1).map_or(0, |b| ends[b]) as usize;
                    let end = ends[c];
                    let guard = key.map(|(r, _)| (keyed[start].1, r));
                    GuardClass {
                        end,
                        guard,
                        field: guard.and_then(|(rep, r)| {
                            guards
                                .row(rep as usize)
                                .iter()
                                .find(|g| g.slot == s as Slot && g.resource == r)
                                .and_then(|g| g.field)
                        }),
                    }
                }));
        }
        deps.build_bitsets(slots, bitsets);
        deps
    }

    /// The bitsets of the transitions with no list, as `mode` says. `Auto` keeps them while
    /// they fit in [`Self::BITSET_WORDS`] words and their members, read slot by slot, in twice
    /// as many reads (`n` transitions on one slot would otherwise cost n² reads here).
    fn build_bitsets(&mut self, slots: &SlotMap, mode: ClassBitsets) {
        let n = self.is_listed.len();
        let (budget, repeats_wanted) = match mode {
            ClassBitsets::Auto => (Self::BITSET_WORDS, REPEATS_FOR_BITSETS),
            ClassBitsets::Always => (usize::MAX / 4, 0),
            ClassBitsets::Never => (0, 0),
        };
        let mut reads_left = 2 * budget;
        // By transition: its index in the union being built (`u32::MAX` outside it). The
        // members repeat from slot to slot: they are not sorted with their repeats.
        let mut index = vec![u32::MAX; n];
        let mut union: Vec<Transition> = Vec::new();
        for t in 0..n as Transition {
            let mine = slots.of(t);
            // On one slot, every dependent is read once: bitsets never pay.
            if self.is_listed[t as usize] || (mine.len() <= 1 && repeats_wanted > 1) {
                self.bits_at.push(NO_BITS);
                self.union.push_row([]);
                continue;
            }
            union.clear();
            let rows = || mine.iter().map(|&s| self.members.row(s as usize).len());
            let (reads, widest) = (rows().sum::<usize>(), rows().max().unwrap_or(0));
            let classes: usize = mine
                .iter()
                .map(|&s| self.classes.row(s as usize).len())
                .sum();
            // Bitsets pay where a dependent is a member of many of the slots (its reads then
            // repeat); the union is at least as wide as the widest slot.
            let repeats = |union: usize| reads >= repeats_wanted * union;
            let fits = |words: usize| self.class_bits.len() + words * classes <= budget;
            if repeats(widest) && reads <= reads_left && fits(widest.div_ceil(64)) {
                reads_left -= reads;
                for &s in mine {
                    for &x in self.members.row(s as usize) {
                        if index[x as usize] == u32::MAX {
                            index[x as usize] = 0;
                            union.push(x);
                        }
                    }
                }
                union.sort_unstable();
                for (i, &x) in union.iter().enumerate() {
                    index[x as usize] = i as u32;
                }
            }
            let words = union.len().div_ceil(64);
            if union.is_empty() || !repeats(union.len()) || !fits(words) {
                self.bits_at.push(NO_BITS);
            } else {
                self.bits_at.push(self.class_bits.len());
                for &s in mine {
                    let members = self.members.row(s as usize);
                    let mut start = 0;
                    for class in self.classes.row(s as usize) {
                        let base = self.class_bits.len();
                        self.class_bits.resize(base + words, 0);
                        for &x in &members[start..class.end as usize] {
                            let i = index[x as usize] as usize;
                            self.class_bits[base + i / 64] |= 1 << (i % 64);
                        }
                        start = class.end as usize;
                    }
                }
            }
            let kept = self.bits_at[t as usize] != NO_BITS;
            self.union.push_row(union.iter().copied().filter(|_| kept));
            for &x in &union {
                index[x as usize] = u32::MAX;
            }
        }
    }

    /// Puts into `out`, sorted, the transitions an event labelled `t`, on `slots`, may
    /// extend into (`footprint` is `t`'s): its dependents, less (when they are many) the
    /// classes whose guard `holds(transition, resource, field)` denies in the event's local
    /// state. `mark` is all false, by transition, and left so; `bits` is scratch.
    pub(super) fn visit(
        &self,
        (t, slots, footprint): (Transition, &[Slot], &Footprint),
        holds: impl Fn(Transition, Resource, Option<GuardField>) -> bool,
        mark: &mut [bool],
        bits: &mut Vec<u64>,
        out: &mut Vec<Transition>,
    ) {
        out.clear();
        if self.is_listed[t as usize] {
            out.extend_from_slice(self.listed.row(t as usize));
            return;
        }
        if self.bits_at[t as usize] != NO_BITS {
            let union = self.union.row(t as usize);
            let words = union.len().div_ceil(64);
            bits.clear();
            bits.resize(words, 0);
            let mut at = self.bits_at[t as usize];
            for &s in slots {
                for class in self.classes.row(s as usize) {
                    let passes = class
                        .guard
                        .is_none_or(|(rep, r)| holds(rep, r, class.field));
                    if passes {
                        for (acc, &b) in bits.iter_mut().zip(&self.class_bits[at..at + words]) {
                            *acc |= b;
                        }
                    }
                    at += words;
                }
            }
            for (w, &word) in bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    out.push(union[w * 64 + word.trailing_zeros() as usize]);
                    word &= word - 1;
                }
            }
            return;
        }
        for &s in slots {
            let members = self.members.row(s as usize);
            let classes = self.classes.row(s as usize);
            let mut take = |i: usize| {
                let class = &classes[i];
                if let Some((rep, r)) = class.guard
                    && !holds(rep, r, class.field)
                {
                    return;
                }
                let start = if i == 0 {
                    0
                } else {
                    classes[i - 1].end as usize
                };
                for &x in &members[start..class.end as usize] {
                    if !mark[x as usize] {
                        mark[x as usize] = true;
                        out.push(x);
                    }
                }
            };
            if !self.token[s as usize] {
                (0..classes.len()).for_each(take);
                continue;
            }
            // On a token slot, the guards on the resources of the set that t did not change
            // fail (`System::token_sets`): only the classes with no guard and those on the
            // resources t changed are looked at, not one class per place of the set.
            (0..classes.len())
                .take_while(|&i| classes[i].guard.is_none())
                .for_each(&mut take);
            for touch in footprint {
                let r = touch.resource;
                let (on, from) = self
                    .class_at
                    .get(r as usize)
                    .copied()
                    .unwrap_or((0, u32::MAX));
                if on != s || from == u32::MAX || !touch.access.conflicts_with(Access::READ) {
                    continue;
                }
                (from as usize..classes.len())
                    .take_while(|&i| classes[i].guard.is_some_and(|(_, x)| x == r))
                    .for_each(&mut take);
            }
        }
        for &x in out.iter() {
            mark[x as usize] = false;
        }
        out.sort_unstable();
    }
}
