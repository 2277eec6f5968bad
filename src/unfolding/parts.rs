//! Which bits of a state each slot decides, for systems that say where their resources lie
//! ([`System::resource_bits`]).
//!
//! The transitions that change a resource `r` are pairwise dependent in the common case (every
//! access a write, or read-and-add), so they share a slot `σ`. Inside a configuration `H` the
//! events on `σ` form a chain, and its last one, `x`, has every event of `H` that changed `r` in
//! its past: `r`'s part of `state(H)` is `r`'s part of `state([x])`. The state of a history is
//! then the state of its largest predecessor with, on every slot where the history reaches
//! further, the bits that slot decides copied from the state of the history's last event on it
//! — no walk of the history, and no firing.
//!
//! A resource whose changers share no slot (pure additions to one counter commute, so two
//! producers of a place of a non-safe net are independent) leaves the state of some history to
//! no single event: such systems get no parts, and the store fires histories instead.

use smallvec::SmallVec;

use super::slots::{Slot, SlotMap};
use crate::rows::Rows;
use crate::system::{Resource, System};

/// For every slot, the `(word, mask)` pairs of the state bits it decides (disjoint between
/// slots; bits no slot decides never change).
///
/// The size of a history is counted on the slots too: every transition has a *primary* slot,
/// and a history's events with primary slot `σ` are those on `σ`'s chain up to its last event
/// there. A transition's primary slot is one that decides bits where it has one (it does when
/// it changes a resource), so that most slots the counting reads are read for their bits anyway.
#[derive(Clone, Debug)]
pub struct SlotParts {
    starts: Vec<u32>,
    parts: Vec<(u32, u64)>,
    /// By transition, the index of its primary slot in its list of slots.
    primary: Vec<u32>,
    /// The slots that decide bits or are some transition's primary, as a bitset.
    read: Vec<u64>,
}

impl SlotParts {
    /// The parts of the slots `slots` of `sys`, or `None` when some resource's part is not
    /// decided by one slot (or the system does not say where its resources lie). `changers`
    /// are the transitions changing each resource, as
    /// [`SlotMap::with_cover_and_changers`] gives them with the slots.
    pub fn with_changers<S: System + ?Sized>(
        sys: &S,
        slots: &SlotMap,
        changers: &Rows<u32>,
    ) -> Option<Self> {
        // The parts of the state: bits of one resource, or of several resources of a token
        // set that share them (`System::token_sets`); each with the slots that every changer of
        // its resources is on, narrowed resource by resource, and the next part in its word.
        struct Part {
            word: u32,
            mask: u64,
            // (A transition has few slots: no allocation per part.)
            slots: SmallVec<[Slot; 4]>,
            next: u32,
        }
        const NO_PART: u32 = u32::MAX;
        let mut found: Vec<Part> = Vec::new();
        let mut first_in_word = vec![NO_PART; sys.state_words()];
        let mut covered = vec![0u64; sys.state_words()];
        let mut bits = Vec::new();
        for r in 0..changers.len() {
            let ts = changers.row(r);
            let Some(&first) = ts.first() else {
                continue;
            };
            bits.clear();
            if !sys.resource_bits(r as Resource, &mut bits) {
                return None;
            }
            for &(word, mask) in &bits {
                let seen = covered.get_mut(word)?;
                let k = if *seen & mask == 0 {
                    *seen |= mask;
                    found.push(Part {
                        word: word as u32,
                        mask,
                        slots: SmallVec::from_slice(slots.of(first)),
                        next: first_in_word[word],
                    });
                    first_in_word[word] = found.len() as u32 - 1;
                    found.len() - 1
                } else {
                    // Bits shared must be shared whole.
                    let mut k = first_in_word[word];
                    while k != NO_PART && found[k as usize].mask != mask {
                        k = found[k as usize].next;
                    }
                    if k == NO_PART {
                        return None;
                    }
                    k as usize
                };
                let part = &mut found[k];
                let holds_all = |s: &Slot| ts.iter().all(|&t| slots.of(t).binary_search(s).is_ok());
                // (Mostly one slot: a token set's field, shared by all its places.)
                if let [s] = part.slots[..] {
                    if !holds_all(&s) {
                        return None;
                    }
                } else {
                    part.slots.retain(|s| holds_all(s));
                    if part.slots.is_empty() {
                        return None;
                    }
                }
            }
        }
        // (slot, word, mask) of every part: its first common slot (in the slot order of the
        // first changer met).
        let mut decided: Vec<(u32, u32, u64)> = found
            .iter()
            .map(|part| (part.slots[0], part.word, part.mask))
            .collect();
        drop(found);
        // By slot, one mask per word.
        decided.sort_unstable_by_key(|&(s, w, _)| (s, w));
        let mut starts = Vec::with_capacity(slots.count() + 1);
        let mut parts: Vec<(u32, u64)> = Vec::new();
        starts.push(0);
        let mut next = decided.iter().peekable();
        for s in 0..slots.count() as u32 {
            let start = parts.len();
            while let Some(&(_, w, m)) = next.next_if(|&&(slot, _, _)| slot == s) {
                match parts[start..].last_mut() {
                    Some((lw, lm)) if *lw == w => *lm |= m,
                    _ => parts.push((w, m)),
                }
            }
            starts.push(parts.len() as u32);
        }
        let mut read = vec![0u64; slots.count().div_ceil(64)];
        let primary = (0..sys.transition_count() as u32)
            .map(|t| {
                let mine = slots.of(t);
                let i = mine
                    .iter()
                    .position(|&s| starts[s as usize] < starts[s as usize + 1])
                    .unwrap_or(0);
                let s = mine[i] as usize;
                read[s / 64] |= 1 << (s % 64);
                i as u32
            })
            .collect();
        for s in 0..slots.count() {
            if starts[s] < starts[s + 1] {
                read[s / 64] |= 1 << (s % 64);
            }
        }
        Some(SlotParts {
            starts,
            parts,
            primary,
            read,
        })
    }

