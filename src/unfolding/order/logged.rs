//! Comparing two local configurations of the DPOR's event log of one size, at the cost of what
//! they do not share.
//!
//! Most comparisons are decided by size alone. Two logged configurations of one size are
//! compared by what they do not share ([`cmp_logged_equal_size`]): the events both hold count
//! alike in every vector, and a walk down from the two events by Foata level stops once what
//! is left to walk is shared. Configurations that reach one state by different interleavings
//! mostly part near their tops, so the walk reads a few levels, not the whole configurations.
//! Mole's level rule counts the distinct transitions of whole levels, which the differences do
//! not tell: on a tie of the Parikh vectors it reads the two configurations whole.

use std::cmp::Ordering;

use super::{Order, cmp_foata};
use crate::system::Transition;
use crate::unfolding::log::{EventLog, LogId};

/// Reusable room for [`cmp_logged_equal_size`].
#[derive(Debug, Default)]
pub struct DiffRoom {
    /// By log id, the walk that last reached the event, and from which sides (`SIDE_A`,
    /// `SIDE_B` or both).
    stamp: Vec<(u32, u8)>,
    epoch: u32,
    /// Events reached and not yet walked, by Foata level counted down from the walk's top
    /// (levels only fall along the walk: a bucket per level, taken highest first).
    waiting: Vec<Vec<LogId>>,
    /// (Foata level, label) of the events of each side's configuration that the other lacks.
    only: [Vec<(u32, Transition)>; 2],
    /// By label, its occurrences on one side less those on the other (zero between uses).
    balance: Vec<i32>,
    /// The labels whose balance was touched.
    touched: Vec<Transition>,
}

impl DiffRoom {
    /// Bytes held (allocated capacity): the stamps grow with the log.
    pub fn bytes(&self) -> u64 {
        (self.stamp.capacity() * 8
            + self
                .waiting
                .iter()
                .map(|w| 24 + w.capacity() * 4)
                .sum::<usize>()
            + self.only.iter().map(Vec::capacity).sum::<usize>() * 8
            + (self.balance.capacity() + self.touched.capacity()) * 4) as u64
    }
}

const SIDE_A: u8 = 1;
const SIDE_B: u8 = 2;
const BOTH: u8 = SIDE_A | SIDE_B;

