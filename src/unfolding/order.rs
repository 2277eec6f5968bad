//! Adequate orders on local configurations, for cutoff events.
//!
//! - [`Order::Size`] (McMillan): `[e] ◁ [e']` iff `|[e]| < |[e']|`. Adequate, not total.
//! - [`Order::Erv`] (Esparza, Römer, Vogler): size, then Parikh vectors compared
//!   lexicographically with transitions in file order (the first transition whose counts
//!   differ decides: fewer occurrences is smaller), then the Foata normal forms level by level,
//!   each level compared the same way by its Parikh vector. Total on the configurations of
//!   the unfoldings of safe nets.
//!
//! A key is computed only as far as a comparison needs it: most comparisons are decided by
//! size alone.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use super::event::{BOTTOM, EventId, EventStore};
use super::log::{EventLog, LogId};
use crate::system::Transition;

/// The adequate order used to decide cutoffs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// McMillan's size order.
    Size,
    /// The total Esparza–Römer–Vogler order.
    Erv,
}

/// A Parikh vector: (transition, count) pairs sorted by transition.
type Parikh = [(Transition, u32)];

/// The comparison key of a local configuration, complete enough to outlive its event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigKey {
    /// `|[e]|`.
    pub size: u32,
    /// The Parikh vector (only for [`Order::Erv`]).
    parikh: Vec<(Transition, u32)>,
    /// The Parikh vectors of the Foata levels, first level first, one after the other (only
    /// for [`Order::Erv`]): one allocation for all levels.
    foata: Vec<(Transition, u32)>,
    /// Where each level's vector ends in `foata`.
    level_ends: Vec<u32>,
}

/// Reusable room for building keys: a tie on size, which needs a key, then allocates nothing
/// once the buffers have grown to the largest configuration seen.
#[derive(Debug, Default)]
pub struct KeyRoom {
    /// By store id, the walk that last reached the event.
    stamp: Vec<u32>,
    epoch: u32,
    stack: Vec<EventId>,
    /// (Foata level, label) of each event of the configuration.
    pairs: Vec<(u32, Transition)>,
    /// Levels of the logged events reached so far (the log's ids are not dense in a walk).
    logged: FxHashMap<LogId, u32>,
    log_stack: Vec<(LogId, bool)>,
}

/// Appends to `out` the Parikh vector of the sorted `labels`.
fn push_parikh(out: &mut Vec<(Transition, u32)>, labels: impl Iterator<Item = Transition>) {
    let from = out.len();
    for t in labels {
        match out[from..].last_mut() {
            Some((u, n)) if *u == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
}

/// Lexicographic comparison of Parikh vectors: at the first transition (in file order) whose
/// counts differ, fewer occurrences is smaller.
fn cmp_parikh(a: &Parikh, b: &Parikh) -> Ordering {
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return Ordering::Equal,
            // b has an occurrence of a transition a lacks: a has fewer there.
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(&(ta, na)), Some(&(tb, nb))) => match ta.cmp(&tb) {
                // a has ta, b has 0 of it.
                Ordering::Less => return Ordering::Greater,
                Ordering::Greater => return Ordering::Less,
                Ordering::Equal => {
                    if na != nb {
                        return na.cmp(&nb);
                    }
                    i += 1;
                    j += 1;
                }
            },
        }
    }
}

impl ConfigKey {
    /// Makes this the key of `[e]` (⊥: the empty configuration), reusing this key's buffers
    /// and `room`'s.
    pub fn set_to_event(
        &mut self,
        store: &EventStore,
        e: EventId,
        order: Order,
        room: &mut KeyRoom,
    ) {
        self.size = if e == BOTTOM { 0 } else { store.size(e) };
        room.pairs.clear();
        if e != BOTTOM && order == Order::Erv {
            // [e] by a walk over the predecessors, each event reached once.
            if room.stamp.len() < store.id_bound() {
                room.stamp.resize(store.id_bound(), 0);
            }
            room.epoch = room.epoch.wrapping_add(1);
            if room.epoch == 0 {
                room.stamp.iter_mut().for_each(|s| *s = 0);
                room.epoch = 1;
            }
            room.stack.clear();
            room.stack.push(e);
            while let Some(x) = room.stack.pop() {
                if x == BOTTOM || room.stamp[x as usize] == room.epoch {
                    continue;
                }
                room.stamp[x as usize] = room.epoch;
                room.pairs.push((store.level(x), store.label(x)));
                room.stack.extend_from_slice(store.preds(x));
            }
        }
        self.fill(order, &mut room.pairs);
    }

    /// Makes this the key of the logged event `e`'s local configuration, rebuilt from the log
    /// (the event may have left the store): what a cutoff table needs when two configurations
    /// of one size reach one state, without keeping a key for every state. Reuses this key's
    /// buffers and `room`'s.
    pub fn set_to_logged(&mut self, log: &EventLog, e: LogId, order: Order, room: &mut KeyRoom) {
        // [e] by a walk over the logged predecessors; levels once every predecessor has one.
        let level = &mut room.logged;
        level.clear();
        level.insert(0, 0);
        room.log_stack.clear();
        room.log_stack.push((e, false));
        while let Some((x, expanded)) = room.log_stack.pop() {
            if level.contains_key(&x) {
                continue;
            }
            if expanded {
                let l = 1 + log.preds(x).iter().map(|p| level[p]).max().unwrap_or(0);
                level.insert(x, l);
            } else {
                room.log_stack.push((x, true));
                room.log_stack.extend(
                    log.preds(x)
                        .iter()
                        .filter(|p| !level.contains_key(p))
                        .map(|&p| (p, false)),
                );
            }
        }
        level.remove(&0);
        self.size = level.len() as u32;
        room.pairs.clear();
        if order == Order::Erv {
            room.pairs
                .extend(level.iter().map(|(&x, &l)| (l, log.label(x))));
        }
        self.fill(order, &mut room.pairs);
    }

