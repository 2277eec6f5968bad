//! The states of the events of a store, kept in shared blocks.
//!
//! An event's state differs from its largest predecessor's in the few words its history adds:
//! each state is a tree whose leaves are blocks of up to [`BLOCK`] words and whose inner
//! nodes have [`FANOUT`] children, and a subtree equal to the predecessor's is shared, not
//! copied (a persistent radix tree). A state that changes `c` words of its predecessor's then
//! costs at most `c` blocks and `c` paths of nodes, `O(c log w)`, whatever its width `w`: on
//! a chain of a million places, a few hundred bytes per event where a flat table of blocks per
//! state cost 4 KiB and as many reference counts to update. Blocks and nodes are narrow (see
//! [`BLOCK`] and [`FANOUT`]): a path is a level or so longer, but each copy is smaller, and the
//! event store holds less for the same instructions. States of [`WHOLE_WORDS`] words or
//! fewer are stored whole, by slot, and read in place: sharing them would save little.

use std::ops::Range;

use hashbrown::HashTable;

use super::grow;

/// Words per block (half a cache line).
pub const BLOCK: usize = 4;

/// States of at most this many words are stored whole (see [`StateBlocks`]).
pub const WHOLE_WORDS: usize = 16;

/// Children per inner node of a state's tree (a node of `u32` ids is half a cache line).
pub const FANOUT: usize = 8;
const FANOUT_BITS: u32 = FANOUT.trailing_zeros();

/// No node or block: a child past the end of the state, or a slot without a state.
const NONE: u32 = u32::MAX;

/// States by slot (the store's event ids), in trees of blocks shared between them.
#[derive(Debug, Clone)]
pub struct StateBlocks {
    words: usize,
    /// Words per block: `BLOCK` when states are trees, else the words of a state (at least
    /// 1).
    width: usize,
    /// Blocks per state.
    per_state: usize,
    /// Levels of inner nodes above the blocks: the least `L ≥ 1` with `FANOUT^L ≥ per_state`.
    levels: u32,
    /// Whether states are stored whole (one block or less): slot `i`'s state is then
    /// `data[i * words..(i + 1) * words]`, and the trees and counts are unused.
    whole: bool,
    /// Block `b` is `data[b * width..(b + 1) * width]`; the last block of a state is padded
    /// with zeros.
    data: Vec<u64>,
    /// By block: how many nodes name it (0: free).
    block_refs: Vec<u32>,
    free_blocks: Vec<u32>,
    /// Node `n`'s children are `nodes[n * FANOUT..(n + 1) * FANOUT]`: blocks at level 1,
    /// nodes of the level below higher up; [`NONE`] past the end of the state.
    nodes: Vec<u32>,
    /// By node: how many nodes and slots name it (0: free).
    node_refs: Vec<u32>,
    free_nodes: Vec<u32>,
    /// By slot: the root of its state's tree ([`NONE`]: no state).
    roots: Vec<u32>,
    /// Scratch room of [`put`](Self::put): the words that differ from the state it shares with.
    diff: Vec<(u32, u64)>,
}