/// Compares `[a]` and `[b]`, the local configurations of two logged events of one size, in
/// `order`, at the cost of the events above the deepest one the two configurations do not
/// share.
///
/// Every vector the order compares (the Parikh vector, and that of each Foata level) is a
/// count of events by label, and an event both configurations hold counts alike on both sides
/// (its Foata level is its own, whichever configuration holds it); so the comparison of the
/// vectors is that of the vectors of `[a] \ [b]` against `[b] \ [a]`. Those are found by a walk
/// down from `a` and `b` by Foata level, highest first: an event's successors all lie on
/// higher levels, so when it is taken every event of either configuration above it has been
/// walked, and the sides that reached it are known for good; the walk stops once every event
/// waiting is held by both, since everything below is then shared. The vectors are then
/// compared by counting, without sorting. Under [`Order::Mole`] a tie of the Parikh vectors is
/// decided on the whole Foata normal forms (a level's distinct transitions count the shared
/// events too).
pub fn cmp_logged_equal_size(
    log: &EventLog,
    a: LogId,
    b: LogId,
    order: Order,
    room: &mut DiffRoom,
) -> Ordering {
    if order == Order::Size || a == b {
        return Ordering::Equal;
    }
    if room.stamp.len() < log.len() {
        room.stamp.resize(log.len(), (0, 0));
    }
    room.epoch = room.epoch.wrapping_add(1);
    if room.epoch == 0 {
        room.stamp.fill((0, 0));
        room.epoch = 1;
    }
    let epoch = room.epoch;
    let DiffRoom {
        stamp,
        waiting,
        only,
        balance,
        touched,
        ..
    } = room;
    only[0].clear();
    only[1].clear();
    let top = log.level(a).max(log.level(b));
    // Events waiting that only one side has reached so far; the deepest bucket used.
    let mut one_sided = 0usize;
    let mut deepest = 0;
    let mut wait = |waiting: &mut Vec<Vec<LogId>>, x: LogId| {
        let k = (top - log.level(x)) as usize;
        if waiting.len() <= k {
            waiting.resize_with(k + 1, Vec::new);
        }
        waiting[k].push(x);
        deepest = deepest.max(k);
    };
    for (x, side) in [(a, SIDE_A), (b, SIDE_B)] {
        stamp[x as usize] = (epoch, side);
        wait(waiting, x);
        one_sided += 1;
    }
    let mut k = 0;
    while one_sided > 0 {
        let x = match waiting[k].pop() {
            Some(x) => x,
            None => {
                k += 1;
                continue;
            }
        };
        let level = top - k as u32;
        let sides = stamp[x as usize].1;
        if sides != BOTH {
            one_sided -= 1;
            only[usize::from(sides == SIDE_B)].push((level, log.label(x)));
        }
        for &p in log.preds(x) {
            if p == 0 {
                continue;
            }
            let (at, had) = &mut stamp[p as usize];
            if *at != epoch {
                (*at, *had) = (epoch, sides);
                wait(waiting, p);
                one_sided += usize::from(sides != BOTH);
            } else if *had != BOTH && (*had | sides) == BOTH {
                *had = BOTH;
                one_sided -= 1;
            }
        }
    }
    // Events left waiting are held by both sides.
    for w in &mut waiting[k..=deepest] {
        w.clear();
    }
    debug_assert_eq!(only[0].len(), only[1].len(), "configurations of one size");
    // The Parikh vectors, then the levels' from the first up (a level only one side holds
    // events on compares as an empty vector on the other). Each side's list is in the order
    // the walk took its events: by level, highest first.
    let [oa, ob] = only;
    let by_parikh = first_imbalance(
        balance,
        touched,
        oa.iter().map(|&(_, t)| t),
        ob.iter().map(|&(_, t)| t),
    );
    if by_parikh != Ordering::Equal {
        return by_parikh;
    }
    if order == Order::Mole {
        return cmp_foata(&foata_of(log, a), &foata_of(log, b), true);
    }
    let (mut i, mut j) = (oa.len(), ob.len());
    while i > 0 || j > 0 {
        let level = match (i.checked_sub(1), j.checked_sub(1)) {
            (Some(x), Some(y)) => oa[x].0.min(ob[y].0),
            (Some(x), None) => oa[x].0,
            (None, Some(y)) => ob[y].0,
            (None, None) => unreachable!(),
        };
        let level_start = |v: &[(u32, Transition)], end: usize| {
            end - v[..end]
                .iter()
                .rev()
                .take_while(|&&(l, _)| l == level)
                .count()
        };
        let (is, js) = (level_start(oa, i), level_start(ob, j));
        let c = first_imbalance(
            balance,
            touched,
            oa[is..i].iter().map(|&(_, t)| t),
            ob[js..j].iter().map(|&(_, t)| t),
        );
        if c != Ordering::Equal {
            return c;
        }
        (i, j) = (is, js);
    }
    Ordering::Equal
}

/// The `(Foata level, label)` pairs of the events of `[e]`, sorted (the form
/// [`cmp_foata`] compares).
fn foata_of(log: &EventLog, e: LogId) -> Vec<(u32, Transition)> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![e];
    let mut out = Vec::new();
    while let Some(x) = stack.pop() {
        if x != 0 && seen.insert(x) {
            out.push((log.level(x), log.label(x)));
            stack.extend_from_slice(log.preds(x));
        }
    }
    out.sort_unstable();
    out
}

