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
    /// By log id, the walk that last reached the logged event.
    log_stamp: Vec<u32>,
    log_epoch: u32,
    stack: Vec<u32>,
    /// (Foata level, label) of each event of the configuration.
    pairs: Vec<(u32, Transition)>,
    /// By transition, its occurrences in the configuration (zero between keys).
    count: Vec<u32>,
    /// The transitions that occur, in the order first met.
    labels: Vec<Transition>,
    /// By Foata level, where its labels start in `by_level`.
    level_start: Vec<u32>,
    /// The labels grouped by level.
    by_level: Vec<Transition>,
}

impl KeyRoom {
    /// Bytes held (allocated capacity): the stamps grow with the store and the log.
    pub fn bytes(&self) -> u64 {
        ((self.stamp.capacity()
            + self.log_stamp.capacity()
            + self.stack.capacity()
            + self.count.capacity()
            + self.labels.capacity()
            + self.level_start.capacity()
            + self.by_level.capacity())
            * 4
            + self.pairs.capacity() * 8) as u64
    }
}

/// Starts a new walk over ids below `bound` with stamps: returns the walk's stamp.
fn next_epoch(stamp: &mut Vec<u32>, epoch: &mut u32, bound: usize) -> u32 {
    if stamp.len() < bound {
        stamp.resize(bound, 0);
    }
    *epoch = epoch.wrapping_add(1);
    if *epoch == 0 {
        stamp.fill(0);
        *epoch = 1;
    }
    *epoch
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
            let epoch = next_epoch(&mut room.stamp, &mut room.epoch, store.id_bound());
            room.stack.clear();
            room.stack.push(e);
            while let Some(x) = room.stack.pop() {
                if x == BOTTOM || room.stamp[x as usize] == epoch {
                    continue;
                }
                room.stamp[x as usize] = epoch;
                room.pairs.push((store.level(x), store.label(x)));
                room.stack.extend_from_slice(store.preds(x));
            }
        }
        self.fill(order, room);
    }

    /// Makes this the key of the logged event `e`'s local configuration, rebuilt from the log
    /// (the event may have left the store): what a cutoff table needs when two configurations
    /// of one size reach one state, without keeping a key for every state. Reuses this key's
    /// buffers and `room`'s.
    pub fn set_to_logged(&mut self, log: &EventLog, e: LogId, order: Order, room: &mut KeyRoom) {
        // [e] by a walk over the logged predecessors, each event reached once; the log keeps
        // every event's Foata level.
        let epoch = next_epoch(&mut room.log_stamp, &mut room.log_epoch, log.len());
        room.pairs.clear();
        room.stack.clear();
        room.stack.push(e);
        let mut size = 0;
        while let Some(x) = room.stack.pop() {
            if x == 0 || room.log_stamp[x as usize] == epoch {
                continue;
            }
            room.log_stamp[x as usize] = epoch;
            size += 1;
            if order == Order::Erv {
                room.pairs.push((log.level(x), log.label(x)));
            }
            room.stack.extend_from_slice(log.preds(x));
        }
        self.size = size;
        self.fill(order, room);
    }

    /// Sets the Parikh vectors from the (Foata level, label) pairs of the configuration's
    /// events in `room.pairs`, in any order (none for [`Order::Size`]). Both vectors are
    /// counted rather than sorted: only the distinct labels, and each level's few labels, are
    /// sorted.
    fn fill(&mut self, order: Order, room: &mut KeyRoom) {
        self.parikh.clear();
        self.foata.clear();
        self.level_ends.clear();
        if order == Order::Size || room.pairs.is_empty() {
            return;
        }
        let KeyRoom {
            pairs,
            count,
            labels,
            level_start,
            by_level,
            ..
        } = room;
        // The whole vector: occurrences counted by label, then the labels met sorted.
        labels.clear();
        for &(_, t) in pairs.iter() {
            if count.len() <= t as usize {
                count.resize(t as usize + 1, 0);
            }
            if count[t as usize] == 0 {
                labels.push(t);
            }
            count[t as usize] += 1;
        }
        labels.sort_unstable();
        self.parikh.reserve(labels.len());
        for &t in labels.iter() {
            self.parikh
                .push((t, std::mem::take(&mut count[t as usize])));
        }
        // The levels' vectors: labels placed by level (levels run from 1 up), then each level
        // sorted, which is short.
        let levels = pairs.iter().map(|&(l, _)| l).max().unwrap_or(0) as usize;
        level_start.clear();
        level_start.resize(levels + 2, 0);
        for &(l, _) in pairs.iter() {
            level_start[l as usize + 1] += 1;
        }
        for l in 1..level_start.len() {
            level_start[l] += level_start[l - 1];
        }
        by_level.clear();
        by_level.resize(pairs.len(), 0);
        for &(l, t) in pairs.iter() {
            let at = &mut level_start[l as usize];
            by_level[*at as usize] = t;
            *at += 1;
        }
        // `level_start[l]` is now where level l ends.
        self.foata.reserve(pairs.len());
        self.level_ends.reserve(levels);
        let mut from = 0;
        for &end in &level_start[..=levels] {
            let end = end as usize;
            match &mut by_level[from..end] {
                [] => continue,
                // Most levels of a configuration hold an event or two.
                &mut [t] => self.foata.push((t, 1)),
                level => {
                    level.sort_unstable();
                    push_parikh(&mut self.foata, level.iter().copied());
                }
            }
            self.level_ends.push(self.foata.len() as u32);
            from = end;
        }
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
        let mut room = KeyRoom {
            pairs: pairs.to_vec(),
            ..KeyRoom::default()
        };
        k.fill(Order::Erv, &mut room);
        k
    }

    /// The key by the definition: pairs sorted by level then label for the levels' vectors,
    /// by label for the whole vector.
    fn key_by_sorting(pairs: &[(u32, Transition)]) -> ConfigKey {
        let mut pairs = pairs.to_vec();
        let mut k = ConfigKey {
            size: pairs.len() as u32,
            ..ConfigKey::default()
        };
        pairs.sort_unstable();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            push_parikh(&mut k.foata, run.iter().map(|&(_, t)| t));
            k.level_ends.push(k.foata.len() as u32);
        }
        pairs.sort_unstable_by_key(|&(_, t)| t);
        push_parikh(&mut k.parikh, pairs.iter().map(|&(_, t)| t));
        k
    }

    proptest::proptest! {
        /// Counting builds the keys that sorting does, and room reused from one key to the
        /// next leaves nothing behind.
        #[test]
        fn counted_keys_are_sorted_keys(
            configs in proptest::collection::vec(
                proptest::collection::vec((1u32..12, 0u32..40), 0..60), 1..4)
        ) {
            let mut room = KeyRoom::default();
            let mut k = ConfigKey::default();
            for pairs in &configs {
                room.pairs.clone_from(pairs);
                k.size = pairs.len() as u32;
                k.fill(Order::Erv, &mut room);
                proptest::prop_assert_eq!(&k, &key_by_sorting(pairs));
            }
        }
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
