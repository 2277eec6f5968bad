//! The concurrency relation between the conditions of a prefix under construction.
//!
//! When a non-cutoff event `e` enters the prefix, its *base* is the set of older conditions
//! concurrent with every condition of `•e` (the intersection of their concurrency sets); every
//! condition of `e•` is then concurrent with exactly the base, its siblings in `e•`, and the
//! conditions of later events whose base contains it. So instead of one list per condition
//! (which copies the base into every condition of `e•` and writes every new condition into the
//! list of every base member) we keep
//!
//! * the base once per event, in one arena, sorted;
//! * per condition, the later non-cutoff events whose base contains it (`fwd`), in order.
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
    /// Bases of all events, concatenated.
    arena: Vec<u32>,
    /// Per event: where its base starts in `arena` and its length (0 for cutoffs).
    base: Vec<(u64, u32)>,
    /// Per condition: later non-cutoff events whose base contains it, increasing.
    fwd: Vec<Vec<u32>>,
    fwd_entries: u64,
}

impl CoRelation {
    /// Registers the `n` initial conditions (ids `0..n`), pairwise concurrent.
    pub fn add_initial(&mut self, n: u32) {
        for _ in 0..n {
            self.fwd.push(Vec::new());
        }
    }

    /// Registers event `e`, already in `prefix` with its postset, whose base is `base`
    /// (sorted, from [`CoRelation::intersect`]).
    pub fn add_event(&mut self, prefix: &Prefix, e: u32, base: &[u32]) {
        debug_assert_eq!(self.base.len(), e as usize);
        let ev = &prefix.events[e as usize];
        let post = prefix.postset(e);
        if ev.cutoff {
            self.base.push((self.arena.len() as u64, 0));
            for _ in post {
                self.fwd.push(Vec::new());
            }
            return;
        }
        self.base.push((self.arena.len() as u64, base.len() as u32));
        self.arena.extend_from_slice(base);
        for _ in post {
            self.fwd.push(Vec::new());
        }
        for &d in base {
            self.fwd[d as usize].push(e);
        }
        self.fwd_entries += base.len() as u64;
    }

    /// About `|co(c)|` (postsets of later events counted as one), to pick the shortest set.
    fn weight(&self, prefix: &Prefix, c: u32) -> usize {
        let p = prefix.conditions[c as usize].producer;
        let base = if p == NONE {
            0
        } else {
            self.base[p as usize].1 as usize
        };
        base + self.fwd[c as usize].len()
    }

    fn base_of(&self, e: u32) -> &[u32] {
        let (start, len) = self.base[e as usize];
        &self.arena[start as usize..start as usize + len as usize]
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
            self.base_of(p).iter().for_each(|&x| f(x));
            prefix.postset(p)
        };
        siblings.filter(|&x| x != c).for_each(&mut f);
        for &e in &self.fwd[c as usize] {
            prefix.postset(e).for_each(&mut f);
        }
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
            self.base_of(pb).binary_search(&a).is_ok()
        } else {
            self.base_of(pa).binary_search(&b).is_ok()
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.arena.capacity() * 4 + self.base.capacity() * 16 + self.fwd.capacity() * 24) as u64
            + self.fwd_entries * 4
    }
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
    base: &'a [u32],
    fwd: &'a [u32],
}

impl<'a> Member<'a> {
    fn new(co: &'a CoRelation, prefix: &'a Prefix, c: u32) -> Self {
        let producer = prefix.conditions[c as usize].producer;
        let base = if producer == NONE {
            &[][..]
        } else {
            co.base_of(producer)
        };
        Member {
            prefix,
            c,
            producer,
            base,
            fwd: &co.fwd[c as usize],
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
            gallop(&mut self.base, x)
        } else {
            gallop(&mut self.fwd, px)
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

    #[test]
    fn older_puts_bottom_first() {
        assert!(older(NONE, 0));
        assert!(!older(0, NONE));
        assert!(!older(NONE, NONE));
        assert!(older(1, 2));
        assert!(!older(2, 1));
    }
}
