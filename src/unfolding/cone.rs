//! Cones as persistent radix trees over the slots, sharing structure between events.
//!
//! An event's cone maps every slot to the node of the last event of its local configuration on
//! that slot (⊥'s node `s` on slot `s` where there is none). Stored flat, a cone costs one entry
//! per slot, and a system with many slots whose events reach far (a chain of `n` transitions
//! has `n` slots and its `i`-th event names `i` of them) costs O(n²) memory. But an event's cone
//! differs from its predecessors' in few places: on its own slots, and where predecessors
//! disagree. So cones are stored as trees of fixed blocks, [`FANOUT`] entries each, and a new
//! cone copies only the paths down to the blocks that changed; every other subtree is shared.
//!
//! - A leaf block holds the nodes of [`FANOUT`] consecutive slots; an inner block the ids of
//!   [`FANOUT`] subtrees. Block 0 is the empty subtree (⊥ on every slot below it), at any level.
//! - Blocks are reference counted, so that a removed event gives back what only it used.
//! - Two cones that share a subtree agree on all its slots: the comparisons of causality and
//!   conflict skip it without looking inside.
//!
//! A forest over few slots (at most [`FLAT_MAX`]) can be [flattened](ConeForest::flatten):
//! each cone becomes one leaf as wide as all the slots, at most 512 bytes, which costs less to
//! build and to read than a path of blocks. Whether it also costs no more memory depends on
//! how many blocks the system's events change, which the store measures before it decides.

/// Entries per block, as a power of two.
const FANOUT_BITS: u32 = 4;

/// Entries per block: a leaf of 16 nodes is one 64-byte cache line.
pub const FANOUT: usize = 1 << FANOUT_BITS;

/// A block of a tree of height 2 or more: [`FANOUT`] slots' nodes (a leaf) or subtrees (an
/// inner block).
type TreeBlock = [u32; FANOUT];

/// The most slots for which cones can be flat (a tree of height 1 whose one leaf holds every
/// slot).
pub const FLAT_MAX: usize = 8 * FANOUT;

/// The empty subtree: ⊥ on every slot below it.
pub const EMPTY: u32 = 0;

/// How an event store lays out its cones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConeLayout {
    /// Trees, flattened once enough events are stored if flat cones would not cost much more
    /// memory (see `EventStore::choose_cone_layout`).
    #[default]
    Auto,
    /// Trees throughout.
    Tree,
    /// Flat from the start where the system has at most [`FLAT_MAX`] slots; trees otherwise.
    Flat,
}

/// How [`ConeForest::build`] tells the deeper of two nodes on one branch of a slot's tree.
pub enum Deeper<F> {
    /// The larger node index is the deeper: nodes were numbered in the order they were made,
    /// and a node is made after its parent.
    ByIndex,
    /// By their depths, as the function gives them.
    ByDepth(F),
}

/// The cones of a store's events: an arena of reference-counted blocks.
pub struct ConeForest {
    /// The number of slots.
    slots: u32,
    /// Levels of a tree: 1 when a root is a leaf.
    height: u32,
    /// Entries per block: [`FANOUT`], or in a flat forest all the slots (padded).
    width: usize,
    /// Takes a slot to its entry in its leaf.
    leaf_mask: u32,
    /// The blocks, `width` entries each: slots' nodes (a leaf) or subtrees (an inner block).
    blocks: Vec<u32>,
    /// References to each block (from events' roots and from inner blocks).
    refs: Vec<u32>,
    /// Ids of freed blocks, for reuse.
    free: Vec<u32>,
    /// Scratch room of [`build`](Self::build): the subtrees being merged, level by level.
    stack: Vec<u32>,
    /// Scratch room of [`build`](Self::build): the leaf being merged.
    leaf: Vec<u32>,
    /// Whether flat leaves are merged with AVX2 (the processor has it).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl ConeForest {
    /// An empty forest for cones over `slots` slots.
    pub fn new(slots: usize) -> Self {
        let mut height = 1;
        while (FANOUT as u64).pow(height) < slots as u64 {
            height += 1;
        }
        Self::with_layout(slots, height, FANOUT)
    }

    /// An empty forest of flat cones over `slots` (at most [`FLAT_MAX`]) slots.
    pub fn new_flat(slots: usize) -> Self {
        debug_assert!(slots <= FLAT_MAX);
        Self::with_layout(slots, 1, Self::flat_width(slots))
    }

    /// The width of a flat cone over `slots` slots: whole leaves.
    fn flat_width(slots: usize) -> usize {
        slots.next_multiple_of(FANOUT).max(FANOUT)
    }

    fn with_layout(slots: usize, height: u32, width: usize) -> Self {
        // In a tree of height 1 the root is the one leaf, and every slot's entry is its own.
        let leaf_mask = if height == 1 {
            u32::MAX
        } else {
            FANOUT as u32 - 1
        };
        ConeForest {
            slots: slots as u32,
            height,
            width,
            leaf_mask,
            // Block 0 is the empty subtree; it is never freed.
            blocks: vec![0; width],
            refs: vec![u32::MAX],
            free: Vec::new(),
            stack: Vec::new(),
            leaf: Vec::new(),
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
        }
    }

