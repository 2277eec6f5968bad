//! Explicit-state reachability: breadth-first search over packed states.
//!
//! The oracle of the partial-order explorers (reachable states, deadlocks) and a user feature of
//! its own (the MCC StateSpace, ReachabilityDeadlock and OneSafe examinations).
//!
//! States live in one flat arena of words in discovery order, which is also the BFS queue; a
//! hash table of `u32` indices into the arena finds duplicates, and a parent link per state
//! gives shortest witness runs.

use hashbrown::HashTable;

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

/// The set of reached states with their BFS tree.
pub struct StateSpace {
    words: usize,
    arena: Vec<u64>,
    parents: Vec<Parent>,
    /// Entries are `(hash fingerprint << 32) | id`: rehashing on growth and most mismatches
    /// are decided without touching the arena (a cache miss per probe otherwise).
    table: HashTable<u64>,
}

/// The hash of an entry, rebuilt from its 32-bit fingerprint.
#[inline]
fn entry_hash(entry: u64) -> u64 {
    let f = entry >> 32;
    f | (f << 32)
}

#[inline]
fn hash_words(words: &[u64]) -> u64 {
    // A multiply-xorshift mix per word: fast, and good enough for hashbrown's top-7-bit tags.
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ words.len() as u64;
    for &w in words {
        h = (h ^ w).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h.wrapping_mul(0x94D0_49BB_1331_11EB) ^ (h >> 29)
}

impl StateSpace {
    fn new(words: usize) -> Self {
        StateSpace {
            words,
            arena: Vec::new(),
            parents: Vec::new(),
            table: HashTable::new(),
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

    /// Bytes held by the data structures (capacity, not length: what is really allocated).
    pub fn bytes(&self) -> u64 {
        (self.arena.capacity() * 8
            + self.parents.capacity() * std::mem::size_of::<Parent>()
            + self.table.capacity() * (std::mem::size_of::<u64>() + 1)) as u64
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
        if self.table.len() == self.table.capacity() {
            extra += self.table.capacity().max(64) * (std::mem::size_of::<u64>() + 1) * 2;
        }
        extra as u64
    }

    /// Inserts `state` unless present; returns its id and whether it is new.
    fn insert(&mut self, state: &[u64], parent: Parent) -> (StateId, bool) {
        let fingerprint = hash_words(state) >> 32;
        let hash = fingerprint | (fingerprint << 32);
        let (arena, words) = (&self.arena, self.words);
        let found = self.table.find(hash, |&entry| {
            let id = (entry & 0xFFFF_FFFF) as usize;
            entry >> 32 == fingerprint && &arena[id * words..(id + 1) * words] == state
        });
        if let Some(&entry) = found {
            return ((entry & 0xFFFF_FFFF) as StateId, false);
        }
        let id = self.parents.len() as StateId;
        self.table
            .insert_unique(hash, (fingerprint << 32) | id as u64, |&e| entry_hash(e));
        self.arena.extend_from_slice(state);
        self.parents.push(parent);
        (id, true)
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

/// How often (in expanded states) limits are checked and progress reported.
const CHECK_EVERY: u64 = 4096;

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
    let words = sys.state_words();
    let mut space = StateSpace::new(words);
    let mut current = vec![0u64; words];
    let mut next = vec![0u64; words];
    sys.initial_state(&mut current);
    let root = Parent {
        state: 0,
        transition: 0,
    };
    space.insert(&current, root);
    on_new_state(0, &current);

    let mut outcome_edges = 0u64;
    let mut deadlocks = 0u64;
    let mut first_deadlock = None;
    let mut stopped = None;
    let mut expanded: u64 = 0;
    let transitions = sys.transition_count() as Transition;

    while (expanded as usize) < space.len() {
        if expanded.is_multiple_of(CHECK_EVERY) {
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
        let mut any = false;
        for t in 0..transitions {
            if !sys.is_enabled(&current, t) {
                continue;
            }
            any = true;
            outcome_edges += 1;
            sys.fire(&current, t, &mut next)?;
            // Check the budget before any container may grow past it.
            if limits
                .check_memory(space.bytes() + space.growth_bytes())
                .is_err()
            {
                stopped = Some(StopReason::MemoryLimit);
                break;
            }
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
                on_new_state(sid, &next);
            }
        }
        if stopped.is_some() {
            break;
        }
        if !any {
            deadlocks += 1;
            first_deadlock.get_or_insert(id);
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
    })
}

/// A run to a state: transition names and the state reached.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Witness {
    /// Transition labels fired from the initial state.
    pub run: Vec<String>,
    /// The state reached, rendered.
    pub state: String,
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
pub fn reach_net(
    net: &Net,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<NetReach, Overflow> {
    let mut sys = NetSystem::new(net);
    loop {
        match reach_with(&sys, limits, progress) {
            Ok(r) => return Ok(r),
            Err(overflow) => match sys.widened() {
                Some(wider) => sys = wider,
                None => return Err(overflow),
            },
        }
    }
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
        for (p, max) in place_max.iter_mut().enumerate() {
            let k = sys.tokens(m, p as PlaceIdx);
            total = total.saturating_add(k);
            *max = (*max).max(k);
            unsafe_here |= k > 1;
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
            .map(|p| sys.net().places[p as usize].label.clone())
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
        let r = reach_net(&net, &Limits::default(), &mut |_| {}).unwrap();
        // 2^4 markings of the components, plus the empty marking after the sink.
        assert_eq!(r.states, 17);
        assert_eq!(r.deadlocks, 1);
        assert_eq!(r.deadlock_witness.unwrap().run, vec!["sink"]);
        assert!(r.safe);
        assert_eq!(r.max_tokens_per_marking, 4);
        assert_eq!(r.stopped, None);
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
        let r = reach_net(&net, &Limits::default(), &mut |_| {}).unwrap();
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
        let r = reach_net(&net, &limits, &mut |_| {}).unwrap();
        assert_eq!(r.stopped, Some(StopReason::MemoryLimit));
        assert!(r.states < 1 << 16);
        assert!(r.bytes <= 64 * 1024);
    }
}
