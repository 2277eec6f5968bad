//! Counting maximal runs and maximal traces of an acyclic system without enumerating them: a
//! second brute-force oracle (DESIGN §6.1) for systems whose runs are far too many to list.
//!
//! A Mazurkiewicz trace has exactly one representative that is least in the lexicographic
//! order of words (letters ordered by transition number), and a word is that representative
//! iff it has no factor `b·u·a` with `a < b` and `a` independent of `b` and of every letter of
//! `u` (Anisimov and Knuth, 1979). Whether a letter may come next therefore depends only on a
//! set `F` of forbidden letters, updated on each step `c` as `F' = (F ∩ I(c)) ∪ ({x < c} ∩
//! I(c))`. Counting maximal traces is counting maximal runs that never fire a forbidden letter,
//! by dynamic programming over pairs (state, `F`). Like [`brute`](super::brute), it uses only
//! [`System::enabled`], [`System::fire`] and [`System::dependent`], nothing of the unfolding.

use rustc_hash::{FxHashMap, FxHashSet};

use super::limits::{Limits, StopReason};
use crate::system::{Overflow, System, Transition};

/// What the count found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceCount {
    /// Maximal runs (interleavings), saturated at `u128::MAX`.
    pub runs: u128,
    /// Maximal traces (= maximal configurations of the unfolding), saturated at `u128::MAX`.
    pub traces: u128,
    /// Maximal runs ending with a failed assertion ([`System::failed_assertion`]).
    pub failing_runs: u128,
    /// Maximal traces ending with a failed assertion.
    pub failing_traces: u128,
    /// A maximal run ending with a failed assertion, if there is one.
    pub assertion_witness: Option<Vec<Transition>>,
    /// Reachable states.
    pub states: u64,
    /// Pairs (state, forbidden letters) the trace count went through.
    pub nodes: u64,
}

/// Why the count could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CountError {
    /// A state repeats along a run: there are infinitely many runs.
    #[error("the system has a cycle (a state repeats after {0} steps): its runs are infinite")]
    Cyclic(usize),
    /// A counter overflowed while firing.
    #[error(transparent)]
    Overflow(#[from] Overflow),
    /// A limit stopped the count.
    #[error("{0}")]
    Stopped(StopReason),
}

/// A set of transitions as bit words.
type Letters = Vec<u64>;

fn word_count(transitions: usize) -> usize {
    transitions.div_ceil(64).max(1)
}

fn contains(set: &[u64], t: Transition) -> bool {
    set[t as usize / 64] >> (t % 64) & 1 == 1
}

/// Progress of a running count, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct TraceProgress {
    /// Steps of the depth-first searches so far.
    pub steps: u64,
    /// Entries of the table being filled (states, then nodes of the trace count).
    pub entries: u64,
}

/// Counts the maximal runs and maximal traces of `sys`, which must be acyclic.
pub fn explore<S: System + ?Sized>(
    sys: &S,
    limits: &Limits,
    progress: &mut dyn FnMut(TraceProgress),
) -> Result<TraceCount, CountError> {
    let n = sys.transition_count();
    let words = word_count(n);
    // Two n × n bit matrices: see that they fit before building them.
    limits
        .check_memory((2 * n * words * 8) as u64)
        .map_err(CountError::Stopped)?;
    // independent[c]: I(c); forbids[c]: {x < c} ∩ I(c), the letters that may not follow c.
    let mut independent: Vec<Letters> = vec![vec![0; words]; n];
    let mut forbids: Vec<Letters> = vec![vec![0; words]; n];
    for c in 0..n {
        limits.check_time().map_err(CountError::Stopped)?;
        for x in 0..n {
            if !sys.dependent(c as Transition, x as Transition) {
                independent[c][x / 64] |= 1 << (x % 64);
                if x < c {
                    forbids[c][x / 64] |= 1 << (x % 64);
                }
            }
        }
    }
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut counter = Counter {
        sys,
        limits,
        progress,
        steps: 0,
    };
    let ((runs, failing_runs), states) = counter.runs(&initial)?;
    let assertion_witness = if failing_runs > 0 {
        counter.failure_witness(&initial)?
    } else {
        None
    };
    let mut key = initial;
    key.extend(std::iter::repeat_n(0, words));
    let ((traces, failing_traces), nodes) = counter.traces(key, words, &independent, &forbids)?;
    Ok(TraceCount {
        runs,
        traces,
        failing_runs,
        failing_traces,
        assertion_witness,
        states,
        nodes,
    })
}

/// The bytes a hash table of `entries` keys of `key_words` words (each on the heap, with the
/// allocator's header) in `capacity` slots of `slot` bytes holds at its next growth: the keys,
/// and the slots (with a control byte each, at 7/8 load) of the table and of the one twice as
/// large that replaces it, both held while the keys move. Counting the growth before it
/// happens keeps the table from doubling past the limit between two checks.
fn table_bytes(entries: usize, capacity: usize, key_words: usize, slot: usize) -> u64 {
    let key = (key_words * 8).next_multiple_of(16) + 16;
    let slots = capacity.max(entries) as u64 * 8 / 7 * (slot as u64 + 1);
    entries as u64 * key as u64 + 3 * slots
}