    /// The entries of block `b`.
    #[inline]
    fn block(&self, b: u32) -> &[u32] {
        &self.blocks[b as usize * self.width..][..self.width]
    }

    /// Block `b` of a tree of height 2 or more (whose blocks are all [`FANOUT`] wide).
    #[inline]
    fn tree_block(&self, b: u32) -> &TreeBlock {
        debug_assert_eq!(self.width, FANOUT);
        self.blocks[b as usize * FANOUT..][..FANOUT]
            .try_into()
            .expect("a block of FANOUT entries")
    }

    /// The shift that selects the entry of a slot in a block at `level` (0 for leaves).
    #[inline]
    fn shift(level: u32) -> u32 {
        FANOUT_BITS * level
    }

    /// The node of cone `root` on slot `s`.
    #[inline]
    pub fn get(&self, root: u32, s: u32) -> u32 {
        self.in_leaf(self.leaf(root, s), s)
    }

    /// [`get`](Self::get) for many cones on one slot: `roots` are replaced by their nodes on
    /// slot `s`. The lookups go level by level across all the cones, so that their cache
    /// misses overlap instead of each waiting for the one before.
    pub fn get_each(&self, s: u32, roots: &mut [u32]) {
        for level in (1..self.height).rev() {
            let at = ((s >> Self::shift(level)) as usize) & (FANOUT - 1);
            for b in roots.iter_mut() {
                if *b != EMPTY {
                    *b = self.tree_block(*b)[at];
                }
            }
        }
        for b in roots.iter_mut() {
            *b = self.in_leaf(*b, s);
        }
    }

    /// The node of slot `s` in its leaf block `leaf` ([`EMPTY`]: ⊥'s node `s`).
    #[inline]
    fn in_leaf(&self, leaf: u32, s: u32) -> u32 {
        if leaf == EMPTY {
            s
        } else {
            self.blocks[leaf as usize * self.width + (s & self.leaf_mask) as usize]
        }
    }

    /// The runs of the sorted `slots` that lie in one leaf: their number (for the tests, a
    /// count made apart from [`leaf_run_indexes`](Self::leaf_run_indexes)).
    #[cfg(test)]
    pub fn leaf_runs(slots: &[u32]) -> usize {
        slots
            .chunk_by(|a, b| a >> FANOUT_BITS == b >> FANOUT_BITS)
            .count()
    }

    /// For each of the sorted `slots`, the index of its run of slots in one leaf (runs of
    /// consecutive slots that one leaf block holds), written to `runs`.
    pub fn leaf_run_indexes(slots: &[u32], runs: &mut Vec<u32>) {
        runs.clear();
        let mut run = 0;
        for (i, &s) in slots.iter().enumerate() {
            if i > 0 && slots[i - 1] >> FANOUT_BITS != s >> FANOUT_BITS {
                run += 1;
            }
            runs.push(run);
        }
    }

    /// [`for_new_slots_of_runs`](Self::for_new_slots_of_runs) over all of the sorted
    /// `slots`, keyed by their index (the search for histories folds over sub-lists; this form
    /// is for the tests).
    #[cfg(test)]
    pub fn for_new_slots(
        &self,
        root: u32,
        slots: &[u32],
        merged: &mut [u32],
        f: impl FnMut(usize, u32),
    ) {
        let mut runs = Vec::new();
        Self::leaf_run_indexes(slots, &mut runs);
        let picked = slots.iter().zip(&runs).enumerate();
        self.for_new_slots_of_runs(root, picked.map(|(i, (&s, &r))| (i, s, r)), merged, f);
    }

    /// The nodes of cone `root` on some sorted slots, passed to `f` (one descent per leaf, not
    /// per slot): `picked` gives, in increasing order of slot, a key passed to `f`, the slot,
    /// and the index in `merged` of its run of slots in one leaf
    /// ([`leaf_run_indexes`](Self::leaf_run_indexes) of a list it is part of). A run whose
    /// block is the one `merged` names for it is skipped, and `merged` names the blocks read
    /// (`u32::MAX` for none). A caller that folds the nodes into a maximum over a set of slots
    /// that only shrinks from call to call needs a block once; blocks do not change while in
    /// use.
    #[inline]
    pub fn for_new_slots_of_runs(
        &self,
        root: u32,
        picked: impl Iterator<Item = (usize, u32, u32)>,
        merged: &mut [u32],
        mut f: impl FnMut(usize, u32),
    ) {
        let mut run = u32::MAX;
        let mut leaf = EMPTY;
        let mut skip = false;
        for (key, s, r) in picked {
            if r != run {
                run = r;
                leaf = self.leaf(root, s);
                skip = merged[r as usize] == leaf;
                merged[r as usize] = leaf;
            }
            if !skip {
                f(key, self.in_leaf(leaf, s));
            }
        }
    }

