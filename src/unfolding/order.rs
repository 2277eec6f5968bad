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
type Parikh = Vec<(Transition, u32)>;

/// The comparison key of a local configuration, complete enough to outlive its event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigKey {
    /// `|[e]|`.
    pub size: u32,
    /// The Parikh vector (only for [`Order::Erv`]).
    parikh: Parikh,
    /// The Parikh vectors of the Foata levels, first level first (only for [`Order::Erv`]).
    foata: Vec<Parikh>,
}

fn parikh_of(mut labels: Vec<Transition>) -> Parikh {
    labels.sort_unstable();
    let mut out: Parikh = Vec::new();
    for t in labels {
        match out.last_mut() {
            Some((u, n)) if *u == t => *n += 1,
            _ => out.push((t, 1)),
        }
    }
    out
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
    /// The key of `[e]` (⊥ gives the empty configuration).
    pub fn of(store: &EventStore, e: EventId, order: Order) -> ConfigKey {
        if e == BOTTOM || order == Order::Size {
            return ConfigKey {
                size: store.size(e),
                parikh: Vec::new(),
                foata: Vec::new(),
            };
        }
        let events = store.local_configuration(e);
        let parikh = parikh_of(events.iter().map(|&x| store.label(x)).collect());
        let mut levels: Vec<Vec<Transition>> = Vec::new();
        for &x in &events {
            let l = store.level(x) as usize - 1;
            if levels.len() <= l {
                levels.resize(l + 1, Vec::new());
            }
            levels[l].push(store.label(x));
        }
        ConfigKey {
            size: store.size(e),
            parikh,
            foata: levels.into_iter().map(parikh_of).collect(),
        }
    }

    /// Bytes the key holds on the heap (allocated capacity, with a word of allocator overhead
    /// per block).
    pub fn heap_bytes(&self) -> u64 {
        let pair = std::mem::size_of::<(Transition, u32)>();
        let block = |cap: usize| if cap == 0 { 0 } else { cap * pair + 16 };
        (block(self.parikh.capacity())
            + self.foata.capacity() * std::mem::size_of::<Parikh>()
            + self
                .foata
                .iter()
                .map(|l| block(l.capacity()))
                .sum::<usize>()) as u64
    }

    /// Compares two keys in `order`.
    pub fn cmp_in(&self, other: &ConfigKey, order: Order) -> Ordering {
        let by_size = self.size.cmp(&other.size);
        if order == Order::Size || by_size != Ordering::Equal {
            return by_size;
        }
        cmp_parikh(&self.parikh, &other.parikh).then_with(|| {
            for (a, b) in self.foata.iter().zip(&other.foata) {
                let c = cmp_parikh(a, b);
                if c != Ordering::Equal {
                    return c;
                }
            }
            self.foata.len().cmp(&other.foata.len())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parikh_order() {
        let a = parikh_of(vec![0, 1]);
        let b = parikh_of(vec![0, 0]);
        let c = parikh_of(vec![1, 1]);
        // At transition 0: a has 1, b has 2, c has 0.
        assert_eq!(cmp_parikh(&a, &b), Ordering::Less);
        assert_eq!(cmp_parikh(&c, &a), Ordering::Less);
        assert_eq!(cmp_parikh(&a, &a), Ordering::Equal);
    }
}