/// Compares the Parikh vectors of two lists of labels, in any order, as [`super::cmp_parikh`]
/// does: at the first transition whose counts differ, more occurrences is smaller. Counted in `balance` (by label, zero
/// between calls), the labels met listed in `touched`: no sort.
fn first_imbalance(
    balance: &mut Vec<i32>,
    touched: &mut Vec<Transition>,
    a: impl Iterator<Item = Transition>,
    b: impl Iterator<Item = Transition>,
) -> Ordering {
    let mut count = |t: Transition, by: i32| {
        let t = t as usize;
        if balance.len() <= t {
            balance.resize(t + 1, 0);
        }
        if balance[t] == 0 {
            touched.push(t as Transition);
        }
        balance[t] += by;
    };
    a.for_each(|t| count(t, 1));
    b.for_each(|t| count(t, -1));
    let mut first: Option<(Transition, i32)> = None;
    for &t in touched.iter() {
        let d = std::mem::take(&mut balance[t as usize]);
        if d != 0 && first.is_none_or(|(u, _)| t < u) {
            first = Some((t, d));
        }
    }
    touched.clear();
    first.map_or(Ordering::Equal, |(_, d)| 0.cmp(&d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unfolding::order::cmp_parikh;

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

    fn parikh_of(mut labels: Vec<Transition>) -> Vec<(Transition, u32)> {
        labels.sort_unstable();
        let mut out = vec![(7, 7)];
        // Appending starts a new vector: the entry before it is not merged into.
        push_parikh(&mut out, labels.into_iter());
        out.remove(0);
        out
    }

    /// A configuration's key by the definition: its size, its Parikh vector, and the Parikh
    /// vector of each Foata level from the first.
    type Key = (usize, Vec<(Transition, u32)>, Vec<Vec<(Transition, u32)>>);

    /// The key of `[e]`, from a plain walk of the whole configuration.
    fn key(log: &EventLog, e: LogId) -> Key {
        let mut past = std::collections::BTreeSet::new();
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if x != 0 && past.insert(x) {
                stack.extend_from_slice(log.preds(x));
            }
        }
        let mut pairs: Vec<(u32, Transition)> =
            past.iter().map(|&x| (log.level(x), log.label(x))).collect();
        pairs.sort_unstable();
        let levels = pairs
            .chunk_by(|a, b| a.0 == b.0)
            .map(|level| {
                let mut v = Vec::new();
                push_parikh(&mut v, level.iter().map(|&(_, t)| t));
                v
            })
            .collect();
        pairs.sort_unstable_by_key(|&(_, t)| t);
        let mut parikh = Vec::new();
        push_parikh(&mut parikh, pairs.iter().map(|&(_, t)| t));
        (past.len(), parikh, levels)
    }

    /// Two keys of one size compared in the ERV order by the definition: Parikh vectors, then
    /// level by level (every level of a configuration up to its height holds an event).
    fn cmp_keys(a: &Key, b: &Key) -> Ordering {
        assert_eq!(a.0, b.0);
        cmp_parikh(&a.1, &b.1).then_with(|| {
            a.2.iter()
                .zip(&b.2)
                .map(|(x, y)| cmp_parikh(x, y))
                .find(|c| c.is_ne())
                .unwrap_or(a.2.len().cmp(&b.2.len()))
        })
    }

    /// Two keys of one size compared in Mole's order, written apart from [`cmp_level`]: Parikh
    /// vectors, then level by level, a level by its number of distinct transitions and then by
    /// its sorted word of transitions (lexicographically, a proper prefix first).
    ///
    /// [`cmp_level`]: crate::unfolding::order::cmp_level
    fn cmp_keys_mole(a: &Key, b: &Key) -> Ordering {
        let word = |v: &Vec<(Transition, u32)>| -> Vec<Transition> {
            v.iter()
                .flat_map(|&(t, n)| std::iter::repeat_n(t, n as usize))
                .collect()
        };
        cmp_parikh(&a.1, &b.1).then_with(|| {
            a.2.iter()
                .zip(&b.2)
                .map(|(x, y)| x.len().cmp(&y.len()).then_with(|| word(x).cmp(&word(y))))
                .find(|c| c.is_ne())
                .unwrap_or(a.2.len().cmp(&b.2.len()))
        })
    }

    /// A log built from random choices: each event's label, and its predecessors among the
    /// events before it (⊥ when it has none).
    fn random_log(choices: &[(Transition, Vec<u32>)]) -> EventLog {
        let mut log = EventLog::new();
        for (label, picks) in choices {
            let mut preds: Vec<LogId> = picks
                .iter()
                .map(|&p| p % log.len() as u32)
                .filter(|&p| p != 0)
                .collect();
            preds.sort_unstable();
            preds.dedup();
            if preds.is_empty() {
                preds.push(0);
            }
            let level = 1 + preds.iter().map(|&p| log.level(p)).max().unwrap_or(0);
            log.append(*label, &preds, level);
        }
        log
    }

    proptest::proptest! {
        /// Comparing two configurations of one size by their differences decides what their
        /// whole keys decide, for every pair of one size in a random log (few labels, so that
        /// Parikh vectors often tie and the Foata levels decide), with the room reused.
        #[test]
        fn differences_compare_as_whole_keys(
            choices in proptest::collection::vec(
                (0u32..3, proptest::collection::vec(0u32..1000, 0..3)), 1..40)
        ) {
            let log = random_log(&choices);
            let mut room = DiffRoom::default();
            let keys: Vec<_> = (0..log.len() as LogId).map(|e| key(&log, e)).collect();
            for a in 1..log.len() as LogId {
                for b in 1..log.len() as LogId {
                    let (ka, kb) = (&keys[a as usize], &keys[b as usize]);
                    if ka.0 != kb.0 {
                        continue;
                    }
                    proptest::prop_assert_eq!(
                        cmp_logged_equal_size(&log, a, b, Order::Erv, &mut room),
                        cmp_keys(ka, kb),
                        "events {} and {}", a, b
                    );
                    proptest::prop_assert_eq!(
                        cmp_logged_equal_size(&log, a, b, Order::Mole, &mut room),
                        cmp_keys_mole(ka, kb),
                        "events {} and {} (Mole)", a, b
                    );
                    proptest::prop_assert_eq!(
                        cmp_logged_equal_size(&log, a, b, Order::Size, &mut room),
                        Ordering::Equal
                    );
                }
            }
        }
    }

    #[test]
    fn parikh_order() {
        let (mut balance, mut touched) = (Vec::new(), Vec::new());
        let mut cmp = |a: &[Transition], b: &[Transition]| {
            let by_counting = first_imbalance(
                &mut balance,
                &mut touched,
                a.iter().copied(),
                b.iter().copied(),
            );
            assert_eq!(
                by_counting,
                cmp_parikh(&parikh_of(a.to_vec()), &parikh_of(b.to_vec()))
            );
            by_counting
        };
        // At transition 0: {0, 1} has 1, {0, 0} has 2, {1, 1} has 0: more is smaller.
        assert_eq!(cmp(&[0, 1], &[0, 0]), Ordering::Greater);
        assert_eq!(cmp(&[1, 1], &[1, 0]), Ordering::Greater);
        assert_eq!(cmp(&[1, 0], &[0, 1]), Ordering::Equal);
        assert_eq!(cmp(&[], &[]), Ordering::Equal);
        // Lower transitions decide first, whatever the order the labels come in.
        assert_eq!(cmp(&[5, 2, 2], &[2, 5, 5]), Ordering::Less);
        assert_eq!(parikh_of(vec![0, 0]), vec![(0, 2)]);
    }

    #[test]
    fn foata_levels_decide_between_equal_parikh_vectors() {
        let (a, b, c) = (0, 1, 2);
        let mut log = EventLog::new();
        // [3]: a and b concurrent, then c. [6]: a, then b, then c.
        log.append(a, &[0], 1);
        log.append(b, &[0], 1);
        log.append(c, &[1, 2], 2);
        log.append(a, &[0], 1);
        log.append(b, &[4], 2);
        log.append(c, &[5], 3);
        // [7] = {a1, b7}, [8] = {a1, b7, c8}: a, then b, then c, sharing a with [3].
        log.append(b, &[1], 2);
        log.append(c, &[7], 3);
        // [9] = {b2, c9}, against [7]: the Parikh vectors decide (no a in [9]).
        log.append(c, &[2], 2);
        let mut room = DiffRoom::default();
        let mut cmp = |x, y| cmp_logged_equal_size(&log, x, y, Order::Erv, &mut room);
        // One Parikh vector; at the first level {a, b} has a b where {a} has none: smaller.
        assert_eq!(cmp(6, 3), Ordering::Greater);
        assert_eq!(cmp(3, 6), Ordering::Less);
        assert_eq!(cmp(3, 3), Ordering::Equal);
        // The shared a counts on both sides: the first level still decides.
        assert_eq!(cmp(8, 3), Ordering::Greater);
        assert_eq!(cmp(8, 6), Ordering::Equal);
        // [7] has an a where [9] has none.
        assert_eq!(cmp(9, 7), Ordering::Greater);
        // Mole: the first level with fewer distinct transitions is smaller.
        let mut mole = |x, y| cmp_logged_equal_size(&log, x, y, Order::Mole, &mut room);
        assert_eq!(mole(6, 3), Ordering::Less);
        assert_eq!(mole(8, 3), Ordering::Less);
        assert_eq!(mole(8, 6), Ordering::Equal);
        assert_eq!(mole(9, 7), Ordering::Greater);
        assert_eq!(
            cmp_logged_equal_size(&log, 6, 3, Order::Size, &mut room),
            Ordering::Equal
        );
    }
}
