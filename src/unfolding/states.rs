//! The states of the events of a store, kept in shared blocks.
//!
//! An event's state differs from its largest predecessor's in the few words its history adds:
//! each state is a table of blocks of up to [`BLOCK`] words, and a block equal to the
//! predecessor's is shared, not copied. A system with `w` words of state then costs about
//! `4 w / BLOCK` bytes per event plus the blocks that changed, instead of `8 w` (on a chain of
//! 100 000 places, about 0.6 KiB instead of 12.5 KiB). States of one block or less are
//! stored whole, by slot, and read in place: sharing them would save nothing.

use std::ops::Range;

use hashbrown::HashTable;

use super::grow;

/// Words per block.
pub const BLOCK: usize = 16;

/// States by slot (the store's event ids), in blocks shared between them.
#[derive(Debug, Clone)]
pub struct StateBlocks {
    words: usize,
    /// Words per block: `min(words, BLOCK)`, at least 1.
    width: usize,
    /// Blocks per state.
    per_state: usize,
    /// Whether states are stored whole (one block or less): slot `i`'s state is then
    /// `data[i * words..(i + 1) * words]`, and the tables and counts are unused.
    whole: bool,
    /// Block `b` is `data[b * width..(b + 1) * width]`; the last block of a state is padded
    /// with zeros.
    data: Vec<u64>,
    /// By block: how many tables name it (0: free).
    refs: Vec<u32>,
    free: Vec<u32>,
    /// By slot: its `per_state` blocks.
    tables: Vec<u32>,
    /// By slot: whether it holds a state.
    set: Vec<bool>,
}

impl StateBlocks {
    /// Room for states of `words` words.
    pub fn new(words: usize) -> Self {
        let width = words.clamp(1, BLOCK);
        StateBlocks {
            words,
            width,
            per_state: words.div_ceil(width),
            whole: words <= BLOCK,
            data: Vec::new(),
            refs: Vec::new(),
            free: Vec::new(),
            tables: Vec::new(),
            set: Vec::new(),
        }
    }

    /// Words per state.
    pub fn words(&self) -> usize {
        self.words
    }

    #[inline]
    fn block(&self, b: u32) -> &[u64] {
        &self.data[b as usize * self.width..(b as usize + 1) * self.width]
    }

    #[inline]
    fn table(&self, slot: u32) -> &[u32] {
        debug_assert!(self.set[slot as usize], "slot {slot} holds no state");
        &self.tables[slot as usize * self.per_state..(slot as usize + 1) * self.per_state]
    }

    /// Stores `state` in `slot` (which must hold none), sharing the blocks equal to those of
    /// the state in slot `like`.
    pub fn put(&mut self, slot: u32, state: &[u64], like: Option<u32>) {
        debug_assert_eq!(state.len(), self.words);
        let s = slot as usize;
        if self.whole {
            resize_to(&mut self.data, (s + 1) * self.words);
            self.data[s * self.words..(s + 1) * self.words].copy_from_slice(state);
            return;
        }
        if self.set.len() <= s {
            resize_to(&mut self.set, s + 1);
            resize_to(&mut self.tables, (s + 1) * self.per_state);
        }
        debug_assert!(!self.set[s], "slot {slot} already holds a state");
        for k in 0..self.per_state {
            let words = k * self.width..((k + 1) * self.width).min(self.words);
            let part = &state[words.clone()];
            let shared = like.map(|l| self.table(l)[k]).filter(|&b| {
                let old = self.block(b);
                old[..part.len()] == *part
            });
            let b = match shared {
                Some(b) => b,
                None => self.alloc(part),
            };
            self.refs[b as usize] += 1;
            self.tables[s * self.per_state + k] = b;
        }
        self.set[s] = true;
    }

