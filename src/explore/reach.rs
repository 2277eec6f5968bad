//! Explicit-state reachability: breadth-first search over packed states.
//!
//! The oracle of the partial-order explorers (reachable states, deadlocks) and a user feature of
//! its own (the MCC StateSpace, ReachabilityDeadlock and OneSafe examinations).
//!
//! States live in one flat arena of words in discovery order, which is also the BFS queue; a
//! parent link per state gives shortest witness runs. Duplicates are found with an
//! open-addressing hash table (linear probing) of our own: for narrow states (up to
//! `INLINE_WORDS` words) a slot holds the state itself next to its id, so a lookup costs one
//! cache miss; wider states are compared in the arena behind a 32-bit fingerprint. The
//! successors of a state are all computed first and their slots prefetched before any is
//! looked up, so that the cache misses of one expansion overlap.

use std::ops::ControlFlow;

use super::limits::{Limits, StopReason};
use crate::model::net::{Net, PlaceIdx};
use crate::model::net_system::NetSystem;
use crate::system::{Overflow, System, Transition};

/// Index of a state in discovery (BFS) order.
pub type StateId = u32;

/// Link from a state to the state it was first reached from.
#[derive(Clone, Copy)]
struct Parent {
    state: StateId,
    transition: Transition,
}

/// States of at most this many words are stored inline in the hash table.
const INLINE_WORDS: usize = 3;

/// Smallest table (slots).
const MIN_SLOTS: usize = 16;

/// The set of reached states with their BFS tree.
pub struct StateSpace {
    words: usize,
    arena: Vec<u64>,
    parents: Vec<Parent>,
    /// Whether slots hold the states themselves.
    inline: bool,
    /// Words per slot: `words + 1` inline, else 1. The last word of a slot is its meta word,
    /// `(fingerprint << 32) | (id + 1)`, 0 when the slot is empty.
    slot_words: usize,
    /// `slots × slot_words` words; `slots` is a power of two.
    table: Vec<u64>,
    /// `64 − log2(slots)`: the slot of hash `h` is `h >> shift`.
    shift: u32,
}

#[inline]
fn hash_words(words: &[u64]) -> u64 {
    // A multiply-xorshift mix per word; the top bits (the slot) and the low 32 bits (the
    // fingerprint) are both well mixed by the final multiply and shift.
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ words.len() as u64;
    for &w in words {
        h = (h ^ w).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 29)
}