    /// The leaf block of cone `root` holding slot `s` ([`EMPTY`] when it is all ⊥).
    #[inline]
    fn leaf(&self, root: u32, s: u32) -> u32 {
        let mut b = root;
        let mut level = self.height - 1;
        while level > 0 && b != EMPTY {
            b = self.tree_block(b)[((s >> Self::shift(level)) as usize) & (FANOUT - 1)];
            level -= 1;
        }
        b
    }

    /// A new cone (with one reference, the caller's): on every slot the deepest of the nodes
    /// the cones `inputs` name there (they must lie on one branch of the slot's tree, as the
    /// cones of the events of one configuration do), then `own` (sorted by slot) on top.
    /// `deeper` tells which of two nodes on one branch is the deeper.
    pub fn build<F: Fn(u32) -> u32>(
        &mut self,
        inputs: &[u32],
        own: &[(u32, u32)],
        deeper: Deeper<F>,
    ) -> u32 {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        for &b in inputs {
            push_distinct(&mut stack, 0, b);
        }
        let root = if own.is_empty() && stack.len() <= 1 {
            let b = stack.first().copied().unwrap_or(EMPTY);
            self.share(b);
            b
        } else if stack.len() <= 1 && self.height > 1 {
            // One input (an event with one predecessor, or ⊥ alone): nothing to merge, the
            // input's paths down to the own entries are copied and the rest shared.
            let b = stack.first().copied().unwrap_or(EMPTY);
            self.copy_paths(b, self.height - 1, 0, own)
        } else if stack.len() <= 1 {
            // The same, flat: the input's block with the own entries on top (no merge).
            let mut leaf = std::mem::take(&mut self.leaf);
            leaf.clear();
            match stack.first() {
                Some(&b) => leaf.extend_from_slice(self.block(b)),
                None => leaf.extend(0..self.width as u32),
            }
            for &(s, node) in own {
                leaf[s as usize] = node;
            }
            let b = self.alloc(&leaf);
            self.leaf = leaf;
            b
        } else {
            self.build_at(&mut stack, 0, self.height - 1, 0, own, &deeper)
        };
        self.stack = stack;
        root
    }

    /// [`build`](Self::build) from one input: the subtree `b` at `level` (of a tree of height 2
    /// or more) whose first slot is `base`, with the non-empty `own` (sorted, below it) on top.
    /// Blocks are copied only on the paths down to `own`'s slots.
    fn copy_paths(&mut self, b: u32, level: u32, base: u32, own: &[(u32, u32)]) -> u32 {
        if level == 0 {
            let mut leaf: TreeBlock = if b == EMPTY {
                std::array::from_fn(|i| base + i as u32)
            } else {
                *self.tree_block(b)
            };
            for &(s, node) in own {
                leaf[(s - base) as usize] = node;
            }
            return self.alloc(&leaf);
        }
        let shift = Self::shift(level);
        let mut children: TreeBlock = if b == EMPTY {
            [EMPTY; FANOUT]
        } else {
            *self.tree_block(b)
        };
        let mut rest = own;
        let mut next = 0;
        while let Some(&(s, _)) = rest.first() {
            let c = ((s - base) >> shift) as usize;
            let child_base = base + ((c as u32) << shift);
            let split = rest
                .iter()
                .position(|&(s, _)| s >= child_base + (1 << shift))
                .unwrap_or(rest.len());
            let (mine, later) = rest.split_at(split);
            rest = later;
            for &child in &children[next..c] {
                self.share(child);
            }
            // The input's child is not referenced by the new block: its copy replaces it.
            children[c] = self.copy_paths(children[c], level - 1, child_base, mine);
            next = c + 1;
        }
        for &child in &children[next..] {
            self.share(child);
        }
        self.alloc(&children)
    }