    /// Sets the Parikh vectors from the (Foata level, label) pairs of the configuration's
    /// events (none for [`Order::Size`]).
    fn fill(&mut self, order: Order, pairs: &mut [(u32, Transition)]) {
        self.parikh.clear();
        self.foata.clear();
        self.level_ends.clear();
        if order == Order::Size {
            return;
        }
        // By level, then label: each level's vector is a run; the whole vector needs the
        // labels in their own order.
        pairs.sort_unstable();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            push_parikh(&mut self.foata, run.iter().map(|&(_, t)| t));
            self.level_ends.push(self.foata.len() as u32);
        }
        pairs.sort_unstable_by_key(|&(_, t)| t);
        push_parikh(&mut self.parikh, pairs.iter().map(|&(_, t)| t));
    }

    /// The Parikh vector of Foata level `i` (from 0).
    fn level(&self, i: usize) -> &Parikh {
        let from = if i == 0 {
            0
        } else {
            self.level_ends[i - 1] as usize
        };
        &self.foata[from..self.level_ends[i] as usize]
    }

    /// Bytes the key holds on the heap (allocated capacity, with a word of allocator overhead
    /// per block).
    pub fn heap_bytes(&self) -> u64 {
        let pair = std::mem::size_of::<(Transition, u32)>();
        let block = |bytes: usize| if bytes == 0 { 0 } else { bytes + 16 };
        (block(self.parikh.capacity() * pair)
            + block(self.foata.capacity() * pair)
            + block(self.level_ends.capacity() * 4)) as u64
    }

    /// Compares two keys in `order`.
    pub fn cmp_in(&self, other: &ConfigKey, order: Order) -> Ordering {
        let by_size = self.size.cmp(&other.size);
        if order == Order::Size || by_size != Ordering::Equal {
            return by_size;
        }
        cmp_parikh(&self.parikh, &other.parikh).then_with(|| {
            let levels = self.level_ends.len().min(other.level_ends.len());
            for i in 0..levels {
                let c = cmp_parikh(self.level(i), other.level(i));
                if c != Ordering::Equal {
                    return c;
                }
            }
            self.level_ends.len().cmp(&other.level_ends.len())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parikh_of(mut labels: Vec<Transition>) -> Vec<(Transition, u32)> {
        labels.sort_unstable();
        let mut out = vec![(7, 7)];
        // Appending starts a new vector: the entry before it is not merged into.
        push_parikh(&mut out, labels.into_iter());
        out.remove(0);
        out
    }

    /// The key of a configuration given by its events' (Foata level, label) pairs.
    fn key(pairs: &[(u32, Transition)]) -> ConfigKey {
        let mut k = ConfigKey {
            size: pairs.len() as u32,
            ..ConfigKey::default()
        };
        k.fill(Order::Erv, &mut pairs.to_vec());
        k
    }

    #[test]
    fn parikh_order() {
        let a = parikh_of(vec![0, 1]);
        let b = parikh_of(vec![0, 0]);
        let c = parikh_of(vec![1, 1]);
        assert_eq!(b, vec![(0, 2)]);
        // At transition 0: a has 1, b has 2, c has 0.
        assert_eq!(cmp_parikh(&a, &b), Ordering::Less);
        assert_eq!(cmp_parikh(&c, &a), Ordering::Less);
        assert_eq!(cmp_parikh(&a, &a), Ordering::Equal);
    }

    #[test]
    fn foata_levels_decide_between_equal_parikh_vectors() {
        // a and b concurrent, then c; against a, then b and c.
        let wide_first = key(&[(1, 0), (1, 1), (2, 2)]);
        let narrow_first = key(&[(2, 2), (1, 0), (2, 1)]);
        assert_eq!(wide_first.parikh, narrow_first.parikh);
        assert_eq!(wide_first.parikh, vec![(0, 1), (1, 1), (2, 1)]);
        assert_eq!(wide_first.level(0), &[(0, 1), (1, 1)]);
        assert_eq!(narrow_first.level(1), &[(1, 1), (2, 1)]);
        // First level: {a} has no b where {a, b} has one, so it is smaller.
        assert_eq!(narrow_first.cmp_in(&wide_first, Order::Erv), Ordering::Less);
        assert_eq!(
            wide_first.cmp_in(&narrow_first, Order::Erv),
            Ordering::Greater
        );
        assert_eq!(wide_first.cmp_in(&wide_first, Order::Erv), Ordering::Equal);
        // The size order sees no difference; a larger configuration is larger in both.
        assert_eq!(
            narrow_first.cmp_in(&wide_first, Order::Size),
            Ordering::Equal
        );
        let larger = key(&[(1, 0), (1, 1), (2, 2), (3, 0)]);
        assert_eq!(wide_first.cmp_in(&larger, Order::Erv), Ordering::Less);
        // The second levels decide: {b} has no c where {b, c} has one.
        let deeper = key(&[(1, 0), (2, 1), (3, 2)]);
        assert_eq!(deeper.cmp_in(&narrow_first, Order::Erv), Ordering::Less);
    }
}
