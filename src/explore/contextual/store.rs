//! What a contextual prefix is made of: conditions, events, histories (enriched events) and
//! enriched conditions, with the queries the construction asks of them.

use crate::model::net::{PlaceIdx, TransIdx};

/// "None": the producer of an initial condition, the correspondent of a cutoff whose marking
/// is the initial one, the event of the initial history.
pub const NONE: u32 = u32::MAX;

/// A condition: one token on a place, produced by an event (or initially present).
#[derive(Clone, Debug)]
pub struct Condition {
    /// The place.
    pub place: PlaceIdx,
    /// The producing event, or [`NONE`] for an initial condition.
    pub producer: u32,
    /// Events that consume it.
    pub consumers: Vec<u32>,
    /// Events that read it (have it in their context).
    pub readers: Vec<u32>,
    /// Its enriched conditions.
    pub(super) enriched: Vec<u32>,
}

/// An event: a transition with the conditions it consumes and the conditions it reads.
#[derive(Clone, Debug)]
pub struct Event {
    /// The transition.
    pub transition: TransIdx,
    /// Conditions consumed, sorted.
    pub preset: Vec<u32>,
    /// Conditions read, sorted.
    pub context: Vec<u32>,
    /// Conditions produced (empty until its first history leaves the queue).
    pub postset: Vec<u32>,
    /// Its histories, in the order they were found.
    pub histories: Vec<u32>,
    /// Whether every history of the event that left the queue is a cutoff.
    pub cutoff: bool,
}

/// Where a history stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryState {
    /// Waiting in the queue of possible extensions.
    Queued,
    /// In the prefix and extended.
    Kept,
    /// In the prefix, a cutoff: the history (or [`NONE`], the initial one) reaching the same
    /// marking first.
    Cutoff(u32),
}

/// A history of an event (an enriched event `⟨e, H⟩`): the events that must occur before `e`
/// in every configuration that contains `H`.
#[derive(Clone, Debug)]
pub struct History {
    /// The event ([`NONE`] for the initial history).
    pub event: u32,
    /// The histories it was built from (of the generators and readers of its event's
    /// conditions), distinct.
    pub parts: Vec<u32>,
    /// Every history it contains (itself and the initial one included), sorted: one per event
    /// of `H`.
    pub closure: Vec<u32>,
    /// 1 + the largest depth of its parts (0 for the initial history).
    pub depth: u32,
    /// Places marked after `H`, sorted.
    pub marking: Vec<PlaceIdx>,
    /// Its Parikh vector, `(transition, occurrences)` sorted by transition.
    pub parikh: Vec<(u32, u32)>,
    /// Events of `H` reading a condition of its cut whose place some transition consumes.
    pub(super) readers_of_cut: Vec<u32>,
    /// Events of `H` reading a condition its event consumes.
    pub(super) readers_of_preset: Vec<u32>,
    /// The enriched conditions it was built from (the one that triggered it first).
    pub(super) built_from: Vec<u32>,
    /// Where it stands.
    pub state: HistoryState,
    /// Its rank in the order in which histories left the queue ([`NONE`] while queued).
    pub rank: u32,
}

impl History {
    /// Number of events of `H` (the initial event included, as Cunf counts).
    pub fn size(&self) -> usize {
        self.closure.len()
    }

    /// Whether `other` is one of the histories it contains.
    pub fn contains(&self, other: u32) -> bool {
        self.closure.binary_search(&other).is_ok()
    }
}

/// What an enriched condition records besides its condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enrichment {
    /// The condition with a history of its producer.
    Generating(u32),
    /// The condition with a history of one of its readers.
    Reading(u32),
    /// The condition with the readers of a reading enriched condition (`first`) and of a
    /// reading or compound one (`rest`): several readers that all precede its consumer.
    Compound {
        /// A reading enriched condition.
        first: u32,
        /// A reading or compound enriched condition of the same condition.
        rest: u32,
    },
}

/// An enriched condition `⟨c, H⟩`: a condition with a history that either produced it or read
/// it, or a set of reading histories. A new event's history is the union of the histories of
/// pairwise concurrent enriched conditions, one per place of its preset and context.
#[derive(Clone, Debug)]
pub struct Enriched {
    /// The condition.
    pub cond: u32,
    /// How it is enriched.
    pub kind: Enrichment,
    /// False for the inert ones, of places no transition uses (kept for the safety check
    /// only).
    pub live: bool,
    /// The live enriched conditions concurrent with it (itself included for generating and
    /// reading ones), sorted; empty for an inert one (nothing asks for it once made).
    pub co: Vec<u32>,
    /// The inert enriched conditions concurrent with it, sorted; empty for an inert one. Kept
    /// apart from `co` because only the safety check asks for them, and every extension would
    /// walk past them.
    pub inert: Vec<u32>,
}

impl Enriched {
    /// The single history of a generating or reading enriched condition.
    pub fn history(&self) -> Option<u32> {
        match self.kind {
            Enrichment::Generating(h) | Enrichment::Reading(h) => Some(h),
            Enrichment::Compound { .. } => None,
        }
    }

    /// Whether it is generating.
    pub fn generating(&self) -> bool {
        matches!(self.kind, Enrichment::Generating(_))
    }
}

/// Calls `f` on every history an enriched condition stands for: its own, or the readers' of a
/// compound one.
pub fn for_each_part(ecs: &[Enriched], mut r: u32, mut f: impl FnMut(u32)) {
    loop {
        match ecs[r as usize].kind {
            Enrichment::Generating(h) | Enrichment::Reading(h) => return f(h),
            Enrichment::Compound { first, rest } => {
                if let Some(h) = ecs[first as usize].history() {
                    f(h);
                }
                r = rest;
            }
        }
    }
}

/// Whether the sorted `list` holds `x`.
pub fn sorted_contains(list: &[u32], x: u32) -> bool {
    list.binary_search(&x).is_ok()
}

/// The elements of sorted `a` also in sorted `b`, in place. Concurrency lists grow long
/// while the candidates shrink fast, so a short `a` searches `b` by halving instead of
/// walking it.
pub fn intersect_sorted(a: &mut Vec<u32>, b: &[u32]) {
    let mut j = 0;
    if a.len() * 16 < b.len() {
        a.retain(|&x| {
            j += b[j..].partition_point(|&y| y < x);
            j < b.len() && b[j] == x
        });
    } else {
        a.retain(|&x| {
            while j < b.len() && b[j] < x {
                j += 1;
            }
            j < b.len() && b[j] == x
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_of_sorted_lists() {
        let mut a = vec![1, 3, 5, 7, 9];
        intersect_sorted(&mut a, &[0, 3, 4, 9, 10]);
        assert_eq!(a, vec![3, 9]);
        let mut b = vec![2];
        intersect_sorted(&mut b, &[]);
        assert!(b.is_empty());
        // A short list against a long one (the halving search).
        let long: Vec<u32> = (0..1000).map(|x| 2 * x).collect();
        let mut c = vec![1, 4, 500, 998, 1998, 3000];
        intersect_sorted(&mut c, &long);
        assert_eq!(c, vec![4, 500, 998, 1998]);
    }
}