impl StateBlocks {
    /// Room for states of `words` words.
    pub fn new(words: usize) -> Self {
        let whole = words <= WHOLE_WORDS;
        let width = if whole { words.max(1) } else { BLOCK };
        let per_state = words.div_ceil(width).max(1);
        let mut levels = 1;
        while FANOUT.pow(levels) < per_state {
            levels += 1;
        }
        StateBlocks {
            words,
            width,
            per_state,
            levels,
            whole,
            data: Vec::new(),
            block_refs: Vec::new(),
            free_blocks: Vec::new(),
            nodes: Vec::new(),
            node_refs: Vec::new(),
            free_nodes: Vec::new(),
            roots: Vec::new(),
            diff: Vec::new(),
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
    fn node(&self, n: u32) -> &[u32] {
        &self.nodes[n as usize * FANOUT..(n as usize + 1) * FANOUT]
    }

    /// The child of a node at `level` on the way to block `k`.
    #[inline]
    fn child_index(k: usize, level: u32) -> usize {
        (k >> ((level - 1) * FANOUT_BITS)) & (FANOUT - 1)
    }

    #[inline]
    fn root(&self, slot: u32) -> u32 {
        let r = self.roots.get(slot as usize).copied().unwrap_or(NONE);
        debug_assert!(r != NONE, "slot {slot} holds no state");
        r
    }

    /// Block `k` of the state in `slot`.
    #[inline]
    fn block_of(&self, slot: u32, k: usize) -> u32 {
        let mut n = self.root(slot);
        for level in (1..=self.levels).rev() {
            n = self.nodes[n as usize * FANOUT + Self::child_index(k, level)];
        }
        n
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
        match like {
            Some(l) => {
                let mut diff = std::mem::take(&mut self.diff);
                diff.clear();
                let width = self.width;
                self.visit(l, 0..self.per_state, &mut |k, block| {
                    let base = k * width;
                    for (i, (&old, &new)) in block.iter().zip(&state[base..]).enumerate() {
                        if old != new {
                            diff.push(((base + i) as u32, new));
                        }
                    }
                    true
                });
                self.put_changes(slot, l, &mut diff);
                self.diff = diff;
            }
            None => {
                let root = self.build(state, self.levels, 0);
                self.set_root(slot, root);
            }
        }
    }

    /// A new tree at `level` for the blocks of `state` from block `first` on.
    fn build(&mut self, state: &[u64], level: u32, first: usize) -> u32 {
        let n = self.new_node();
        let span = FANOUT.pow(level - 1);
        for c in 0..FANOUT {
            let k = first + c * span;
            let child = if k >= self.per_state {
                NONE
            } else if level == 1 {
                let part = &state[k * self.width..((k + 1) * self.width).min(self.words)];
                let b = self.alloc(part);
                self.block_refs[b as usize] += 1;
                b
            } else {
                let m = self.build(state, level - 1, k);
                self.node_refs[m as usize] += 1;
                m
            };
            self.nodes[n as usize * FANOUT + c] = child;
        }
        n
    }

    fn set_root(&mut self, slot: u32, root: u32) {
        let s = slot as usize;
        if self.roots.len() <= s {
            let extra = s + 1 - self.roots.len();
            grow(&mut self.roots, extra);
            self.roots.resize(s + 1, NONE);
        }
        debug_assert_eq!(self.roots[s], NONE, "slot {slot} already holds a state");
        self.node_refs[root as usize] += 1;
        self.roots[s] = root;
    }

    /// Stores in `slot` (which must hold none) the state in slot `like` with the words of
    /// `changes` set to their values (a word at most once; sorted here): the subtrees no change
    /// touches are shared without being read, so this costs the paths to the changed blocks,
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
        changes.sort_unstable_by_key(|&(w, _)| w);
        let old = self.root(like);
        let root = self.update(old, self.levels, changes).unwrap_or(old);
        self.set_root(slot, root);
    }

    /// The node at `level` with the words of `changes` (sorted, all under it) set: `None` when
    /// they change nothing, else a new node (no reference yet) sharing every child they leave
    /// alone.
    fn update(&mut self, n: u32, level: u32, changes: &[(u32, u64)]) -> Option<u32> {
        let mut replaced = [NONE; FANOUT];
        let mut any = false;
        let mut rest = changes;
        while let Some(&(w, _)) = rest.first() {
            let c = Self::child_index(w as usize / BLOCK, level);
            let end = rest
                .iter()
                .position(|&(x, _)| Self::child_index(x as usize / BLOCK, level) != c)
                .unwrap_or(rest.len());
            let (group, after) = rest.split_at(end);
            rest = after;
            let child = self.nodes[n as usize * FANOUT + c];
            let new = if level == 1 {
                self.update_block(child, group)
            } else {
                self.update(child, level - 1, group)
            };
            if let Some(new) = new {
                replaced[c] = new;
                any = true;
            }
        }
        if !any {
            return None;
        }
        let m = self.copy_node(n);
        let to = m as usize * FANOUT;
        let node: &mut [u32; FANOUT] = (&mut self.nodes[to..to + FANOUT])
            .try_into()
            .expect("a node has FANOUT children");
        for (child, &new) in node.iter_mut().zip(&replaced) {
            if new != NONE {
                *child = new;
            }
        }
        let refs = if level == 1 {
            &mut self.block_refs
        } else {
            &mut self.node_refs
        };
        for &child in node.iter().filter(|&&c| c != NONE) {
            refs[child as usize] += 1;
        }
        Some(m)
    }

    /// Block `b` with the words of `changes` (sorted, all in it) set: `None` when they change
    /// nothing, else a new block (no reference yet).
    fn update_block(&mut self, b: u32, changes: &[(u32, u64)]) -> Option<u32> {
        let base = changes[0].0 as usize / BLOCK * BLOCK;
        let old = self.block(b);
        if changes.iter().all(|&(w, v)| old[w as usize - base] == v) {
            return None;
        }
        let nb = self.alloc_copy(b);
        let at = nb as usize * self.width;
        for &(w, v) in changes {
            self.data[at + w as usize - base] = v;
        }
        Some(nb)
    }

    /// A node with no reference yet (a freed one, or a new one at the end); its children are
    /// the caller's to write.
    fn new_node(&mut self) -> u32 {
        self.free_nodes.pop().unwrap_or_else(|| {
            let n = self.node_refs.len() as u32;
            grow(&mut self.node_refs, 1);
            grow(&mut self.nodes, FANOUT);
            self.node_refs.push(0);
            self.nodes.resize(self.nodes.len() + FANOUT, NONE);
            n
        })
    }

    /// A new node with no reference yet, a copy of node `n` (written once, where a new node
    /// was filled and then overwritten).
    fn copy_node(&mut self, n: u32) -> u32 {
        let from = n as usize * FANOUT;
        match self.free_nodes.pop() {
            Some(m) => {
                self.nodes
                    .copy_within(from..from + FANOUT, m as usize * FANOUT);
                m
            }
            None => {
                let m = self.node_refs.len() as u32;
                grow(&mut self.node_refs, 1);
                grow(&mut self.nodes, FANOUT);
                self.node_refs.push(0);
                self.nodes.extend_from_within(from..from + FANOUT);
                m
            }
        }
    }

    /// A block with no reference yet (a freed one, or a new one at the end); its words are
    /// the caller's to write.
    fn new_block(&mut self) -> u32 {
        self.free_blocks.pop().unwrap_or_else(|| {
            let b = self.block_refs.len() as u32;
            grow(&mut self.block_refs, 1);
            grow(&mut self.data, self.width);
            self.block_refs.push(0);
            self.data.resize(self.data.len() + self.width, 0);
            b
        })
    }

    /// A new block, a copy of block `from`.
    fn alloc_copy(&mut self, from: u32) -> u32 {
        let w = self.width;
        let words = from as usize * w..(from as usize + 1) * w;
        match self.free_blocks.pop() {
            Some(b) => {
                self.data.copy_within(words, b as usize * w);
                b
            }
            None => {
                let b = self.block_refs.len() as u32;
                grow(&mut self.block_refs, 1);
                grow(&mut self.data, w);
                self.block_refs.push(0);
                self.data.extend_from_within(words);
                b
            }
        }
    }

    fn alloc(&mut self, part: &[u64]) -> u32 {
        let b = self.new_block();
        let at = b as usize * self.width;
        self.data[at..at + part.len()].copy_from_slice(part);
        self.data[at + part.len()..at + self.width].fill(0);
        b
    }

    /// Empties `slot`, freeing the nodes and blocks no other state names.
    pub fn take(&mut self, slot: u32) {
        let s = slot as usize;
        if self.whole {
            return;
        }
        let Some(&root) = self.roots.get(s).filter(|&&r| r != NONE) else {
            return;
        };
        self.roots[s] = NONE;
        self.release(root, self.levels);
    }

    /// Drops one reference to node `n` at `level`, and frees it with what only it named.
    fn release(&mut self, n: u32, level: u32) {
        self.node_refs[n as usize] -= 1;
        if self.node_refs[n as usize] != 0 {
            return;
        }
        self.free_nodes.push(n);
        for c in 0..FANOUT {
            let child = self.nodes[n as usize * FANOUT + c];
            if child == NONE {
                continue;
            }
            if level == 1 {
                self.block_refs[child as usize] -= 1;
                if self.block_refs[child as usize] == 0 {
                    self.free_blocks.push(child);
                }
            } else {
                self.release(child, level - 1);
            }
        }
    }

    /// Calls `f(k, block)` on the blocks `k` in `blocks` of the state in `slot`, in order,
    /// while it returns true; whether it always did.
    fn visit(
        &self,
        slot: u32,
        blocks: Range<usize>,
        f: &mut impl FnMut(usize, &[u64]) -> bool,
    ) -> bool {
        blocks.is_empty() || self.visit_node(self.root(slot), self.levels, 0, &blocks, f)
    }

    /// The tree of the state in `slot`, with one more reference to its root (the caller's,
    /// given back with [`release_tree`](Self::release_tree)): the state then outlives the
    /// slot. `None` when states are stored whole.
    pub fn share_tree(&mut self, slot: u32) -> Option<u32> {
        if self.whole {
            return None;
        }
        let root = self.root(slot);
        self.node_refs[root as usize] += 1;
        Some(root)
    }

    /// A tree (referenced once, by the caller) holding the state of tree `root` with the words
    /// of `changes` set (a word at most once; sorted here); as
    /// [`put_changes`](Self::put_changes).
    pub fn tree_with_changes(&mut self, root: u32, changes: &mut [(u32, u64)]) -> u32 {
        debug_assert!(!self.whole);
        changes.sort_unstable_by_key(|&(w, _)| w);
        let new = self.update(root, self.levels, changes).unwrap_or(root);
        self.node_refs[new as usize] += 1;
        new
    }

    /// A tree (referenced once, by the caller) holding `state`.
    pub fn tree_of(&mut self, state: &[u64]) -> u32 {
        debug_assert!(!self.whole);
        let root = self.build(state, self.levels, 0);
        self.node_refs[root as usize] += 1;
        root
    }

    /// Gives back a reference to a tree (from [`share_tree`](Self::share_tree),
    /// [`tree_with_changes`](Self::tree_with_changes) or [`tree_of`](Self::tree_of)).
    pub fn release_tree(&mut self, root: u32) {
        self.release(root, self.levels);
    }

    /// Whether tree `root` holds `state`, read block by block.
    pub fn tree_equals(&self, root: u32, state: &[u64]) -> bool {
        let (width, words) = (self.width, self.words);
        self.visit_tree(root, &mut |k, block| {
            let part = &state[k * width..((k + 1) * width).min(words)];
            block[..part.len()] == *part
        })
    }

    /// Writes the state of tree `root` into `out` (`words` long).
    pub fn tree_read(&self, root: u32, out: &mut [u64]) {
        let (width, words) = (self.width, self.words);
        self.visit_tree(root, &mut |k, block| {
            let end = ((k + 1) * width).min(words);
            out[k * width..end].copy_from_slice(&block[..end - k * width]);
            true
        });
    }

    /// Calls `f(k, block)` on every block `k` of tree `root`, in order, while it returns true;
    /// whether it always did.
    fn visit_tree(&self, root: u32, f: &mut impl FnMut(usize, &[u64]) -> bool) -> bool {
        self.visit_node(root, self.levels, 0, &(0..self.per_state), f)
    }

    /// Whether states are stored whole (see [`WHOLE_WORDS`]).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    fn visit_node(
        &self,
        n: u32,
        level: u32,
        first: usize,
        blocks: &Range<usize>,
        f: &mut impl FnMut(usize, &[u64]) -> bool,
    ) -> bool {
        let span = FANOUT.pow(level - 1);
        for (c, &child) in self.node(n).iter().enumerate() {
            let k = first + c * span;
            if k >= blocks.end || child == NONE {
                break;
            }
            if k + span <= blocks.start {
                continue;
            }
            let go_on = if level == 1 {
                f(k, self.block(child))
            } else {
                self.visit_node(child, level - 1, k, blocks, f)
            };
            if !go_on {
                return false;
            }
        }
        true
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
            // (Trees have blocks of BLOCK words: a shift, where a division by the width
            // would cost tens of cycles on every word read.)
            let b = self.block_of(slot, w / BLOCK);
            self.data[b as usize * BLOCK + w % BLOCK]
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
        let width = self.width;
        let blocks = range.start / width..(range.end - 1) / width + 1;
        self.visit(slot, blocks, &mut |k, block| {
            let words = (k * width).max(range.start)..((k + 1) * width).min(range.end);
            let from = words.start - k * width..words.end - k * width;
            out[words].copy_from_slice(&block[from]);
            true
        });
    }