    /// The bits slot `s` decides.
    #[inline]
    pub fn of(&self, s: Slot) -> &[(u32, u64)] {
        &self.parts[self.starts[s as usize] as usize..self.starts[s as usize + 1] as usize]
    }

    /// The index of `t`'s primary slot in its list of slots.
    #[inline]
    pub fn primary(&self, t: u32) -> usize {
        self.primary[t as usize] as usize
    }

    /// The slots whose entries the state and the size of a history are assembled from, as a
    /// bitset over the slots.
    pub fn read(&self) -> &[u64] {
        &self.read
    }
}

/// For every transition, the words of a state its footprint's resources lie in
/// ([`System::resource_bits`]): all that firing it or testing it reads or writes. A state of
/// many words can then be fired on with only these words loaded, and its change found by
/// comparing only these.
#[derive(Clone, Debug)]
pub struct TransitionWords {
    starts: Vec<u32>,
    words: Vec<u32>,
}

impl TransitionWords {
    /// The words of every transition of `sys`, or `None` when the system does not say where
    /// its resources lie.
    pub fn new<S: System + ?Sized>(sys: &S) -> Option<Self> {
        let mut of_resource: Rows<u32> = Rows::with_capacity(sys.resource_count(), 0);
        let mut bits = Vec::new();
        let mut words: Vec<u32> = Vec::new();
        for r in 0..sys.resource_count() {
            bits.clear();
            if !sys.resource_bits(r as Resource, &mut bits) {
                return None;
            }
            words.clear();
            words.extend(bits.iter().map(|&(w, _)| w as u32));
            words.sort_unstable();
            words.dedup();
            of_resource.push_row(words.iter().copied());
        }
        let mut starts = Vec::with_capacity(sys.transition_count() + 1);
        let mut words = Vec::new();
        starts.push(0);
        let mut mine = Vec::new();
        for t in 0..sys.transition_count() as u32 {
            mine.clear();
            for touch in sys.footprint(t) {
                if touch.resource as usize >= of_resource.len() {
                    return None;
                }
                mine.extend_from_slice(of_resource.row(touch.resource as usize));
            }
            mine.sort_unstable();
            mine.dedup();
            words.extend_from_slice(&mine);
            starts.push(words.len() as u32);
        }
        Some(TransitionWords { starts, words })
    }

    /// The words `t` reads or writes, in increasing order.
    #[inline]
    pub fn of(&self, t: u32) -> &[u32] {
        &self.words[self.starts[t as usize] as usize..self.starts[t as usize + 1] as usize]
    }
}
