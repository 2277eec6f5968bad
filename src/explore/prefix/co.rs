//! The concurrency relation between the conditions of a prefix under construction.
//!
//! When a non-cutoff event `e` enters the prefix, its *base* is the set of older conditions
//! concurrent with every condition of `•e` (the intersection of their concurrency sets); every
//! condition of `e•` is then concurrent with exactly the base, its siblings in `e•`, and the
//! conditions of later events whose base contains it. So instead of one list per condition
//! (which copies the base into every condition of `e•` and writes every new condition into the
//! list of every base member) we keep
//!
//! * the base once per event, as a sorted list or, where that is smaller (dense relations,
//!   such as long pipelines), as a bitset over the ids from its least element;
//! * per condition, the later non-cutoff events whose base contains it (`fwd`), in order, as
//!   a list or, once that is smaller, a bitset over the event ids from its first element.
//!
//! Condition ids grow with the events that produce them, and an event's postset has
//! consecutive ids, so `co(c)` in increasing order is: the base of `c`'s producer, `c`'s
//! siblings, then the postsets of the events of `fwd[c]`. Whether an older `x` is concurrent
//! with `c` is a search in the base of `c`'s producer; a newer one, a search for `x`'s producer
//! in `fwd[c]` (or equally for `c` in the base of `x`'s producer). Conditions of cutoffs are
//! concurrent with nothing: cutoffs are never extended.

use super::{NONE, Prefix};

/// The concurrency relation (see the module documentation).
#[derive(Debug, Default)]
pub struct CoRelation {
    /// Bases kept as lists, concatenated.
    lists: Vec<u32>,
    /// Bases kept as bitsets, concatenated.
    bits: Vec<u64>,
    /// Per event: where its base is (empty for cutoffs).
    base: Vec<BaseRef>,
    /// Per condition: later non-cutoff events whose base contains it, increasing.
    fwd: Vec<Fwd>,
    /// Bytes held by the `fwd` sets' own storage.
    fwd_bytes: i64,
}

impl CoRelation {
    /// Registers the `n` initial conditions (ids `0..n`), pairwise concurrent.
    pub fn add_initial(&mut self, n: u32) {
        for _ in 0..n {
            self.fwd.push(Fwd::default());
        }
    }

    /// Registers event `e`, already in `prefix` with its postset, whose base is `base`
    /// (sorted, from [`CoRelation::intersect`]).
    pub fn add_event(&mut self, prefix: &Prefix, e: u32, base: &[u32]) {
        debug_assert_eq!(self.base.len(), e as usize);
        let ev = &prefix.events[e as usize];
        let post = prefix.postset(e);
        if ev.cutoff {
            self.base.push(BaseRef::default());
            for _ in post {
                self.fwd.push(Fwd::default());
            }
            return;
        }
        let r = self.store(base);
        self.base.push(r);
        for _ in post {
            self.fwd.push(Fwd::default());
        }
        for &d in base {
            self.fwd_bytes += self.fwd[d as usize].push(e);
        }
    }

    fn store(&mut self, base: &[u32]) -> BaseRef {
        let (Some(&lo), Some(&hi)) = (base.first(), base.last()) else {
            return BaseRef::default();
        };
        let words = (hi - lo) / 64 + 1;
        if (words as usize) * 2 < base.len() {
            let start = self.bits.len();
            self.bits.resize(start + words as usize, 0);
            let bits = &mut self.bits[start..];
            for &x in base {
                let i = x - lo;
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
            BaseRef {
                start: start as u64,
                len: base.len() as u32,
                lo,
                words,
            }
        } else {
            let start = self.lists.len();
            self.lists.extend_from_slice(base);
            BaseRef {
                start: start as u64,
                len: base.len() as u32,
                lo,
                words: 0,
            }
        }
    }

    /// About `|co(c)|` (postsets of later events counted as one), to pick the shortest set.
    fn weight(&self, prefix: &Prefix, c: u32) -> usize {
        let p = prefix.conditions[c as usize].producer;
        let base = if p == NONE {
            0
        } else {
            self.base[p as usize].len as usize
        };
        base + self.fwd[c as usize].len as usize
    }

    fn base_of(&self, e: u32) -> Base<'_> {
        let r = self.base[e as usize];
        let start = r.start as usize;
        if r.words == 0 {
            Base::List(&self.lists[start..start + r.len as usize])
        } else {
            Base::Bits {
                lo: r.lo,
                words: &self.bits[start..start + r.words as usize],
            }
        }
    }

    /// Calls `f` on every condition concurrent with `c`, in increasing order.
    pub fn for_each_co(&self, prefix: &Prefix, c: u32, mut f: impl FnMut(u32)) {
        let p = prefix.conditions[c as usize].producer;
        let siblings = if p == NONE {
            0..prefix.initial
        } else {
            if prefix.events[p as usize].cutoff {
                return;
            }
            self.base_of(p).for_each(&mut f);
            prefix.postset(p)
        };
        siblings.filter(|&x| x != c).for_each(&mut f);
        self.fwd[c as usize].for_each(&mut |e| prefix.postset(e).for_each(&mut f));
    }