/// Whether two states are equal (a word loop: states are short, a `memcmp` call costs more).
#[inline(always)]
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Hints the processor to load the cache line at `p` (a no-op elsewhere than x86-64).
#[inline(always)]
fn prefetch(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl StateSpace {
    fn new(words: usize) -> Self {
        let inline = words <= INLINE_WORDS;
        let slot_words = if inline { words + 1 } else { 1 };
        StateSpace {
            words,
            arena: Vec::new(),
            parents: Vec::new(),
            inline,
            slot_words,
            table: vec![0; MIN_SLOTS * slot_words],
            shift: 64 - MIN_SLOTS.trailing_zeros(),
        }
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether there is no state.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The packed state `id`.
    pub fn state(&self, id: StateId) -> &[u64] {
        let i = id as usize * self.words;
        &self.arena[i..i + self.words]
    }

    fn slots(&self) -> usize {
        self.table.len() / self.slot_words
    }

    /// Whether inserting one more state makes the table grow (load factor above 3/4).
    fn table_full(&self) -> bool {
        (self.len() + 1) * 4 > self.slots() * 3
    }

    /// Bytes held by the data structures (capacity, not length: what is really allocated).
    pub fn bytes(&self) -> u64 {
        (self.arena.capacity() * 8
            + self.parents.capacity() * std::mem::size_of::<Parent>()
            + self.table.capacity() * 8) as u64
    }

    /// Bytes the next growth of the containers would add on top of [`bytes`](Self::bytes), as a
    /// worst case (growth doubles; during a reallocation old and new buffers coexist).
    fn growth_bytes(&self) -> u64 {
        let mut extra = 0;
        if self.arena.len() + self.words > self.arena.capacity() {
            extra += self.arena.capacity().max(self.words * 64) * 8 * 2;
        }
        if self.parents.len() == self.parents.capacity() {
            extra += self.parents.capacity().max(64) * std::mem::size_of::<Parent>() * 2;
        }
        if self.table_full() {
            // The old table is freed before the new one (twice as large) is allocated.
            extra += self.table.len() * 8;
        }
        extra as u64
    }

    /// Word index of the slot of hash `h`.
    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize * self.slot_words
    }

    /// Prefetches the home slot of hash `h`.
    #[inline]
    fn prefetch_slot(&self, h: u64) {
        prefetch(self.table[self.home(h)..].as_ptr());
    }

    /// Looks `state` (of hash `h`) up: `Ok(id)` when present, else `Err(word index of the
    /// empty slot where it belongs)`.
    #[inline]
    fn find(&self, state: &[u64], h: u64) -> Result<StateId, usize> {
        let fingerprint = h << 32;
        let (sw, words) = (self.slot_words, self.words);
        let end = self.table.len();
        let mut i = self.home(h);
        loop {
            let meta = self.table[i + sw - 1];
            if meta == 0 {
                return Err(i);
            }
            if meta & 0xFFFF_FFFF_0000_0000 == fingerprint {
                let id = (meta as u32).wrapping_sub(1);
                let same = if self.inline {
                    same(&self.table[i..i + words], state)
                } else {
                    let a = id as usize * words;
                    same(&self.arena[a..a + words], state)
                };
                if same {
                    return Ok(id);
                }
            }
            i += sw;
            if i == end {
                i = 0;
            }
        }
    }

    /// Writes the entry of state `id` (hash `h`) into the empty slot at word index `i`.
    #[inline]
    fn put(&mut self, i: usize, state: &[u64], h: u64, id: StateId) {
        let sw = self.slot_words;
        if self.inline {
            self.table[i..i + self.words].copy_from_slice(state);
        }
        self.table[i + sw - 1] = (h << 32) | (id as u64 + 1);
    }

    /// Doubles the table: frees it and re-inserts every state from the arena, in id order.
    fn grow(&mut self) {
        let slots = self.slots() * 2;
        self.table = Vec::new();
        self.table = vec![0; slots * self.slot_words];
        self.shift = 64 - slots.trailing_zeros();
        let (words, sw) = (self.words, self.slot_words);
        for id in 0..self.len() {
            let a = id * words;
            let h = hash_words(&self.arena[a..a + words]);
            let Err(i) = self.find(&self.arena[a..a + words], h) else {
                unreachable!("states are distinct")
            };
            if self.inline {
                self.table[i..i + words].copy_from_slice(&self.arena[a..a + words]);
            }
            self.table[i + sw - 1] = (h << 32) | (id as u64 + 1);
        }
    }

    /// Inserts `state` (of hash `h`) unless present; returns its id and whether it is new.
    fn insert_hashed(&mut self, state: &[u64], h: u64, parent: Parent) -> (StateId, bool) {
        let i = match self.find(state, h) {
            Ok(id) => return (id, false),
            Err(i) => i,
        };
        let id = self.parents.len() as StateId;
        let full = self.table_full();
        self.arena.extend_from_slice(state);
        self.parents.push(parent);
        if full {
            self.grow(); // re-inserts the new state too
        } else {
            self.put(i, state, h, id);
        }
        (id, true)
    }

    /// Inserts `state` unless present; returns its id and whether it is new.
    fn insert(&mut self, state: &[u64], parent: Parent) -> (StateId, bool) {
        self.insert_hashed(state, hash_words(state), parent)
    }

    /// The id of `state`, if it was reached.
    pub fn lookup(&self, state: &[u64]) -> Option<StateId> {
        self.find(state, hash_words(state)).ok()
    }

    /// The firing sequence of the BFS tree from the initial state to `id` (a shortest run).
    pub fn path_to(&self, mut id: StateId) -> Vec<Transition> {
        let mut path = Vec::new();
        while id != 0 {
            let p = self.parents[id as usize];
            path.push(p.transition);
            id = p.state;
        }
        path.reverse();
        path
    }
}

/// What a reachability run found, for any [`System`].
pub struct ReachOutcome {
    /// The reached states.
    pub space: StateSpace,
    /// Edges of the reachability graph explored (one per enabled transition of an expanded
    /// state).
    pub edges: u64,
    /// Number of reachable states that enable no transition.
    pub deadlocks: u64,
    /// The first deadlock found (BFS order: one with a shortest run).
    pub first_deadlock: Option<StateId>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Whether the observer ended the run (see [`explore_until`]): the state space is then
    /// partial, though no limit struck.
    pub halted: bool,
}

/// Progress of a running exploration, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct ReachProgress {
    /// States found.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Bytes held.
    pub bytes: u64,
}

