//! The state of a new event's history, and the events built on it ([`EventStore::make`]).
//!
//! `state(H)` of the history `H = ⋃ [p]` of a new event starts from the state of its largest
//! predecessor. Where the system says which bits each slot decides (see
//! [`crate::unfolding::parts`]), it is assembled: on every slot where `H` reaches beyond that
//! predecessor, those bits come from the state of `H`'s last event there. Otherwise the events
//! of `H` outside that predecessor's local configuration are walked in causal order and fired.
//! For states of many words only the words the assembly patches and the transition touches are
//! read and stored.

use super::{ConeEntry, EventId, EventStore};
use crate::system::{Overflow, System, Transition};
use crate::unfolding::states::{StateBlocks, WHOLE_WORDS};

/// How a store computes the state of a new event's history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryStates {
    /// Assembled from the states of the history's last events on the slots where it reaches
    /// beyond its largest predecessor, when the system says which bits each resource holds and
    /// each resource is changed on one slot (see [`crate::unfolding::parts`]); fired otherwise.
    #[default]
    Auto,
    /// Fired: the events of the history outside its largest predecessor's local
    /// configuration, one by one.
    Fire,
}

/// Scratch room of a sparse build: which words of the history's state are loaded.
#[derive(Default)]
pub(super) struct SparseRoom {
    /// By word, the epoch in which it was loaded.
    stamp: Vec<u32>,
    epoch: u32,
    loaded: Vec<u32>,
    changes: Vec<(u32, u64)>,
}

impl SparseRoom {
    /// Forgets the words loaded (for states of `words` words).
    fn begin(&mut self, words: usize) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 || self.stamp.len() < words {
            self.stamp.clear();
            self.stamp.resize(words, 0);
            self.epoch = 1;
        }
        self.loaded.clear();
    }

    /// Loads word `w` of `base`'s state into `h`, unless it is loaded already.
    #[inline]
    fn load(&mut self, w: usize, h: &mut [u64], states: &StateBlocks, base: EventId) {
        if self.stamp[w] != self.epoch {
            self.stamp[w] = self.epoch;
            self.loaded.push(w as u32);
            h[w] = states.word(base, w);
        }
    }
}

/// What the walk of [`EventStore::history_state`] does with an event it reaches.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    /// Test whether it lies in the largest predecessor's local configuration.
    Test,
    /// Known to lie outside it (an immediate predecessor other than that one).
    Outside,
    /// List it: its predecessors outside are listed already.
    List,
}

impl EventStore {
    /// Computes `state(H)` for the history `H = ⋃ [p]` over `preds` into `out`, and returns
    /// `|H|`. Fires only the events of `H` outside the local configuration of the largest
    /// predecessor. `H` must be a configuration (as the history of an event is), and `preds`
    /// its maximal events: none of them lies below another, so only their own predecessors
    /// need the test of causality.
    pub fn history_state<S: System + ?Sized>(
        &mut self,
        sys: &S,
        preds: &[EventId],
        out: &mut [u64],
    ) -> Result<u32, Overflow> {
        let base = self.largest(preds);
        if let [_] = preds {
            // H = [base]: nothing to walk.
            self.states.read(base, out);
            return Ok(self.size(base));
        }
        // Two stamps per walk: an event seen outside `[base]`, and one seen inside it.
        self.epoch = self.epoch.wrapping_add(2);
        if self.epoch < 2 {
            self.stamp.fill(0);
            self.epoch = 2;
        }
        let (seen_outside, seen_inside) = (self.epoch, self.epoch + 1);
        if self.stamp.len() < self.events.len() {
            self.stamp.resize(self.events.len(), 0);
        }
        // A depth-first walk down the predecessors that lists an event once all of its
        // predecessors outside `[base]` are listed: a causal order, with no sort.
        let mut stack = std::mem::take(&mut self.walk_scratch);
        stack.clear();
        stack.extend(
            preds
                .iter()
                .filter(|&&p| p != base)
                .map(|&p| (p, Walk::Outside)),
        );
        let mut outside = std::mem::take(&mut self.scratch);
        outside.clear();
        while let Some((x, step)) = stack.pop() {
            if step == Walk::List {
                outside.push(x);
                continue;
            }
            let mark = self.stamp[x as usize];
            if mark == seen_outside || mark == seen_inside {
                continue;
            }
            debug_assert!(step == Walk::Test || !self.leq_in_configuration(x, base));
            if step == Walk::Test && self.leq_in_configuration(x, base) {
                self.stamp[x as usize] = seen_inside;
                continue;
            }
            self.stamp[x as usize] = seen_outside;
            stack.push((x, Walk::List));
            for &p in self.preds(x) {
                let mark = self.stamp[p as usize];
                if mark != seen_outside && mark != seen_inside {
                    stack.push((p, Walk::Test));
                }
            }
        }
        self.states.read(base, out);
        let mut tmp = std::mem::take(&mut self.state_scratch);
        tmp.resize(self.words, 0);
        let mut fired = Ok(());
        for &x in &outside {
            fired = sys.fire(out, self.label(x), &mut tmp);
            if fired.is_err() {
                break;
            }
            out.copy_from_slice(&tmp);
        }
        let size = self.size(base) + outside.len() as u32;
        self.scratch = outside;
        self.walk_scratch = stack;
        self.state_scratch = tmp;
        fired.map(|()| size)
    }