    /// The sorted set of conditions concurrent with every condition of `preset` (which it
    /// excludes): the base of an event with this preset. Empty for an empty preset.
    pub fn intersect(&self, prefix: &Prefix, preset: &[u32]) -> Vec<u32> {
        let Some(&first) = preset.iter().min_by_key(|&&c| self.weight(prefix, c)) else {
            return Vec::new();
        };
        // Postsets of later events count as one in the weight: about right for most nets.
        let mut out = Vec::with_capacity(2 * self.weight(prefix, first) + 8);
        self.for_each_co(prefix, first, |x| out.push(x));
        for &c in preset {
            if c == first || out.is_empty() {
                continue;
            }
            let mut m = Member::new(self, prefix, c);
            out.retain(|&x| m.contains(x));
        }
        out
    }

    /// Whether conditions `a` and `b` (not of cutoffs) are concurrent.
    pub fn is_co(&self, prefix: &Prefix, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (pa, pb) = (
            prefix.conditions[a as usize].producer,
            prefix.conditions[b as usize].producer,
        );
        if pa == pb {
            return true;
        }
        if older(pa, pb) {
            self.base_of(pb).contains(a)
        } else {
            self.base_of(pa).contains(b)
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.lists.capacity() * 4
            + self.bits.capacity() * 8
            + self.base.capacity() * std::mem::size_of::<BaseRef>()
            + self.fwd.capacity() * std::mem::size_of::<Fwd>()) as u64
            + self.fwd_bytes.max(0) as u64
    }
}

/// Where an event's base is kept: `words == 0`: `len` ids at `start` in `lists`; otherwise
/// `words` words at `start` in `bits`, bit `i` standing for id `lo + i`.
#[derive(Clone, Copy, Debug, Default)]
struct BaseRef {
    start: u64,
    len: u32,
    lo: u32,
    words: u32,
}

/// An event's base, as kept.
enum Base<'a> {
    List(&'a [u32]),
    Bits { lo: u32, words: &'a [u64] },
}

impl Base<'_> {
    fn contains(&self, x: u32) -> bool {
        match *self {
            Base::List(list) => list.binary_search(&x).is_ok(),
            Base::Bits { lo, words } => {
                let Some(i) = x.checked_sub(lo) else {
                    return false;
                };
                words
                    .get((i / 64) as usize)
                    .is_some_and(|w| w >> (i % 64) & 1 == 1)
            }
        }
    }

    /// Calls `f` on every element, in increasing order.
    fn for_each(&self, f: &mut impl FnMut(u32)) {
        match *self {
            Base::List(list) => list.iter().for_each(|&x| f(x)),
            Base::Bits { lo, words } => {
                for (i, &w) in words.iter().enumerate() {
                    let mut w = w;
                    while w != 0 {
                        f(lo + i as u32 * 64 + w.trailing_zeros());
                        w &= w - 1;
                    }
                }
            }
        }
    }
}

/// A growing set of increasing event ids: a list while that is small, else a bitset of 32-bit
/// words from the first id (`lo`; [`NONE`] while a list). One vector serves both, to keep the
/// per-condition record small.
#[derive(Debug)]
struct Fwd {
    data: Vec<u32>,
    lo: u32,
    len: u32,
}

impl Default for Fwd {
    fn default() -> Self {
        Fwd {
            data: Vec::new(),
            lo: NONE,
            len: 0,
        }
    }
}

impl Fwd {
    /// Adds `e`, larger than every id so far; returns the change in bytes allocated.
    fn push(&mut self, e: u32) -> i64 {
        let before = self.data.capacity() as i64;
        self.len += 1;
        if self.lo == NONE {
            self.data.push(e);
            let first = self.data[0];
            // A bitset once it is at most half the list.
            if self.data.len() >= 16 && ((e - first) / 32 + 1) as usize * 2 <= self.data.len() {
                let mut bits = vec![0u32; ((e - first) / 32 + 1) as usize];
                for &x in &self.data {
                    let i = x - first;
                    bits[(i / 32) as usize] |= 1 << (i % 32);
                }
                self.data = bits;
                self.lo = first;
            }
        } else {
            let i = e - self.lo;
            if (i / 32) as usize >= self.data.len() {
                self.data.resize((i / 32) as usize + 1, 0);
            }
            self.data[(i / 32) as usize] |= 1 << (i % 32);
        }
        (self.data.capacity() as i64 - before) * 4
    }

    fn for_each(&self, f: &mut impl FnMut(u32)) {
        if self.lo == NONE {
            self.data.iter().for_each(|&x| f(x));
        } else {
            for (i, &w) in self.data.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    f(self.lo + i as u32 * 32 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
        }
    }

    fn cursor(&self) -> FwdCursor<'_> {
        if self.lo == NONE {
            FwdCursor::List(&self.data)
        } else {
            FwdCursor::Bits {
                lo: self.lo,
                words: &self.data,
            }
        }
    }
}