/// How often limits are checked and progress reported: after this much work, counting one per
/// expanded state and one per firing (a state of a wide net may enable many transitions).
const CHECK_EVERY: u64 = 16384;

/// The most bytes of successor states held at once while expanding a state.
const SUCCESSOR_BATCH_BYTES: usize = 1 << 20;

/// Breadth-first exploration of every reachable state of `sys`.
///
/// `on_new_state` sees each state once, when it is found. A counter overflow aborts the run
/// (the caller may retry with wider counters).
pub fn explore<S: System>(
    sys: &S,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
    on_new_state: &mut dyn FnMut(StateId, &[u64]),
) -> Result<ReachOutcome, Overflow> {
    explore_until(sys, limits, progress, &mut |id, state| {
        on_new_state(id, state);
        ControlFlow::Continue(())
    })
}

/// Like [`explore`], but `on_new_state` may end the exploration at once by returning
/// [`ControlFlow::Break`] (a property checker that has its answer); the outcome then has
/// `halted` set, and the states found so far.
pub fn explore_until<S: System>(
    sys: &S,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
    on_new_state: &mut dyn FnMut(StateId, &[u64]) -> ControlFlow<()>,
) -> Result<ReachOutcome, Overflow> {
    let words = sys.state_words();
    let mut space = StateSpace::new(words);
    let mut current = vec![0u64; words];
    sys.initial_state(&mut current);
    let root = Parent {
        state: 0,
        transition: 0,
    };
    space.insert(&current, root);
    let mut halted = on_new_state(0, &current).is_break();

    let mut outcome_edges = 0u64;
    let mut deadlocks = 0u64;
    let mut first_deadlock = None;
    let mut stopped = None;
    let mut expanded: u64 = 0;
    let (mut work, mut next_check) = (0u64, 0u64);
    // The successors of the state being expanded: transitions, states, hashes.
    let mut enabled: Vec<Transition> = Vec::new();
    let mut succ: Vec<u64> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();

    while !halted && (expanded as usize) < space.len() {
        if work >= next_check {
            next_check = work + CHECK_EVERY;
            progress(ReachProgress {
                states: space.len() as u64,
                expanded,
                bytes: space.bytes(),
            });
            if let Err(reason) = limits.check_time() {
                stopped = Some(reason);
                break;
            }
        }
        let id = expanded as StateId;
        current.copy_from_slice(space.state(id));
        enabled.clear();
        sys.enabled(&current, &mut enabled);
        work += 1 + enabled.len() as u64;
        if enabled.is_empty() && !sys.is_terminal(&current) {
            deadlocks += 1;
            first_deadlock.get_or_insert(id);
            expanded += 1;
            continue;
        }
        outcome_edges += enabled.len() as u64;
        // Successors go in batches of bounded size: a state of a wide net may enable so many
        // transitions that all its successors at once would not fit, nor finish soon.
        let batch = (SUCCESSOR_BATCH_BYTES / (words * 8)).max(1);
        for (b, chunk) in enabled.chunks(batch).enumerate() {
            if b > 0
                && let Err(reason) = limits.check_time()
            {
                stopped = Some(reason);
                break;
            }
            // Fire the batch first and prefetch the slots, then look the successors up in
            // order.
            succ.resize(chunk.len() * words, 0);
            hashes.clear();
            for (k, &t) in chunk.iter().enumerate() {
                let next = &mut succ[k * words..(k + 1) * words];
                sys.fire(&current, t, next)?;
                // A firing that leaves the state unchanged leads back to `id`: no lookup.
                let h = if same(next, &current) {
                    0
                } else {
                    hash_words(next)
                };
                space.prefetch_slot(h);
                hashes.push(h);
            }
            for (k, &t) in chunk.iter().enumerate() {
                let next = &succ[k * words..(k + 1) * words];
                if same(next, &current) {
                    continue;
                }
                // Check the budget before any container may grow past it.
                if limits
                    .check_memory(space.bytes() + space.growth_bytes() + succ.capacity() as u64 * 8)
                    .is_err()
                {
                    stopped = Some(StopReason::MemoryLimit);
                    break;
                }
                if space.len() == StateId::MAX as usize {
                    stopped = Some(StopReason::MemoryLimit);
                    break;
                }
                let (sid, new) = space.insert_hashed(
                    next,
                    hashes[k],
                    Parent {
                        state: id,
                        transition: t,
                    },
                );
                if new && on_new_state(sid, next).is_break() {
                    halted = true;
                    break;
                }
            }
            if stopped.is_some() || halted {
                break;
            }
        }
        if stopped.is_some() || halted {
            break;
        }
        expanded += 1;
    }
    progress(ReachProgress {
        states: space.len() as u64,
        expanded,
        bytes: space.bytes(),
    });
    Ok(ReachOutcome {
        space,
        edges: outcome_edges,
        deadlocks,
        first_deadlock,
        stopped,
        halted,
    })
}