/// Path counts: all the maximal paths, and those whose end has a failed assertion.
type Paths = (u128, u128);

/// The state of a count: the system, its limits and the steps taken.
struct Counter<'a, S: System + ?Sized> {
    sys: &'a S,
    limits: &'a Limits,
    progress: &'a mut dyn FnMut(TraceProgress),
    steps: u64,
}

/// A node of the depth-first search with successors left to add up.
struct Frame {
    key: Vec<u64>,
    successors: Vec<Vec<u64>>,
    sum: Paths,
}

impl<S: System + ?Sized> Counter<'_, S> {
    /// Checks the limits every few thousand steps, and the memory of a table of `entries`
    /// keys of `key_words` words in `capacity` slots of `slot` bytes.
    fn tick(
        &mut self,
        entries: usize,
        capacity: usize,
        key_words: usize,
        slot: usize,
    ) -> Result<(), CountError> {
        self.steps += 1;
        if self.steps.is_multiple_of(4096) {
            (self.progress)(TraceProgress {
                steps: self.steps,
                entries: entries as u64,
            });
            self.limits.check_time().map_err(CountError::Stopped)?;
            self.limits
                .check_memory(table_bytes(entries, capacity, key_words, slot))
                .map_err(CountError::Stopped)?;
        }
        Ok(())
    }

    /// Maximal runs from `initial` (paths to states that enable nothing), and the number of
    /// reachable states; a state repeating along a run is an error.
    fn runs(&mut self, initial: &[u64]) -> Result<(Paths, u64), CountError> {
        let sys = self.sys;
        self.paths(initial.to_vec(), true, |state| {
            let mut enabled = Vec::new();
            sys.enabled(state, &mut enabled);
            if enabled.is_empty() {
                return Ok(None);
            }
            let mut next = Vec::with_capacity(enabled.len());
            for t in enabled {
                let mut after = vec![0u64; state.len()];
                sys.fire(state, t, &mut after)?;
                next.push(after);
            }
            Ok(Some(next))
        })
    }

    /// Maximal runs in lexicographic normal form from the node `key` (a state followed by
    /// `words` words of forbidden letters), and the number of nodes visited.
    fn traces(
        &mut self,
        key: Vec<u64>,
        words: usize,
        independent: &[Letters],
        forbids: &[Letters],
    ) -> Result<(Paths, u64), CountError> {
        let sys = self.sys;
        let state_words = key.len() - words;
        // The runs phase went through every state: no cycle is left to find.
        self.paths(key, false, |key| {
            let (state, forbidden) = key.split_at(state_words);
            let mut enabled = Vec::new();
            sys.enabled(state, &mut enabled);
            if enabled.is_empty() {
                return Ok(None);
            }
            let mut next = Vec::with_capacity(enabled.len());
            for c in enabled.into_iter().filter(|&t| !contains(forbidden, t)) {
                let mut after = vec![0u64; key.len()];
                sys.fire(state, c, &mut after[..state_words])?;
                let (ind, fb) = (&independent[c as usize], &forbids[c as usize]);
                for (i, w) in after[state_words..].iter_mut().enumerate() {
                    *w = (forbidden[i] & ind[i]) | fb[i];
                }
                next.push(after);
            }
            Ok(Some(next))
        })
    }

    /// A maximal run from `initial` ending with a failed assertion: a depth-first search for
    /// a failing state, each state once, then any run on from it (failures are permanent,
    /// and the system is acyclic).
    fn failure_witness(&mut self, initial: &[u64]) -> Result<Option<Vec<Transition>>, CountError> {
        let sys = self.sys;
        let mut seen: FxHashSet<Vec<u64>> = FxHashSet::default();
        // (state, enabled transitions left to try, the transition that led here)
        let mut stack: Vec<(Vec<u64>, Vec<Transition>, Option<Transition>)> = Vec::new();
        let mut enabled = Vec::new();
        sys.enabled(initial, &mut enabled);
        seen.insert(initial.to_vec());
        stack.push((initial.to_vec(), std::mem::take(&mut enabled), None));
        while let Some(top) = stack.last_mut() {
            if sys.failed_assertion(&top.0).is_some() {
                let mut run: Vec<Transition> = stack.iter().filter_map(|f| f.2).collect();
                let mut state = stack.pop().map(|f| f.0).unwrap_or_default();
                loop {
                    enabled.clear();
                    sys.enabled(&state, &mut enabled);
                    let Some(&t) = enabled.first() else {
                        return Ok(Some(run));
                    };
                    self.tick(seen.len(), seen.capacity(), state.len(), 24)?;
                    sys.fire_in_place(&mut state, t)?;
                    run.push(t);
                }
            }
            let Some(t) = top.1.pop() else {
                stack.pop();
                continue;
            };
            self.tick(seen.len(), seen.capacity(), top.0.len(), 24)?;
            let mut next = vec![0u64; top.0.len()];
            sys.fire(&top.0, t, &mut next)?;
            if seen.insert(next.clone()) {
                enabled.clear();
                sys.enabled(&next, &mut enabled);
                stack.push((next, std::mem::take(&mut enabled), Some(t)));
            }
        }
        Ok(None)
    }

    /// Counts the paths from `root` to the nodes that `expand` calls maximal (`None`) in the
    /// acyclic graph it describes, memoised by node, on an explicit stack; returns the counts
    /// (all, and to a failing node: one whose first `state_words()` words are a state with a
    /// failed assertion) and the number of nodes. With `find_cycles`, a node repeating along
    /// a path is an error.
    fn paths(
        &mut self,
        root: Vec<u64>,
        find_cycles: bool,
        mut expand: impl FnMut(&[u64]) -> Result<Option<Vec<Vec<u64>>>, Overflow>,
    ) -> Result<(Paths, u64), CountError> {
        let state_words = self.sys.state_words();
        // The counts to failing nodes are kept apart, for the nodes that have some: a system
        // that cannot fail (a net) keeps one count per node, as many as it has nodes.
        let mut memo: FxHashMap<Vec<u64>, u128> = FxHashMap::default();
        let mut failing: FxHashMap<Vec<u64>, u128> = FxHashMap::default();
        fn remember(
            memo: &mut FxHashMap<Vec<u64>, u128>,
            failing: &mut FxHashMap<Vec<u64>, u128>,
            key: Vec<u64>,
            paths: Paths,
        ) {
            if paths.1 > 0 {
                failing.insert(key.clone(), paths.1);
            }
            memo.insert(key, paths.0);
        }
        let mut on_path: FxHashSet<Vec<u64>> = FxHashSet::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut pending = Some(root);
        loop {
            // The count of the node just finished (visited, or popped) goes to its parent.
            let finished = if let Some(key) = pending.take() {
                match memo.get(&key) {
                    Some(&n) => (n, failing.get(&key).copied().unwrap_or(0)),
                    None => {
                        if find_cycles && on_path.contains(&key) {
                            return Err(CountError::Cyclic(stack.len()));
                        }
                        // A slot: the key's vector and its count.
                        let entries = memo.len() + failing.len() + on_path.len();
                        let capacity = memo.capacity() + failing.capacity() + on_path.capacity();
                        self.tick(entries, capacity, key.len(), 40)?;
                        match expand(&key)? {
                            None => {
                                let failed = self.sys.failed_assertion(&key[..state_words]);
                                let end = (1, u128::from(failed.is_some()));
                                remember(&mut memo, &mut failing, key, end);
                                end
                            }
                            Some(successors) => {
                                if find_cycles {
                                    on_path.insert(key.clone());
                                }
                                stack.push(Frame {
                                    key,
                                    successors,
                                    sum: (0, 0),
                                });
                                continue;
                            }
                        }
                    }
                }
            } else {
                let top = stack.last_mut().expect("a frame to continue");
                if let Some(next) = top.successors.pop() {
                    pending = Some(next);
                    continue;
                }
                let done = stack.pop().expect("a frame to finish");
                if find_cycles {
                    on_path.remove(&done.key);
                }
                remember(&mut memo, &mut failing, done.key, done.sum);
                done.sum
            };
            match stack.last_mut() {
                Some(top) => {
                    top.sum = (
                        top.sum.0.saturating_add(finished.0),
                        top.sum.1.saturating_add(finished.1),
                    )
                }
                None => return Ok((finished, memo.len() as u64)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};
    use crate::model::net_system::NetSystem;

    /// `n` places, each with two consumers racing for its token.
    fn racing_pairs(n: usize) -> crate::model::net::Net {
        let mut b = NetBuilder::new("pairs");
        for i in 0..n {
            let p = b.add_place(format!("p{i}"), None, 1).unwrap();
            for side in ["a", "b"] {
                let t = b.add_transition(format!("{side}{i}"), None).unwrap();
                b.add_arc(p, t, ArcKind::Input, 1).unwrap();
            }
        }
        b.finish()
    }

    #[test]
    fn racing_pairs_have_two_to_the_n_traces_and_far_more_runs() {
        for n in 1..=6u32 {
            let net = racing_pairs(n as usize);
            let c = explore(&NetSystem::new(&net), &Limits::default(), &mut |_| {}).unwrap();
            assert_eq!(c.traces, 1 << n);
            // Every choice of winners, in any order of the n places.
            let factorial: u128 = (1..=n as u128).product();
            assert_eq!(c.runs, (1u128 << n) * factorial);
        }
    }

    #[test]
    fn a_cycle_is_refused() {
        let mut b = NetBuilder::new("cycle");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 1).unwrap();
        b.add_arc(q, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        let err = explore(&NetSystem::new(&net), &Limits::default(), &mut |_| {}).unwrap_err();
        assert!(matches!(err, CountError::Cyclic(_)), "{err}");
    }
}