    /// [`build`](Self::build) of the subtree at `level` whose first slot is `base`, from the
    /// distinct non-empty subtrees `stack[from..]` (two at least, or entries of its own);
    /// leaves the stack as it found it.
    fn build_at(
        &mut self,
        stack: &mut Vec<u32>,
        from: usize,
        level: u32,
        base: u32,
        own: &[(u32, u32)],
        deeper: &Deeper<impl Fn(u32) -> u32>,
    ) -> u32 {
        let end = stack.len();
        if level == 0 {
            let inputs = &stack[from..end];
            // Without entries of its own the result may equal an input: share that one instead.
            // Leaves of a tree are arrays of a known size, moved without calls to `memcpy`.
            if self.height > 1 {
                let mut leaf: TreeBlock = [0; FANOUT];
                self.merge_leaves(inputs, base, own, deeper, &mut leaf, |b| self.tree_block(b));
                let same = own.is_empty().then(|| {
                    inputs
                        .iter()
                        .copied()
                        .find(|&b| *self.tree_block(b) == leaf)
                });
                return self.share_or_alloc(same.flatten(), &leaf);
            }
            let mut leaf = std::mem::take(&mut self.leaf);
            leaf.resize(self.width, 0);
            #[cfg(target_arch = "x86_64")]
            if self.avx2 {
                // SAFETY: the processor has AVX2 (checked when the forest was made).
                unsafe { self.merge_flat_avx2(inputs, own, deeper, &mut leaf) };
            } else {
                self.merge_flat(inputs, own, deeper, &mut leaf);
            }
            #[cfg(not(target_arch = "x86_64"))]
            self.merge_flat(inputs, own, deeper, &mut leaf);
            let same = own
                .is_empty()
                .then(|| inputs.iter().copied().find(|&b| self.block(b) == leaf));
            let b = self.share_or_alloc(same.flatten(), &leaf);
            self.leaf = leaf;
            return b;
        }
        let shift = Self::shift(level);
        let mut children: TreeBlock = [EMPTY; FANOUT];
        let mut rest = own;
        for (c, child) in children.iter_mut().enumerate() {
            let child_base = base + ((c as u32) << shift);
            if child_base >= self.slots {
                break;
            }
            let limit = child_base + (1 << shift);
            let split = rest
                .iter()
                .position(|&(s, _)| s >= limit)
                .unwrap_or(rest.len());
            let (mine, later) = rest.split_at(split);
            rest = later;
            for i in from..end {
                let b = self.tree_block(stack[i])[c];
                push_distinct(stack, end, b);
            }
            // Most children are one input's subtree, or none: shared as they are.
            *child = if mine.is_empty() && stack.len() - end <= 1 {
                let b = stack.get(end).copied().unwrap_or(EMPTY);
                self.share(b);
                b
            } else {
                self.build_at(stack, end, level - 1, child_base, mine, deeper)
            };
            stack.truncate(end);
        }
        // As for leaves: an inner block equal to an input's is that input.
        if own.is_empty()
            && let Some(&same) = stack[from..end]
                .iter()
                .find(|&&b| *self.tree_block(b) == children)
        {
            for &child in &children {
                self.unshare(child);
            }
            self.share(same);
            return same;
        }
        self.alloc(&children)
    }

    /// A reference to `same` if there is one, else a new block holding `block`.
    #[inline]
    fn share_or_alloc(&mut self, same: Option<u32>, block: &[u32]) -> u32 {
        match same {
            Some(b) => {
                self.share(b);
                b
            }
            None => self.alloc(block),
        }
    }

    /// [`merge_leaves`](Self::merge_leaves) for a flat forest's one leaf.
    #[inline(always)]
    fn merge_flat(
        &self,
        inputs: &[u32],
        own: &[(u32, u32)],
        deeper: &Deeper<impl Fn(u32) -> u32>,
        leaf: &mut [u32],
    ) {
        self.merge_leaves(inputs, 0, own, deeper, leaf, |b| self.block(b));
    }