/// Membership in a [`Fwd`] for increasing ids.
enum FwdCursor<'a> {
    List(&'a [u32]),
    Bits { lo: u32, words: &'a [u32] },
}

/// Whether an event `a` came before `b` (the initial event ⊥, [`NONE`], before all).
fn older(a: u32, b: u32) -> bool {
    match (a == NONE, b == NONE) {
        (true, _) => b != NONE,
        (false, true) => false,
        (false, false) => a < b,
    }
}

/// Membership in `co(c)` for increasing conditions, by galloping through `c`'s data.
struct Member<'a> {
    prefix: &'a Prefix,
    c: u32,
    producer: u32,
    base: Base<'a>,
    fwd: FwdCursor<'a>,
}

impl<'a> Member<'a> {
    fn new(co: &'a CoRelation, prefix: &'a Prefix, c: u32) -> Self {
        let producer = prefix.conditions[c as usize].producer;
        let base = if producer == NONE {
            Base::List(&[])
        } else {
            co.base_of(producer)
        };
        Member {
            prefix,
            c,
            producer,
            base,
            fwd: co.fwd[c as usize].cursor(),
        }
    }

    fn contains(&mut self, x: u32) -> bool {
        if x == self.c {
            return false;
        }
        let px = self.prefix.conditions[x as usize].producer;
        if px == self.producer {
            return true;
        }
        if older(px, self.producer) {
            match &mut self.base {
                Base::List(list) => gallop(list, x),
                bits => bits.contains(x),
            }
        } else {
            match &mut self.fwd {
                FwdCursor::List(list) => gallop(list, px),
                FwdCursor::Bits { lo, words } => px
                    .checked_sub(*lo)
                    .and_then(|i| words.get((i / 32) as usize).map(|w| w >> (i % 32) & 1 == 1))
                    .unwrap_or(false),
            }
        }
    }
}

/// Advances `list` (sorted) past the elements below `x`; whether `x` is next.
fn gallop(list: &mut &[u32], x: u32) -> bool {
    let rest = *list;
    let (mut lo, mut step) = (0, 1);
    while lo + step <= rest.len() && rest[lo + step - 1] < x {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(rest.len());
    let i = lo + rest[lo..hi].partition_point(|&y| y < x);
    *list = &rest[i..];
    rest.get(i) == Some(&x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_and_advances() {
        let data = [1, 3, 5, 7, 9, 11, 13];
        let mut list = &data[..];
        assert!(!gallop(&mut list, 2));
        assert!(gallop(&mut list, 3));
        assert!(gallop(&mut list, 11));
        assert!(!gallop(&mut list, 12));
        assert!(!gallop(&mut list, 20));
        assert!(list.is_empty());
    }

    proptest::proptest! {
        /// A `Fwd` set lists and answers membership like the list it was given, across the
        /// switch to a bitset; likewise a base kept as a list or a bitset.
        #[test]
        fn sets_match_their_lists(
            gaps in proptest::collection::vec(1u32..40, 0..200),
            dense in proptest::bool::ANY,
            probes in proptest::collection::vec(0u32..9000, 0..50),
        ) {
            let mut ids = Vec::new();
            let mut set = Fwd::default();
            let mut x = 3;
            for g in gaps {
                x += if dense { g % 3 + 1 } else { g };
                ids.push(x);
                set.push(x);
            }
            let mut listed = Vec::new();
            set.for_each(&mut |e| listed.push(e));
            proptest::prop_assert_eq!(&listed, &ids);
            proptest::prop_assert_eq!(set.len as usize, ids.len());
            if dense && ids.len() >= 16 {
                proptest::prop_assert!(set.lo != NONE, "a dense set stayed a list");
            }
            let mut probes = probes;
            probes.extend(ids.iter().step_by(3));
            probes.sort_unstable();
            let mut cursor = set.cursor();
            for &p in &probes {
                let found = match &mut cursor {
                    FwdCursor::List(list) => gallop(list, p),
                    FwdCursor::Bits { lo, words } => p
                        .checked_sub(*lo)
                        .and_then(|i| words.get((i / 32) as usize).map(|w| w >> (i % 32) & 1 == 1))
                        .unwrap_or(false),
                };
                proptest::prop_assert_eq!(found, ids.binary_search(&p).is_ok(), "probe {}", p);
            }
            let mut co = CoRelation::default();
            let r = co.store(&ids);
            co.base.push(r);
            let base = co.base_of(0);
            let mut listed = Vec::new();
            base.for_each(&mut |e| listed.push(e));
            proptest::prop_assert_eq!(&listed, &ids);
            for &p in &probes {
                proptest::prop_assert_eq!(base.contains(p), ids.binary_search(&p).is_ok());
            }
        }
    }

    #[test]
    fn older_puts_bottom_first() {
        assert!(older(NONE, 0));
        assert!(!older(0, NONE));
        assert!(!older(NONE, NONE));
        assert!(older(1, 2));
        assert!(!older(2, 1));
    }
}