/// Best-first exploration: the state of highest `priority` is expanded first (ties in the
/// order found), until `on_new_state` ends the search, every reachable state was expanded, or
/// `limits` stop it. For searches that climb towards large values of a quantity (a bound's
/// witness), where breadth-first order reaches them too late. The runs of
/// [`StateSpace::path_to`] are then witnesses, not shortest ones.
pub fn explore_best_first<S: System>(
    sys: &S,
    limits: &Limits,
    priority: &mut dyn FnMut(&[u64]) -> u64,
    on_new_state: &mut dyn FnMut(StateId, &[u64]) -> ControlFlow<()>,
) -> Result<ReachOutcome, Overflow> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let words = sys.state_words();
    let mut space = StateSpace::new(words);
    let mut current = vec![0u64; words];
    sys.initial_state(&mut current);
    space.insert(
        &current,
        Parent {
            state: 0,
            transition: 0,
        },
    );
    let mut halted = on_new_state(0, &current).is_break();
    let mut queue = BinaryHeap::from([(priority(&current), Reverse(0 as StateId))]);
    let (mut edges, mut deadlocks, mut first_deadlock, mut stopped) = (0u64, 0u64, None, None);
    let mut enabled: Vec<Transition> = Vec::new();
    let mut next = vec![0u64; words];
    let mut work = 0u64;
    while !halted && let Some((_, Reverse(id))) = queue.pop() {
        if work >= CHECK_EVERY {
            work = 0;
            let held = space.bytes() + space.growth_bytes() + queue.len() as u64 * 16;
            if let Err(reason) = limits.check_time().and_then(|_| limits.check_memory(held)) {
                stopped = Some(reason);
                break;
            }
        }
        current.copy_from_slice(space.state(id));
        enabled.clear();
        sys.enabled(&current, &mut enabled);
        work += 1 + enabled.len() as u64;
        if enabled.is_empty() && !sys.is_terminal(&current) {
            deadlocks += 1;
            first_deadlock.get_or_insert(id);
        }
        edges += enabled.len() as u64;
        for &t in &enabled {
            sys.fire(&current, t, &mut next)?;
            if space.len() == StateId::MAX as usize {
                stopped = Some(StopReason::MemoryLimit);
                break;
            }
            let (sid, new) = space.insert(
                &next,
                Parent {
                    state: id,
                    transition: t,
                },
            );
            if new {
                if on_new_state(sid, &next).is_break() {
                    halted = true;
                    break;
                }
                queue.push((priority(&next), Reverse(sid)));
            }
        }
        if stopped.is_some() {
            break;
        }
    }
    Ok(ReachOutcome {
        space,
        edges,
        deadlocks,
        first_deadlock,
        stopped,
        halted,
    })
}