    /// Whether the state in `slot` is `state`, read block by block.
    pub fn equals(&self, slot: u32, state: &[u64]) -> bool {
        if self.whole {
            let at = slot as usize * self.words;
            return self.data[at..at + self.words] == *state;
        }
        self.tree_equals(self.root(slot), state)
    }

    /// Bytes held (allocated capacity).
    pub fn bytes(&self) -> u64 {
        (self.data.capacity() * 8
            + (self.block_refs.capacity()
                + self.free_blocks.capacity()
                + self.nodes.capacity()
                + self.node_refs.capacity()
                + self.free_nodes.capacity()
                + self.roots.capacity())
                * 4
            + self.diff.capacity() * 16) as u64
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

/// A set of distinct states. Small states ([`WHOLE_WORDS`] words or fewer) are copied whole
/// into the set; wide ones are trees of a [`StateBlocks`] that the caller owns and passes to
/// every call (the event store's): a state added as the changes to one already in the set
/// shares its blocks (the successive deadlocks of a depth-first exploration differ in a few
/// words; n-way conflicts over n places have n of them), and one equal to a stored event's
/// state shares that event's whole tree, at the cost of one reference.
#[derive(Debug, Clone)]
pub struct StateSet {
    /// The whole states, by entry (unused for wide states).
    whole: StateBlocks,
    /// By entry, the root of its tree in the caller's blocks (wide states).
    roots: Vec<u32>,
    /// Each state's entry, with its hash.
    table: HashTable<(u32, u64)>,
    len: u32,
}

/// What is known of a state added to a [`StateSet`] besides its words, to store it cheaply.
pub enum Known<'a> {
    /// Nothing: a wide state is then compared block by block with the one added before it.
    Nothing,
    /// An entry of the set whose state differs from the new one at most in the listed words
    /// (with their values in the new state): the new state shares that one's blocks without
    /// reading the others, and costs the words listed instead of the whole state.
    Like(u32, &'a mut [(u32, u64)]),
    /// A slot of the caller's blocks holding exactly the new state: a wide state shares its
    /// tree.
    Slot(u32),
}

impl StateSet {
    /// An empty set of states of `words` words.
    pub fn new(words: usize) -> Self {
        StateSet {
            // (Sized for whole states; wide ones live in the caller's blocks.)
            whole: StateBlocks::new(words.min(WHOLE_WORDS)),
            roots: Vec::new(),
            table: HashTable::new(),
            len: 0,
        }
    }

    fn equals(&self, blocks: &StateBlocks, entry: u32, state: &[u64]) -> bool {
        if blocks.is_whole() {
            self.whole.equals(entry, state)
        } else {
            blocks.tree_equals(self.roots[entry as usize], state)
        }
    }

    /// Adds `state`; whether it was not in the set yet. `blocks` holds the trees of wide
    /// states (the same at every call).
    pub fn insert(&mut self, blocks: &mut StateBlocks, state: &[u64]) -> bool {
        self.insert_hashed(blocks, state, state_hash(state), Known::Nothing)
            .1
    }

    /// Adds `state`, whose [`state_hash`] is `hash` (kept up to date by the caller as the
    /// state changes), stored as `known` allows; returns its entry in the set and whether it
    /// is new.
    pub fn insert_hashed(
        &mut self,
        blocks: &mut StateBlocks,
        state: &[u64],
        hash: u64,
        known: Known<'_>,
    ) -> (u32, bool) {
        debug_assert_eq!(hash, state_hash(state));
        debug_assert_eq!(state.len(), blocks.words());
        if let Some(&(entry, _)) = self.table.find(hash, |&(entry, sh)| {
            sh == hash && self.equals(blocks, entry, state)
        }) {
            return (entry, false);
        }
        let entry = self.len;
        if blocks.is_whole() {
            self.whole.put(entry, state, None);
        } else {
            let root = match known {
                Known::Slot(slot) => blocks.share_tree(slot).expect("states kept as trees"),
                Known::Like(like, changes) => {
                    blocks.tree_with_changes(self.roots[like as usize], changes)
                }
                Known::Nothing => match self.roots.last() {
                    Some(&last) => {
                        // The words that differ from the state added last.
                        let mut before = vec![0; state.len()];
                        blocks.tree_read(last, &mut before);
                        let mut changes: Vec<(u32, u64)> = (0..state.len())
                            .filter(|&w| before[w] != state[w])
                            .map(|w| (w as u32, state[w]))
                            .collect();
                        blocks.tree_with_changes(last, &mut changes)
                    }
                    None => blocks.tree_of(state),
                },
            };
            debug_assert!(blocks.tree_equals(root, state));
            self.roots.push(root);
        }
        self.table.insert_unique(hash, (entry, hash), |&(_, sh)| sh);
        self.len += 1;
        (entry, true)
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
    pub fn states<'a>(&'a self, blocks: &'a StateBlocks) -> impl Iterator<Item = Vec<u64>> + 'a {
        (0..self.len).map(move |entry| {
            let mut state = vec![0; blocks.words()];
            if blocks.is_whole() {
                self.whole.read(entry, &mut state);
            } else {
                blocks.tree_read(self.roots[entry as usize], &mut state);
            }
            state
        })
    }

    /// Gives back the set's references to the trees of `blocks`, and empties it.
    pub fn clear(&mut self, blocks: &mut StateBlocks) {
        for root in self.roots.drain(..) {
            blocks.release_tree(root);
        }
        self.whole = StateBlocks::new(self.whole.words());
        self.table.clear();
        self.len = 0;
    }

    /// Bytes held (allocated capacity), besides the blocks of wide states (counted with the
    /// blocks they live in).
    pub fn bytes(&self) -> u64 {
        self.whole.bytes() + (self.roots.capacity() * 4 + self.table.capacity() * 17) as u64
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

    /// A chain of states, each one word apart from the one before, costs the paths to the
    /// changed blocks, not a table as wide as the state: a million words (125 000 blocks) cost
    /// well under a kilobyte per state.
    #[test]
    fn a_state_one_word_apart_costs_a_path() {
        let words = 1_000_000;
        let mut blocks = StateBlocks::new(words);
        let mut state = vec![7u64; words];
        blocks.put(0, &state, None);
        let start = blocks.bytes();
        let n = 2_000u32;
        for i in 1..=n {
            let w = (i as usize * 7919) % words;
            state[w] = u64::from(i);
            blocks.put_changes(i, i - 1, &mut [(w as u32, u64::from(i))]);
        }
        let per_state = (blocks.bytes() - start) / u64::from(n);
        assert!(per_state < 1024, "{per_state} bytes per state");
        let mut back = vec![0; words];
        blocks.read(n, &mut back);
        assert_eq!(back, state);
        assert_eq!(blocks.word(1, 7919), 1);
        assert_eq!(blocks.word(0, 7919), 7);
    }

    /// Random states derived from one another, put, read, taken and put again, against
    /// plain copies.
    #[test]
    fn blocks_keep_every_state_apart() {
        // Whole states, one level of nodes, two, and three (more than FANOUT² blocks).
        for words in [1, 3, 16, 17, 40, 300, 4200] {
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
                for _ in 0..next() % 5 {
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
            // The same states as a set, each once, their trees in `blocks`: every third as
            // the changes to the one added before it, every third as the tree of its slot.
            let mut set = StateSet::new(words);
            let distinct: std::collections::HashSet<&Vec<u64>> = plain.iter().flatten().collect();
            let mut last: Option<(u32, &Vec<u64>)> = None;
            let held = plain
                .iter()
                .enumerate()
                .filter_map(|(slot, state)| Some((slot as u32, state.as_ref()?)));
            for (i, (slot, state)) in held.clone().chain(held).enumerate() {
                let mut changes: Vec<(u32, u64)> = match last {
                    Some((_, prev)) => (0..words as u32)
                        .filter(|&w| prev[w as usize] != state[w as usize])
                        .map(|w| (w, state[w as usize]))
                        .collect(),
                    None => Vec::new(),
                };
                let known = match (i % 3, last) {
                    (0, Some((entry, _))) => Known::Like(entry, &mut changes[..]),
                    (1, _) if !blocks.is_whole() => Known::Slot(slot),
                    _ => Known::Nothing,
                };
                let (entry, _) = set.insert_hashed(&mut blocks, state, state_hash(state), known);
                last = Some((entry, state));
            }
            assert_eq!(set.len(), distinct.len());
            let back: std::collections::HashSet<Vec<u64>> = set.states(&blocks).collect();
            assert_eq!(back.len(), distinct.len());
            assert!(back.iter().all(|s| distinct.contains(s)));
            // The set's trees outlive the slots they were shared with.
            for s in 0..plain.len() as u32 {
                blocks.take(s);
            }
            let again: std::collections::HashSet<Vec<u64>> = set.states(&blocks).collect();
            assert_eq!(again, back);
            set.clear(&mut blocks);
            // Every block freed once every state is taken and the set gave its trees back.
            assert!(blocks.whole || blocks.block_refs.iter().all(|&r| r == 0));
            assert!(blocks.node_refs.iter().all(|&r| r == 0));
            assert_eq!(blocks.free_blocks.len(), blocks.block_refs.len());
            assert_eq!(blocks.free_nodes.len(), blocks.node_refs.len());
        }
    }
}