    /// [`merge_flat`](Self::merge_flat) compiled for AVX2, which has an unsigned 32-bit
    /// maximum: baseline x86-64 emulates it with several instructions, and flat cones spend
    /// most of their building in it.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn merge_flat_avx2(
        &self,
        inputs: &[u32],
        own: &[(u32, u32)],
        deeper: &Deeper<impl Fn(u32) -> u32>,
        leaf: &mut [u32],
    ) {
        self.merge_flat(inputs, own, deeper, leaf);
    }

    /// Writes into `leaf` the leaf whose first slot is `base`, merged from the (distinct,
    /// non-empty) leaves `inputs`, with `own` on top; `block` reads a leaf.
    #[inline(always)]
    fn merge_leaves<'a, B: AsRef<[u32]> + AsMut<[u32]> + ?Sized + 'a>(
        &'a self,
        inputs: &[u32],
        base: u32,
        own: &[(u32, u32)],
        deeper: &Deeper<impl Fn(u32) -> u32>,
        leaf: &mut B,
        block: impl Fn(u32) -> &'a B,
    ) {
        let leaf = leaf.as_mut();
        match inputs.first() {
            Some(&b) => leaf.copy_from_slice(block(b).as_ref()),
            None => leaf
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = base + i as u32),
        }
        for &b in inputs.iter().skip(1) {
            let other = block(b).as_ref();
            match deeper {
                // ⊥'s node s is below every event's node: the larger index is deeper on every
                // slot. Element-wise maxima, which the compiler vectorises.
                Deeper::ByIndex => {
                    for (x, &y) in leaf.iter_mut().zip(other) {
                        *x = (*x).max(y);
                    }
                }
                Deeper::ByDepth(depth) => {
                    for (i, (x, &y)) in leaf.iter_mut().zip(other).enumerate() {
                        let s = base + i as u32;
                        // Only entries of events need a depth: ⊥ (node s) is below them.
                        if *x != y && y != s && (*x == s || depth(y) > depth(*x)) {
                            *x = y;
                        }
                    }
                }
            }
        }
        for &(s, node) in own {
            leaf[(s - base) as usize] = node;
        }
    }

    /// Adds a reference to block `b`.
    #[inline]
    fn share(&mut self, b: u32) {
        if b != EMPTY {
            self.refs[b as usize] += 1;
        }
    }

    /// Drops a reference to block `b`, which is still referenced elsewhere.
    #[inline]
    fn unshare(&mut self, b: u32) {
        if b != EMPTY {
            debug_assert!(self.refs[b as usize] > 1);
            self.refs[b as usize] -= 1;
        }
    }

    #[inline]
    fn alloc(&mut self, block: &[u32]) -> u32 {
        // The length of `block` (the width) is a constant where the caller's is.
        debug_assert_eq!(block.len(), self.width);
        match self.free.pop() {
            Some(b) => {
                let w = block.len();
                self.blocks[b as usize * w..][..w].copy_from_slice(block);
                self.refs[b as usize] = 1;
                b
            }
            None => {
                let b = self.refs.len() as u32;
                // Whole blocks at a time, so that the vector never doubles.
                if self.blocks.capacity() - self.blocks.len() < self.width {
                    let blocks = (self.refs.len() / 8).max(256);
                    self.blocks.reserve_exact(blocks * self.width);
                }
                grow(&mut self.refs);
                self.blocks.extend_from_slice(block);
                self.refs.push(1);
                b
            }
        }
    }

    /// Drops the caller's reference to cone `root`: blocks nothing else uses are freed.
    pub fn release(&mut self, root: u32) {
        self.release_at(root, self.height - 1);
    }

    fn release_at(&mut self, b: u32, level: u32) {
        if b == EMPTY {
            return;
        }
        self.refs[b as usize] -= 1;
        if self.refs[b as usize] == 0 {
            if level > 0 {
                for c in *self.tree_block(b) {
                    self.release_at(c, level - 1);
                }
            }
            self.free.push(b);
        }
    }

    /// Whether `f(s, x, y)` holds for the nodes `x` of cone `a` and `y` of cone `b` on some
    /// slot `s` where both name an event (not ⊥) and the nodes differ. Shared subtrees are
    /// skipped.
    #[inline]
    pub fn any_shared(&self, a: u32, b: u32, mut f: impl FnMut(u32, u32, u32) -> bool) -> bool {
        self.any_shared_at(a, b, self.height - 1, 0, &mut f)
    }

    fn any_shared_at(
        &self,
        a: u32,
        b: u32,
        level: u32,
        base: u32,
        f: &mut impl FnMut(u32, u32, u32) -> bool,
    ) -> bool {
        if a == b || a == EMPTY || b == EMPTY {
            return false;
        }
        if level == 0 {
            let n = (self.slots - base).min(self.width as u32) as usize;
            let (ba, bb) = (&self.block(a)[..n], &self.block(b)[..n]);
            return ba
                .iter()
                .zip(bb)
                .zip(base..)
                .any(|((&x, &y), s)| x != y && x != s && y != s && f(s, x, y));
        }
        let (ba, bb) = (self.tree_block(a), self.tree_block(b));
        let shift = Self::shift(level);
        (0..FANOUT).any(|c| {
            let child_base = base + ((c as u32) << shift);
            child_base < self.slots && self.any_shared_at(ba[c], bb[c], level - 1, child_base, f)
        })
    }

    /// Calls `f(s, x, y)` for every slot `s` in the set `only` (a bitset over the slots) where
    /// cone `a` names node `x` and cone `b` a different node `y` (⊥'s node `s` included).
    /// Shared subtrees are skipped.
    #[inline]
    pub fn for_each_difference(
        &self,
        a: u32,
        b: u32,
        only: &[u64],
        mut f: impl FnMut(u32, u32, u32),
    ) {
        debug_assert!(only.len() * 64 >= self.slots as usize);
        if self.height == 1 {
            // Flat cones, or one leaf: the common case, in whole leaves of 16 entries whose
            // comparisons the compiler vectorises.
            self.differences_in_leaf(a, b, 0, only, &mut f);
        } else {
            self.differences_at(a, b, self.height - 1, 0, only, &mut f);
        }
    }

    fn differences_at(
        &self,
        a: u32,
        b: u32,
        level: u32,
        base: u32,
        only: &[u64],
        f: &mut impl FnMut(u32, u32, u32),
    ) {
        if a == b {
            return;
        }
        if level == 0 {
            self.differences_in_leaf(a, b, base, only, f);
            return;
        }
        let child = |x: u32, c: usize| {
            if x == EMPTY {
                EMPTY
            } else {
                self.tree_block(x)[c]
            }
        };
        let shift = Self::shift(level);
        for c in 0..FANOUT {
            let child_base = base + ((c as u32) << shift);
            if child_base >= self.slots {
                break;
            }
            self.differences_at(child(a, c), child(b, c), level - 1, child_base, only, f);
        }
    }

    /// [`for_each_difference`](Self::for_each_difference) in the leaves `a` and `b`, whose
    /// first slot is `base`.
    #[inline(always)]
    fn differences_in_leaf(
        &self,
        a: u32,
        b: u32,
        base: u32,
        only: &[u64],
        f: &mut impl FnMut(u32, u32, u32),
    ) {
        if a == b {
            return;
        }
        let n = (self.slots - base).min(self.width as u32) as usize;
        // ⊥'s nodes are the slots themselves: an empty leaf reads as `base + i`. (The leaves
        // are compared where they lie: copied out first, the copies cost stalls on reading
        // them back.)
        let bottom: TreeBlock = std::array::from_fn(|i| i as u32);
        for chunk in (0..n).step_by(FANOUT) {
            let at = base + chunk as u32;
            let read = |x: u32| -> Option<&[u32; FANOUT]> {
                (x != EMPTY).then(|| {
                    self.block(x)[chunk..chunk + FANOUT]
                        .try_into()
                        .expect("leaves are whole chunks")
                })
            };
            let entry = |x: Option<&[u32; FANOUT]>, i: usize| x.map_or(at + i as u32, |x| x[i]);
            let (xa, xb) = (read(a), read(b));
            // Leaves start at multiples of 16, so their slots lie in one word of `only`
            // (which has no bits past the last slot).
            const { assert!(FANOUT == 16) };
            let first = at as usize;
            let mut differ = (only[first / 64] >> (first % 64)) as u32 & 0xFFFF;
            let mut unequal = 0u32;
            match (xa, xb) {
                (Some(xa), Some(xb)) => {
                    for i in 0..FANOUT {
                        unequal |= u32::from(xa[i] != xb[i]) << i;
                    }
                }
                (Some(x), None) | (None, Some(x)) => {
                    for i in 0..FANOUT {
                        unequal |= u32::from(x[i] != at + bottom[i]) << i;
                    }
                }
                (None, None) => {}
            }
            differ &= unequal;
            while differ != 0 {
                let i = differ.trailing_zeros() as usize;
                differ &= differ - 1;
                f(first as u32 + i as u32, entry(xa, i), entry(xb, i));
            }
        }
    }

    /// Whether `f(s, x)` holds for some slot `s` where cone `root` names an event's node `x`
    /// (not ⊥).
    #[inline]
    pub fn any_entry(&self, root: u32, mut f: impl FnMut(u32, u32) -> bool) -> bool {
        self.any_entry_at(root, self.height - 1, 0, &mut f)
    }

    fn any_entry_at(
        &self,
        b: u32,
        level: u32,
        base: u32,
        f: &mut impl FnMut(u32, u32) -> bool,
    ) -> bool {
        if b == EMPTY {
            return false;
        }
        if level == 0 {
            let n = (self.slots - base).min(self.width as u32) as usize;
            return self.block(b)[..n]
                .iter()
                .zip(base..)
                .any(|(&x, s)| x != s && f(s, x));
        }
        let block = self.tree_block(b);
        let shift = Self::shift(level);
        (0..FANOUT).any(|c| {
            let child_base = base + ((c as u32) << shift);
            child_base < self.slots && self.any_entry_at(block[c], level - 1, child_base, f)
        })
    }

    /// Blocks in use (the empty one excluded).
    pub fn blocks_in_use(&self) -> usize {
        self.refs.len() - 1 - self.free.len()
    }

    /// Whether every cone is one flat array: a tree of height 1 (over at most [`FANOUT`]
    /// slots, or [flattened](Self::flatten)).
    pub fn is_flat(&self) -> bool {
        self.height == 1
    }

    /// Bytes of the blocks in use.
    pub fn bytes_in_use(&self) -> u64 {
        (self.blocks_in_use() * self.width * 4) as u64
    }

    /// The bytes of one cone if the forest were flattened; `None` when it cannot be (too many
    /// slots) or is flat already.
    pub fn flat_cone_bytes(&self) -> Option<u64> {
        (self.height > 1 && self.slots as usize <= FLAT_MAX)
            .then(|| (Self::flat_width(self.slots as usize) * 4) as u64)
    }

    /// Rebuilds the forest with flat cones (see [`flat_cone_bytes`](Self::flat_cone_bytes)):
    /// `roots` are all the references to cones, rewritten to name the new ones.
    pub fn flatten<'a>(&mut self, roots: impl IntoIterator<Item = &'a mut u32>) {
        debug_assert!(self.flat_cone_bytes().is_some());
        let mut flat = Self::new_flat(self.slots as usize);
        #[cfg(target_arch = "x86_64")]
        {
            flat.avx2 = self.avx2;
        }
        let mut leaf: Vec<u32> = (0..flat.width as u32).collect();
        let mut done: rustc_hash::FxHashMap<u32, u32> = Default::default();
        for root in roots {
            if *root == EMPTY {
                continue;
            }
            *root = match done.get(root) {
                Some(&b) => {
                    flat.share(b);
                    b
                }
                None => {
                    // One descent per leaf of the tree, whose entries past the last slot are
                    // ⊥'s (node s on slot s), as in a flat cone.
                    for (l, part) in leaf.chunks_exact_mut(FANOUT).enumerate() {
                        let first = (l * FANOUT) as u32;
                        if first >= self.slots {
                            break;
                        }
                        match self.leaf(*root, first) {
                            EMPTY => part.iter_mut().zip(first..).for_each(|(x, s)| *x = s),
                            b => part.copy_from_slice(self.tree_block(b)),
                        }
                    }
                    let b = flat.alloc(&leaf);
                    done.insert(*root, b);
                    b
                }
            };
        }
        *self = flat;
    }

    /// Bytes held (allocated capacity).
    pub fn bytes(&self) -> u64 {
        ((self.blocks.capacity()
            + self.refs.capacity()
            + self.free.capacity()
            + self.stack.capacity()
            + self.leaf.capacity())
            * 4) as u64
    }
}