/// A run to a state: transition names and the state reached.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Witness {
    /// Transition labels fired from the initial state.
    pub run: Vec<String>,
    /// The state reached, rendered.
    pub state: String,
    /// The state reached as a marking (place identifier, tokens of every marked place), when
    /// the system is a net.
    pub marking: Option<Vec<(String, u64)>>,
}

/// The answers of `unfold reach` on a net.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NetReach {
    /// Reachable markings found.
    pub states: u64,
    /// Edges of the reachability graph (firings from expanded markings).
    pub edges: u64,
    /// Reachable markings enabling no transition.
    pub deadlocks: u64,
    /// A shortest run to a deadlock.
    pub deadlock_witness: Option<Witness>,
    /// The most tokens on one place in any reachable marking.
    pub max_tokens_in_place: u64,
    /// The most tokens in one reachable marking.
    pub max_tokens_per_marking: u64,
    /// Whether no reachable marking puts two tokens on a place.
    pub safe: bool,
    /// A shortest run to a marking with two tokens on a place, and that place.
    pub unsafe_witness: Option<(Witness, String)>,
    /// Counter width used in the final run, in bits.
    pub counter_bits: u32,
    /// Why the run stopped early (`None`: complete).
    pub stopped: Option<StopReason>,
    /// Bytes held by the state space at the end.
    pub bytes: u64,
}