    /// Builds the event `<t, H>` if `t` is enabled at `state(H)`, and inserts it: `preds` are
    /// the maximal events of `H` (sorted), `xs` the last event of `H` on each slot of `t` (in
    /// the order of `slots.of(t)`). The event must not exist yet. `h` and `after` are scratch
    /// room of [`words`](Self::words) words: they end as `state(H)` and `state([e])`.
    pub fn make<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
        h: &mut [u64],
        after: &mut [u64],
    ) -> Result<Option<EventId>, Overflow> {
        if self.words_of.is_some()
            && self.words > WHOLE_WORDS
            && (preds.len() == 1 || self.parts.is_some())
        {
            return self.make_sparse(sys, t, preds, xs, h);
        }
        if self.parts.is_none() || preds.len() == 1 {
            // With one predecessor p, H = [p]: nothing to walk or to assemble.
            let size = self.history_state(sys, preds, h)?;
            if !sys.is_enabled(h, t) {
                return Ok(None);
            }
            sys.fire(h, t, after)?;
            return Ok(Some(self.insert(t, preds, xs, size, after)));
        }
        let base = self.largest(preds);
        let id = self.link(t, preds, xs);
        let size = self.assemble_history_state(id, base, h);
        #[cfg(debug_assertions)]
        {
            let mut walked = vec![0; self.words];
            let walked_size = self.history_state(sys, preds, &mut walked);
            assert_eq!(walked_size, Ok(size), "|H| of <{t}, {preds:?}>");
            assert_eq!(walked, h, "state(H) of <{t}, {preds:?}>");
        }
        let fired = if sys.is_enabled(h, t) {
            sys.fire(h, t, after).map(|()| true)
        } else {
            Ok(false)
        };
        if fired != Ok(true) {
            self.discard(id);
            return fired.map(|_| None);
        }
        self.events[id as usize].size = size + 1;
        self.states.put(id, after, Some(base));
        Ok(Some(id))
    }

    /// [`make`](Self::make) for states of many words: `h` gets only the words the history's
    /// assembly patches and the words `t` reads or writes (its other words are stale), `t` is
    /// fired on them in place, and the new state is stored as the largest predecessor's with
    /// the words that differ. The cost follows the history's difference and `t`'s footprint,
    /// not the size of the state.
    fn make_sparse<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        xs: &[ConeEntry],
        h: &mut [u64],
    ) -> Result<Option<EventId>, Overflow> {
        let base = self.largest(preds);
        let mut room = std::mem::take(&mut self.sparse);
        room.begin(self.words);
        let (linked, size) = if preds.len() == 1 {
            (None, self.size(base))
        } else {
            let id = self.link(t, preds, xs);
            let states = &self.states;
            let size = self.assemble_history(id, base, |w, m, x| {
                room.load(w, h, states, base);
                h[w] = (h[w] & !m) | (states.word(x, w) & m);
            });
            (Some(id), size)
        };
        let words_of = self.words_of.as_ref().expect("checked by make");
        for &w in words_of.of(t) {
            room.load(w as usize, h, &self.states, base);
        }
        let fired = if sys.is_enabled(h, t) {
            sys.fire_in_place(h, t).map(|()| true)
        } else {
            Ok(false)
        };
        let result = if fired == Ok(true) {
            room.changes.clear();
            for &w in &room.loaded {
                let w = w as usize;
                if h[w] != self.states.word(base, w) {
                    room.changes.push((w as u32, h[w]));
                }
            }
            let id = linked.unwrap_or_else(|| self.link(t, preds, xs));
            self.events[id as usize].size = size + 1;
            self.states.put_changes(id, base, &mut room.changes);
            Ok(Some(id))
        } else {
            if let Some(id) = linked {
                self.discard(id);
            }
            fired.map(|_| None)
        };
        self.sparse = room;
        #[cfg(debug_assertions)]
        self.check_sparse(sys, t, preds, &result);
        result
    }

    /// Debug builds: the event [`make_sparse`](Self::make_sparse) built (or did not) against
    /// the whole state of its history, fired.
    #[cfg(debug_assertions)]
    fn check_sparse<S: System + ?Sized>(
        &mut self,
        sys: &S,
        t: Transition,
        preds: &[EventId],
        result: &Result<Option<EventId>, Overflow>,
    ) {
        let mut full = vec![0; self.words];
        let size = self.history_state(sys, preds, &mut full);
        let enabled = size.is_ok() && sys.is_enabled(&full, t);
        match result {
            Ok(Some(id)) => {
                assert!(enabled, "<{t}, {preds:?}> built, but t is not enabled");
                assert_eq!(size, Ok(self.size(*id) - 1), "|H| of <{t}, {preds:?}>");
                let mut after = vec![0; self.words];
                sys.fire(&full, t, &mut after).expect("fired sparsely");
                let mut got = vec![0; self.words];
                self.states.read(*id, &mut got);
                assert_eq!(got, after, "state of <{t}, {preds:?}>");
            }
            Ok(None) => assert!(!enabled, "<{t}, {preds:?}> not built, but t is enabled"),
            Err(_) => {}
        }
    }

    /// The predecessor with the largest local configuration (the last of them if several
    /// tie, as `max_by_key` picks).
    fn largest(&self, preds: &[EventId]) -> EventId {
        *preds
            .iter()
            .max_by_key(|&&p| self.size(p))
            .expect("a history has a maximal event")
    }

    /// `state(H)` into `h`, and `|H|`, for the history `H` of the event `e` just linked (whose
    /// state is not stored yet), from the state of `base`, its largest predecessor: on every
    /// slot where `H` reaches further than `[base]`, the bits the slot decides come from the
    /// state of `H`'s last event on it (see [`crate::unfolding::parts`]), and the events between count
    /// towards the size.
    fn assemble_history_state(&self, e: EventId, base: EventId, h: &mut [u64]) -> u32 {
        self.states.read(base, h);
        let states = &self.states;
        self.assemble_history(e, base, |w, m, x| {
            h[w] = (h[w] & !m) | (states.word(x, w) & m);
        })
    }

    /// The walk of [`assemble_history_state`](Self::assemble_history_state): calls
    /// `patch(w, m, x)` for the bits `m` of word `w` that `state(H)` takes from `state([x])`
    /// (the others are `base`'s), and returns `|H|`.
    fn assemble_history(
        &self,
        e: EventId,
        base: EventId,
        mut patch: impl FnMut(usize, u64, EventId),
    ) -> u32 {
        let parts = self
            .parts
            .as_ref()
            .expect("the system's slots decide its state");
        let mut size = self.size(base);
        let nodes = &self.nodes;
        let (mine, theirs) = (
            self.events[e as usize].cone,
            self.events[base as usize].cone,
        );
        self.cones
            .for_each_difference(mine, theirs, parts.read(), |s, x, y| {
                // On e's own slots, H's last event is e's parent.
                let nx = &nodes[x as usize];
                let x = if nx.event == e { nx.parent_node } else { x };
                if x == y {
                    return;
                }
                let (nx, ny) = (&nodes[x as usize], &nodes[y as usize]);
                size += nx.firsts - ny.firsts;
                for &(w, m) in parts.of(s) {
                    patch(w as usize, m, nx.event);
                }
            });
        size
    }
}