    /// Stores in `slot` (which must hold none) the state in slot `like` with the words of
    /// `changes` set to their values (a word at most once; sorted here): the blocks no change
    /// touches are shared without being read, so this costs the table and the changed blocks,
    /// not the whole state.
    pub fn put_changes(&mut self, slot: u32, like: u32, changes: &mut [(u32, u64)]) {
        let (s, l) = (slot as usize, like as usize);
        if self.whole {
            resize_to(&mut self.data, (s + 1) * self.words);
            self.data
                .copy_within(l * self.words..(l + 1) * self.words, s * self.words);
            for &(w, v) in changes.iter() {
                self.data[s * self.words + w as usize] = v;
            }
            return;
        }
        if self.set.len() <= s {
            resize_to(&mut self.set, s + 1);
            resize_to(&mut self.tables, (s + 1) * self.per_state);
        }
        debug_assert!(!self.set[s], "slot {slot} already holds a state");
        debug_assert!(self.set[l], "slot {like} holds no state");
        let ps = self.per_state;
        self.tables.copy_within(l * ps..(l + 1) * ps, s * ps);
        changes.sort_unstable_by_key(|&(w, _)| w);
        let mut rest = &changes[..];
        while let Some(&(w, _)) = rest.first() {
            let k = w as usize / self.width;
            let end = rest
                .iter()
                .position(|&(x, _)| x as usize / self.width != k)
                .unwrap_or(rest.len());
            let (group, after) = rest.split_at(end);
            rest = after;
            let old = self.tables[s * ps + k];
            let base = k * self.width;
            if group
                .iter()
                .all(|&(w, v)| self.block(old)[w as usize - base] == v)
            {
                continue;
            }
            let b = self.alloc_copy(old);
            let at = b as usize * self.width - base;
            for &(w, v) in group {
                self.data[at + w as usize] = v;
            }
            self.tables[s * ps + k] = b;
        }
        for k in 0..ps {
            let b = self.tables[s * ps + k];
            self.refs[b as usize] += 1;
        }
        self.set[s] = true;
    }

    /// A block with no reference yet (a freed one, or a new one at the end); its words are
    /// the caller's to write.
    fn new_block(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            let b = self.refs.len() as u32;
            grow(&mut self.refs, 1);
            grow(&mut self.data, self.width);
            self.refs.push(0);
            self.data.resize(self.data.len() + self.width, 0);
            b
        })
    }

    /// A new block, a copy of block `from`.
    fn alloc_copy(&mut self, from: u32) -> u32 {
        let b = self.new_block();
        let w = self.width;
        self.data
            .copy_within(from as usize * w..(from as usize + 1) * w, b as usize * w);
        b
    }

    fn alloc(&mut self, part: &[u64]) -> u32 {
        let b = self.new_block();
        let at = b as usize * self.width;
        self.data[at..at + part.len()].copy_from_slice(part);
        self.data[at + part.len()..at + self.width].fill(0);
        b
    }

    /// Empties `slot`, freeing the blocks no other state names.
    pub fn take(&mut self, slot: u32) {
        let s = slot as usize;
        if self.whole || !self.set.get(s).copied().unwrap_or(false) {
            return;
        }
        for k in 0..self.per_state {
            let b = self.tables[s * self.per_state + k];
            self.refs[b as usize] -= 1;
            if self.refs[b as usize] == 0 {
                self.free.push(b);
            }
        }
        self.set[s] = false;
    }

    /// The state in `slot`, in place, when it is a single block.
    #[inline]
    pub fn as_slice(&self, slot: u32) -> Option<&[u64]> {
        let at = slot as usize * self.words;
        self.whole.then(|| &self.data[at..at + self.words])
    }

    /// Word `w` of the state in `slot`.
    #[inline]
    pub fn word(&self, slot: u32, w: usize) -> u64 {
        if self.whole {
            self.data[slot as usize * self.words + w]
        } else {
            let b = self.table(slot)[w / self.width];
            self.block(b)[w % self.width]
        }
    }

    /// Writes the state in `slot` into `out` (`words` long).
    pub fn read(&self, slot: u32, out: &mut [u64]) {
        self.read_words(slot, 0..self.words, out);
    }

    /// Writes the words `range` of the state in `slot` into the same places of `out`
    /// (`words` long); the other words of `out` are left alone.
    pub fn read_words(&self, slot: u32, range: Range<usize>, out: &mut [u64]) {
        if range.is_empty() {
            return;
        }
        if self.whole {
            let at = slot as usize * self.words;
            out[range.clone()].copy_from_slice(&self.data[at + range.start..at + range.end]);
            return;
        }
        let table = self.table(slot);
        let (first, last) = (range.start / self.width, (range.end - 1) / self.width);
        for (k, &b) in table.iter().enumerate().take(last + 1).skip(first) {
            let words = (k * self.width).max(range.start)..((k + 1) * self.width).min(range.end);
            let block = self.block(b);
            let from = words.start - k * self.width..words.end - k * self.width;
            out[words].copy_from_slice(&block[from]);
        }
    }

    /// Whether the state in `slot` is `state`, read block by block.
    pub fn equals(&self, slot: u32, state: &[u64]) -> bool {
        if self.whole {
            let at = slot as usize * self.words;
            return self.data[at..at + self.words] == *state;
        }
        self.table(slot).iter().enumerate().all(|(k, &b)| {
            let part = &state[k * self.width..((k + 1) * self.width).min(self.words)];
            self.block(b)[..part.len()] == *part
        })
    }

    /// Bytes held (allocated capacity).
    pub fn bytes(&self) -> u64 {
        (self.data.capacity() * 8
            + self.refs.capacity() * 4
            + self.free.capacity() * 4
            + self.tables.capacity() * 4
            + self.set.capacity()) as u64
    }
}

