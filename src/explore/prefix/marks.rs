//! The markings of the prefix's local configurations, each stored once in a compact canonical
//! encoding, and the cutoff table that maps a marking to the first event reaching it.
//!
//! A marking of a safe net is a set of places. It is kept as the sorted list of its marked
//! places when that list is shorter than the bitset over all places (two `u32` per word), else
//! as that bitset. A long chain or ring holds one token on up to millions of places, where a
//! bitset per event would make the table quadratic in the net; nets with many tokens keep the
//! bitset. The form depends only on the marking, so equal markings encode equally, and the two
//! forms never collide (a list is shorter than `2 · words`).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::NONE;

/// The markings of ⊥ and of every event, and the table of the first event reaching each.
#[derive(Debug)]
pub struct Marks {
    /// Words of a bitset over the places.
    words: usize,
    /// The encodings, concatenated: slot 0 is ⊥ (the initial marking), slot `e + 1` event `e`.
    data: Vec<u32>,
    /// Where slot `i` starts in `data`; slot `i` ends where `i + 1` starts.
    start: Vec<usize>,
    /// Whether slot `i` holds a marking (cutoffs keep none: they are never extended).
    kept: Vec<bool>,
    /// Slots, by the hash of their encoding.
    table: HashTable<u32>,
}

impl Marks {
    /// The store for a net of `words` bitset words whose initial marking is `m0`.
    pub fn new(words: usize, m0: &[u64]) -> Self {
        let mut marks = Marks {
            words,
            data: Vec::new(),
            start: vec![0],
            kept: Vec::new(),
            table: HashTable::new(),
        };
        let mut key = Vec::new();
        marks.encode_bits(m0, &mut key);
        marks.push(&key, true);
        marks
    }

    /// Writes the encoding of the marking given as a bitset into `out`.
    pub fn encode_bits(&self, bits: &[u64], out: &mut Vec<u32>) {
        out.clear();
        let tokens: usize = bits.iter().map(|w| w.count_ones() as usize).sum();
        if tokens < 2 * self.words {
            for (i, &w) in bits.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    out.push(i as u32 * 64 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
        } else {
            out.extend(bits.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]));
        }
    }

    /// Writes the encoding of the marking given as its sorted, distinct places into `out`.
    pub fn encode_places(&self, places: &[u32], out: &mut Vec<u32>) {
        out.clear();
        if places.len() < 2 * self.words {
            out.extend_from_slice(places);
        } else {
            let mut bits = vec![0u64; self.words];
            for &p in places {
                bits[(p / 64) as usize] |= 1 << (p % 64);
            }
            out.extend(bits.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]));
        }
    }

    /// Writes the sorted places of the marking of `[e]` (`e` = [`NONE`]: the initial marking)
    /// into `out`; `false` when that marking is not kept (a cutoff).
    pub fn places_of(&self, e: u32, out: &mut Vec<u32>) -> bool {
        out.clear();
        let slot = slot_of(e);
        if !self.kept.get(slot).copied().unwrap_or(false) {
            return false;
        }
        let key = self.key(slot);
        if key.len() < 2 * self.words {
            out.extend_from_slice(key);
        } else {
            for (i, pair) in key.chunks_exact(2).enumerate() {
                let mut w = pair[0] as u64 | (pair[1] as u64) << 32;
                while w != 0 {
                    out.push(i as u32 * 64 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
        }
        true
    }

    /// When the marking of `[e]` is kept as a bitset: writes it into `bits` (one entry per
    /// word) and returns `true`; the list form is read with [`places_of`](Self::places_of).
    pub fn bits_of(&self, e: u32, bits: &mut Vec<u64>) -> bool {
        let slot = slot_of(e);
        if !self.kept.get(slot).copied().unwrap_or(false) {
            return false;
        }
        let key = self.key(slot);
        if key.len() < 2 * self.words {
            return false;
        }
        bits.clear();
        bits.extend(
            key.chunks_exact(2)
                .map(|pair| pair[0] as u64 | (pair[1] as u64) << 32),
        );
        true
    }

    /// The first event (or [`NONE`] for ⊥) entered in the table with the marking `key`.
    pub fn find(&self, key: &[u32]) -> Option<u32> {
        let hash = FxBuildHasher.hash_one(key);
        self.table
            .find(hash, |&s| self.key(s as usize) == key)
            .map(|&s| event_of(s as usize))
    }

    /// Keeps `key` as the marking of the next event, entering it in the table when `enter`.
    pub fn push(&mut self, key: &[u32], enter: bool) {
        let slot = self.kept.len();
        self.data.extend_from_slice(key);
        self.start.push(self.data.len());
        self.kept.push(true);
        if enter {
            let hash = FxBuildHasher.hash_one(key);
            let Marks {
                table, data, start, ..
            } = self;
            table.insert_unique(hash, slot as u32, |&s| {
                let s = s as usize;
                FxBuildHasher.hash_one(&data[start[s]..start[s + 1]])
            });
        }
    }

    /// Keeps no marking for the next event (a cutoff).
    pub fn push_none(&mut self) {
        self.start.push(self.data.len());
        self.kept.push(false);
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.data.capacity() * 4
            + self.start.capacity() * 8
            + self.kept.capacity()
            + self.table.capacity() * 5) as u64
    }

    fn key(&self, slot: usize) -> &[u32] {
        &self.data[self.start[slot]..self.start[slot + 1]]
    }
}

fn slot_of(e: u32) -> usize {
    if e == NONE { 0 } else { e as usize + 1 }
}

fn event_of(slot: usize) -> u32 {
    if slot == 0 { NONE } else { slot as u32 - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both forms round-trip, equal markings given either way encode equally, and the table
    /// finds the first event entered with a marking.
    #[test]
    fn encodings_round_trip_and_the_table_finds_the_first() {
        // 130 places: 3 words, the list form below 6 tokens.
        let mut m0 = vec![0u64; 3];
        m0[0] = 1;
        let mut marks = Marks::new(3, &m0);
        let few: Vec<u32> = vec![1, 64, 129];
        let many: Vec<u32> = (0..130).step_by(7).collect();
        for places in [&few, &many] {
            let mut bits = vec![0u64; 3];
            for &p in places.iter() {
                bits[(p / 64) as usize] |= 1 << (p % 64);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            marks.encode_bits(&bits, &mut a);
            marks.encode_places(places, &mut b);
            assert_eq!(a, b);
            assert_eq!(a.len() < 6, places.len() < 6);
        }
        let mut key = Vec::new();
        marks.encode_places(&few, &mut key);
        assert_eq!(marks.find(&key), None);
        marks.push(&key, true); // event 0
        marks.push_none(); // event 1, a cutoff
        marks.push(&key, false); // event 2, same marking
        assert_eq!(marks.find(&key), Some(0));
        marks.encode_places(&[0], &mut key);
        assert_eq!(marks.find(&key), Some(NONE));
        let mut out = Vec::new();
        assert!(marks.places_of(2, &mut out));
        assert_eq!(out, few);
        assert!(!marks.places_of(1, &mut out));
        assert!(marks.places_of(NONE, &mut out));
        assert_eq!(out, vec![0]);
        marks.encode_places(&many, &mut key);
        marks.push(&key, true); // event 3
        assert!(marks.places_of(3, &mut out));
        assert_eq!(out, many);
    }
}