/// Pushes the subtree `b` onto `stack` unless it is empty or among `stack[from..]` already.
#[inline]
fn push_distinct(stack: &mut Vec<u32>, from: usize, b: u32) {
    if b != EMPTY && !stack[from..].contains(&b) {
        stack.push(b);
    }
}

/// Makes room for one more element, growing by an eighth at a time instead of doubling, so
/// that the forest's allocations track its contents closely under a memory limit.
fn grow<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(256));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A flat cone: the node of every slot. Nodes are numbered so that ⊥'s node on slot `s`
    /// is `s`, and an event's node on slot `s` is `slots + depth * slots + s`: the depth can
    /// be read back, and nodes of one slot at different depths differ.
    fn node(slots: u32, s: u32, depth: u32) -> u32 {
        if depth == 0 {
            s
        } else {
            slots + depth * slots + s
        }
    }

    fn depth_of(slots: u32) -> impl Fn(u32) -> u32 {
        move |n| if n < slots { 0 } else { (n - slots) / slots }
    }

    /// Builds cones from earlier ones as `build` would be used by the store, and checks every
    /// one against a flat model: lookups, the shared-slot walk, the entry walk, and that
    /// releasing everything frees every block.
    /// One cone to build: indexes of earlier cones to merge, and (slot, extra depth) pairs of
    /// its own.
    type Step = (Vec<usize>, Vec<(u32, u32)>);

    /// The forest is flattened before step `flatten_at` where it can be; `avx2` false merges
    /// flat leaves without AVX2 even where the processor has it.
    fn check(slots: u32, steps: Vec<Step>, by_index: bool, flatten_at: usize, avx2: bool) {
        let mut forest = ConeForest::new(slots as usize);
        #[cfg(target_arch = "x86_64")]
        {
            forest.avx2 &= avx2;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = avx2;
        let depth = depth_of(slots);
        let mut roots = vec![EMPTY];
        let mut flats: Vec<Vec<u32>> = vec![(0..slots).collect()];
        for (step, (inputs, own)) in steps.into_iter().enumerate() {
            if step == flatten_at && forest.flat_cone_bytes().is_some() {
                forest.flatten(roots.iter_mut());
                for (&root, flat) in roots.iter().zip(&flats) {
                    for s in 0..slots {
                        assert_eq!(forest.get(root, s), flat[s as usize], "slot {s}, flattened");
                    }
                }
            }
            let inputs: Vec<usize> = inputs.into_iter().map(|i| i % roots.len()).collect();
            let mut own: Vec<(u32, u32)> =
                own.into_iter().map(|(s, d)| (s % slots, 1 + d)).collect();
            own.sort();
            own.dedup_by_key(|x| x.0);
            let mut flat: Vec<u32> = (0..slots).collect();
            for &i in &inputs {
                for s in 0..slots as usize {
                    if depth(flats[i][s]) > depth(flat[s]) {
                        flat[s] = flats[i][s];
                    }
                }
            }
            let own: Vec<(u32, u32)> = own
                .into_iter()
                .map(|(s, d)| (s, node(slots, s, depth(flat[s as usize]) + d)))
                .collect();
            for &(s, n) in &own {
                flat[s as usize] = n;
            }
            let input_roots: Vec<u32> = inputs.iter().map(|&i| roots[i]).collect();
            // `node` numbers deeper nodes of a slot higher, as the store does until it reuses
            // the room of removed events.
            let deeper = if by_index {
                Deeper::ByIndex
            } else {
                Deeper::ByDepth(&depth)
            };
            let root = forest.build(&input_roots, &own, deeper);
            for s in 0..slots {
                assert_eq!(forest.get(root, s), flat[s as usize], "slot {s}");
            }
            // Every cone so far and this one at once, on each slot.
            for s in 0..slots {
                let mut nodes: Vec<u32> = roots.iter().copied().chain([root]).collect();
                forest.get_each(s, &mut nodes);
                let want: Vec<u32> = flats.iter().chain([&flat]).map(|f| f[s as usize]).collect();
                assert_eq!(nodes, want, "slot {s}, all cones");
            }
            let all: Vec<u32> = (0..slots).collect();
            let mut merged = vec![u32::MAX; ConeForest::leaf_runs(&all)];
            forest.for_new_slots(root, &all, &mut merged, |i, n| assert_eq!(n, flat[i]));
            let mut seen = Vec::new();
            forest.any_entry(root, |s, n| {
                seen.push((s, n));
                false
            });
            let want: Vec<(u32, u32)> = (0..slots)
                .filter(|&s| flat[s as usize] != s)
                .map(|s| (s, flat[s as usize]))
                .collect();
            assert_eq!(seen, want);
            for (other, other_flat) in roots.iter().zip(&flats) {
                let mut pairs = Vec::new();
                forest.any_shared(root, *other, |s, x, y| {
                    assert!(x != s && y != s, "⊥ is left out");
                    pairs.push((x, y));
                    false
                });
                let want: Vec<(u32, u32)> = (0..slots as usize)
                    .map(|s| (flat[s], other_flat[s], s as u32))
                    .filter(|&(x, y, s)| x != y && x != s && y != s)
                    .map(|(x, y, _)| (x, y))
                    .collect();
                assert_eq!(pairs, want);
                // The slots where the two differ, among every third slot and a few more.
                let only: Vec<u64> = (0..(slots as usize).div_ceil(64).max(1))
                    .map(|w| {
                        (0..64)
                            .filter(|&i| {
                                let s = w * 64 + i;
                                s < slots as usize && (s % 3 == 0 || s % 7 == 5)
                            })
                            .fold(0u64, |m, i| m | 1 << i)
                    })
                    .collect();
                let mut differences = Vec::new();
                forest.for_each_difference(root, *other, &only, |s, x, y| {
                    differences.push((s, x, y));
                });
                let want: Vec<(u32, u32, u32)> = (0..slots)
                    .filter(|&s| only[s as usize / 64] >> (s % 64) & 1 == 1)
                    .map(|s| (s, flat[s as usize], other_flat[s as usize]))
                    .filter(|&(_, x, y)| x != y)
                    .collect();
                assert_eq!(differences, want);
                // Folding both cones into a maximum over some of the slots, leaves already
                // merged skipped: the same maximum, and a cone merged twice is read once.
                let some: Vec<u32> = (0..slots).filter(|s| s % 3 != 1).collect();
                let mut merged = vec![u32::MAX; ConeForest::leaf_runs(&some)];
                let mut max = vec![0; some.len()];
                for r in [root, *other, root] {
                    forest.for_new_slots(r, &some, &mut merged, |i, n| {
                        max[i] = max[i].max(depth(n));
                    });
                }
                let want: Vec<u32> = some
                    .iter()
                    .map(|&s| depth(flat[s as usize]).max(depth(other_flat[s as usize])))
                    .collect();
                assert_eq!(max, want);
                let mut again = 0;
                forest.for_new_slots(root, &some, &mut merged, |_, _| again += 1);
                assert_eq!(again, 0, "nodes of a cone just merged read again");
                // Over a set of slots that shrinks from cone to cone (all of `some`, then
                // every other one), the runs named by index: each slot's maximum over the
                // cones whose set held it.
                let mut runs = Vec::new();
                ConeForest::leaf_run_indexes(&some, &mut runs);
                assert_eq!(
                    runs.last().map_or(0, |&r| r as usize + 1),
                    ConeForest::leaf_runs(&some)
                );
                let mut merged = vec![u32::MAX; ConeForest::leaf_runs(&some)];
                let mut max = vec![0; some.len()];
                for (r, step) in [(root, 1), (*other, 2), (root, 2)] {
                    let picked = (0..some.len()).step_by(step).map(|i| (i, some[i], runs[i]));
                    forest.for_new_slots_of_runs(r, picked, &mut merged, |i, n| {
                        max[i] = max[i].max(depth(n));
                    });
                }
                let want: Vec<u32> = some
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| {
                        let mine = depth(flat[s as usize]);
                        if i % 2 == 0 {
                            mine.max(depth(other_flat[s as usize]))
                        } else {
                            mine
                        }
                    })
                    .collect();
                assert_eq!(max, want);
            }
            roots.push(root);
            flats.push(flat);
        }
        for &r in &roots[1..] {
            forest.release(r);
        }
        assert_eq!(forest.blocks_in_use(), 0);
    }

    #[test]
    fn a_chain_shares_all_but_one_path() {
        let slots = 1000u32;
        let mut forest = ConeForest::new(slots as usize);
        let depth = depth_of(slots);
        let mut root = EMPTY;
        let mut roots = Vec::new();
        for s in 0..slots {
            let r = forest.build(&[root], &[(s, node(slots, s, 1))], Deeper::ByDepth(&depth));
            roots.push(r);
            root = r;
        }
        // Height 3 (16³ ≥ 1000): each cone adds at most 3 blocks.
        assert!(forest.blocks_in_use() <= 3 * slots as usize);
        assert_eq!(forest.get(root, 999), node(slots, 999, 1));
        assert_eq!(forest.get(roots[10], 11), 11);
        for r in roots {
            forest.release(r);
        }
        assert_eq!(forest.blocks_in_use(), 0);
    }

    proptest! {
        #[test]
        fn cones_agree_with_flat_arrays(
            slots in 1u32..300,
            steps in prop::collection::vec(
                (prop::collection::vec(0usize..64, 0..4),
                 prop::collection::vec((0u32..300, 0u32..3), 0..5)),
                1..24),
            by_index: bool,
            flatten_at in 0usize..30,
            avx2: bool,
        ) {
            check(slots, steps, by_index, flatten_at, avx2);
        }
    }
}