/// The share of word `w` holding `v` in a state's hash: the hash of a state is the sum of its
/// words' shares ([`state_hash`]), so that changing a word updates it in constant time.
#[inline]
pub fn word_hash(w: usize, v: u64) -> u64 {
    // MurmurHash3's finalizer, on the value keyed by its position.
    let mut x = v ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// The hash of a state: the sum of its words' [`word_hash`]es.
pub fn state_hash(state: &[u64]) -> u64 {
    state
        .iter()
        .enumerate()
        .fold(0u64, |h, (w, &v)| h.wrapping_add(word_hash(w, v)))
}

/// A set of distinct states, in shared blocks: each state added shares the blocks equal to
/// those of the state added just before it (the successive deadlocks of a depth-first
/// exploration differ in a few words; n-way conflicts over n places have n of them).
#[derive(Debug, Clone)]
pub struct StateSet {
    blocks: StateBlocks,
    /// Each state's slot, with its hash.
    table: HashTable<(u32, u64)>,
    len: u32,
}

impl StateSet {
    /// An empty set of states of `words` words.
    pub fn new(words: usize) -> Self {
        StateSet {
            blocks: StateBlocks::new(words),
            table: HashTable::new(),
            len: 0,
        }
    }

    /// Adds `state`; whether it was not in the set yet.
    pub fn insert(&mut self, state: &[u64]) -> bool {
        self.insert_hashed(state, state_hash(state), None).1
    }

    /// Adds `state`, whose [`state_hash`] is `hash` (kept up to date by the caller as the
    /// state changes); returns its slot in the set and whether it is new. `known`, when
    /// given, is a slot of the set whose state differs from `state` at most in the listed
    /// words (with their values in `state`): a new state then shares that one's blocks
    /// without reading the others, and costs the words listed instead of the whole state.
    pub fn insert_hashed(
        &mut self,
        state: &[u64],
        hash: u64,
        known: Option<(u32, &mut [(u32, u64)])>,
    ) -> (u32, bool) {
        debug_assert_eq!(hash, state_hash(state));
        let blocks = &self.blocks;
        if let Some(&(slot, _)) = self
            .table
            .find(hash, |&(slot, sh)| sh == hash && blocks.equals(slot, state))
        {
            return (slot, false);
        }
        let slot = self.len;
        match known {
            Some((like, changes)) => {
                self.blocks.put_changes(slot, like, changes);
                debug_assert!(self.blocks.equals(slot, state));
            }
            None => self.blocks.put(slot, state, slot.checked_sub(1)),
        }
        self.table.insert_unique(hash, (slot, hash), |&(_, sh)| sh);
        self.len += 1;
        (slot, true)
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every state, whole, in the order they were added.
    pub fn states(&self) -> impl Iterator<Item = Vec<u64>> + '_ {
        (0..self.len).map(|slot| {
            let mut state = vec![0; self.blocks.words()];
            self.blocks.read(slot, &mut state);
            state
        })
    }

    /// Bytes held (allocated capacity).
    pub fn bytes(&self) -> u64 {
        self.blocks.bytes() + (self.table.capacity() * 17) as u64
    }
}

/// Lengthens `v` to `len` (if shorter) with default values, growing as the store does.
fn resize_to<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    if v.len() < len {
        let extra = len - v.len();
        grow(v, extra);
        v.resize(len, T::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random states derived from one another, put, read, taken and put again, against
    /// plain copies.
    #[test]
    fn blocks_keep_every_state_apart() {
        for words in [1, 3, 16, 17, 40] {
            let mut blocks = StateBlocks::new(words);
            let mut plain: Vec<Option<Vec<u64>>> = Vec::new();
            let mut seed = 0x2545_F491_4F6C_DD1Du64 ^ words as u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for round in 0..400u32 {
                let slot = (next() % 24) as u32;
                if plain.len() <= slot as usize {
                    plain.resize(slot as usize + 1, None);
                }
                if plain[slot as usize].is_some() && next() % 3 == 0 {
                    blocks.take(slot);
                    plain[slot as usize] = None;
                    continue;
                }
                if plain[slot as usize].is_some() {
                    continue;
                }
                // Derived from another state: a few words changed.
                let like = (0..plain.len() as u32).find(|&l| plain[l as usize].is_some());
                let mut state = match like {
                    Some(l) => plain[l as usize].clone().unwrap(),
                    None => vec![round as u64; words],
                };
                let mut changes: Vec<(u32, u64)> = Vec::new();
                for _ in 0..next() % 3 {
                    let w = (next() % words as u64) as usize;
                    state[w] = next();
                    changes.retain(|&(x, _)| x != w as u32);
                    changes.push((w as u32, state[w]));
                }
                // Stored whole, or as the changes to `like` (with an unchanged word listed
                // now and then).
                match like {
                    Some(l) if next() % 2 == 0 => {
                        let w = (next() % words as u64) as u32;
                        if !changes.iter().any(|&(x, _)| x == w) {
                            changes.push((w, state[w as usize]));
                        }
                        blocks.put_changes(slot, l, &mut changes);
                    }
                    _ => blocks.put(slot, &state, like),
                }
                plain[slot as usize] = Some(state);
                for (s, want) in plain.iter().enumerate() {
                    let Some(want) = want else { continue };
                    let mut got = vec![0; words];
                    blocks.read(s as u32, &mut got);
                    assert_eq!(&got, want, "{words} words, slot {s}");
                    if let Some(slice) = blocks.as_slice(s as u32) {
                        assert_eq!(slice, &want[..]);
                    }
                    let from = (next() % words as u64) as usize;
                    let to = from + (next() % (words - from) as u64) as usize + 1;
                    let mut part = vec![u64::MAX; words];
                    blocks.read_words(s as u32, from..to, &mut part);
                    for (w, &x) in part.iter().enumerate() {
                        let expect = if (from..to).contains(&w) {
                            want[w]
                        } else {
                            u64::MAX
                        };
                        assert_eq!(x, expect, "{words} words, slot {s}, word {w}");
                    }
                }
            }
            // The same states as a set, each once.
            let mut set = StateSet::new(words);
            let distinct: std::collections::HashSet<&Vec<u64>> = plain.iter().flatten().collect();
            let mut last: Option<(u32, &Vec<u64>)> = None;
            for (i, state) in plain
                .iter()
                .flatten()
                .chain(plain.iter().flatten())
                .enumerate()
            {
                // Every other state as the changes to the one added before it.
                let mut changes: Vec<(u32, u64)> = match last {
                    Some((_, prev)) => (0..words as u32)
                        .filter(|&w| prev[w as usize] != state[w as usize])
                        .map(|w| (w, state[w as usize]))
                        .collect(),
                    None => Vec::new(),
                };
                let known = last
                    .filter(|_| i % 2 == 1)
                    .map(|(slot, _)| (slot, &mut changes[..]));
                let (slot, _) = set.insert_hashed(state, state_hash(state), known);
                last = Some((slot, state));
            }
            assert_eq!(set.len(), distinct.len());
            let back: std::collections::HashSet<Vec<u64>> = set.states().collect();
            assert_eq!(back.len(), distinct.len());
            assert!(back.iter().all(|s| distinct.contains(s)));
            // Every block freed once every state is taken.
            for s in 0..plain.len() as u32 {
                blocks.take(s);
            }
            assert!(blocks.whole || blocks.refs.iter().all(|&r| r == 0));
            assert_eq!(blocks.free.len(), blocks.refs.len());
        }
    }
}