/// Explores the reachable markings of `net`, widening the marking counters and starting over
/// whenever a count does not fit.
pub fn explore_net(
    net: &Net,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<NetReach, Overflow> {
    NetSystem::new(net)
        .retry_widened(|sys| reach_with(sys, limits, progress))
        .map(|(r, _)| r)
}

fn reach_with(
    sys: &NetSystem<'_>,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<NetReach, Overflow> {
    let places = sys.net().places.len();
    let one_bit = sys.bits() == 1;
    // With 1-bit counters, the OR of all markings tells which places were ever marked.
    let mut ever_marked = vec![0u64; sys.state_words()];
    let mut place_max = vec![0u64; if one_bit { 0 } else { places }];
    let mut max_per_marking = 0u64;
    let mut first_unsafe: Option<StateId> = None;
    let mut observe = |id: StateId, m: &[u64]| {
        if one_bit {
            for (acc, w) in ever_marked.iter_mut().zip(m) {
                *acc |= w;
            }
            max_per_marking = max_per_marking.max(sys.total_tokens(m) as u64);
            return;
        }
        let mut total = 0u64;
        let mut unsafe_here = false;
        // Counters word by word (the same packing as `NetSystem::tokens`, without a division
        // per place).
        let (bits, cap) = (sys.bits(), sys.capacity());
        let per_word = 64 / bits as usize;
        for (chunk, &word) in place_max.chunks_mut(per_word).zip(m) {
            let mut w = word;
            for max in chunk {
                let k = w & cap;
                w = w.checked_shr(bits).unwrap_or(0);
                total = total.saturating_add(k);
                *max = (*max).max(k);
                unsafe_here |= k > 1;
            }
        }
        max_per_marking = max_per_marking.max(total);
        if unsafe_here && first_unsafe.is_none() {
            first_unsafe = Some(id);
        }
    };
    let out = explore(sys, limits, progress, &mut observe)?;
    let witness = |id: StateId| Witness {
        run: out
            .space
            .path_to(id)
            .into_iter()
            .map(|t| sys.transition_name(t).to_string())
            .collect(),
        state: sys.describe_state(out.space.state(id)),
        marking: sys.marking_of(out.space.state(id)),
    };
    let max_in_place = if one_bit {
        ever_marked.iter().any(|&w| w != 0) as u64
    } else {
        place_max.iter().copied().max().unwrap_or(0)
    };
    let unsafe_witness = first_unsafe.map(|id| {
        let m = out.space.state(id);
        let place = (0..places as PlaceIdx)
            .find(|&p| sys.tokens(m, p) > 1)
            .map(|p| sys.net().places[p as usize].label.to_string())
            .unwrap_or_default();
        (witness(id), place)
    });
    Ok(NetReach {
        states: out.space.len() as u64,
        edges: out.edges,
        deadlocks: out.deadlocks,
        deadlock_witness: out.first_deadlock.map(witness),
        max_tokens_in_place: max_in_place,
        max_tokens_per_marking: max_per_marking,
        safe: max_in_place <= 1,
        unsafe_witness,
        counter_bits: sys.bits(),
        stopped: out.stopped,
        bytes: out.space.bytes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// `n` independent two-state components p_i <-> q_i, plus a sink transition that consumes
    /// every p_i (a deadlock once fired).
    fn components(n: usize) -> Net {
        let mut b = NetBuilder::new("c");
        let mut ps = Vec::new();
        for i in 0..n {
            let p = b.add_place(format!("p{i}"), None, 1).unwrap();
            let q = b.add_place(format!("q{i}"), None, 0).unwrap();
            let t = b.add_transition(format!("t{i}"), None).unwrap();
            let u = b.add_transition(format!("u{i}"), None).unwrap();
            b.add_arc(p, t, ArcKind::Input, 1).unwrap();
            b.add_arc(q, t, ArcKind::Output, 1).unwrap();
            b.add_arc(q, u, ArcKind::Input, 1).unwrap();
            b.add_arc(p, u, ArcKind::Output, 1).unwrap();
            ps.push(p);
        }
        let sink = b.add_transition("sink", None).unwrap();
        for p in ps {
            b.add_arc(p, sink, ArcKind::Input, 1).unwrap();
        }
        b.finish()
    }

    #[test]
    fn counts_states_and_deadlocks() {
        let net = components(4);
        let r = explore_net(&net, &Limits::default(), &mut |_| {}).unwrap();
        // 2^4 markings of the components, plus the empty marking after the sink.
        assert_eq!(r.states, 17);
        assert_eq!(r.deadlocks, 1);
        assert_eq!(r.deadlock_witness.unwrap().run, vec!["sink"]);
        assert!(r.safe);
        assert_eq!(r.max_tokens_per_marking, 4);
        assert_eq!(r.stopped, None);
    }

    #[test]
    fn wide_states_and_table_growth() {
        // 2^10 markings plus the sink's, over 5 words (300 idle places): the table compares
        // states in the arena and grows several times.
        let mut net = components(10);
        let mut b = NetBuilder::new("wide");
        for i in 0..300 {
            b.add_place(format!("idle{i}"), None, 0).unwrap();
        }
        net.places.extend(b.finish().places);
        let r = explore_net(&net, &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!((r.states, r.deadlocks), (1025, 1));
        let narrow = explore_net(&components(10), &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!((narrow.states, narrow.edges), (r.states, r.edges));
    }

    #[test]
    fn unsafe_net_is_widened_and_witnessed() {
        // t: p -> q,q (weight 2), u: q -> p (weight 1): q can hold up to 2 tokens.
        let mut b = NetBuilder::new("u");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 2).unwrap();
        let net = b.finish();
        let r = explore_net(&net, &Limits::default(), &mut |_| {}).unwrap();
        assert_eq!(r.states, 2);
        assert!(!r.safe);
        assert_eq!(r.max_tokens_in_place, 2);
        let (w, place) = r.unsafe_witness.unwrap();
        assert_eq!((w.run, place), (vec!["t".to_string()], "q".to_string()));
    }

    #[test]
    fn memory_limit_stops_cleanly() {
        let net = components(16);
        let limits = Limits::new(None, Some(64 * 1024));
        let r = explore_net(&net, &limits, &mut |_| {}).unwrap();
        assert_eq!(r.stopped, Some(StopReason::MemoryLimit));
        assert!(r.states < 1 << 16);
        assert!(r.bytes <= 64 * 1024);
    }
}
