//! A [`Net`] as a [`System`]: markings packed into fixed-width counters.
//!
//! One code path serves every net: a marking is a vector of `bits`-wide unsigned counters, one
//! per place, packed into `u64` words. Safe nets use 1-bit counters (a bitset), other nets 8, 16,
//! 32 or 64 bits. A firing that would push a counter past its width is reported as an
//! [`Overflow`]; callers rebuild the system with [`NetSystem::widened`] and start again
//! ([`NetSystem::retry_widened`] does both), so a
//! wrong guess of the width costs time, never correctness.
//!
//! # Footprints and the soundness of independence
//!
//! Each place `p` touched by transition `t` is one resource, accessed with
//! - `R` when `t` tests `p` (an input arc or a read arc: enabledness depends on `m(p)`),
//! - `A` when firing `t` changes `m(p)` (`pre(p) ≠ post(p)`).
//!
//! So a consumer is `RA`, a pure producer `A`, a self-loop with equal weights or a read arc `R`.
//!
//! *Claim.* If `t` and `u` are independent (no shared place with R–A, A–R pair, the only
//! non-commuting pairs that can arise since nets have no `W`), then at every marking `m`:
//! firing `u` neither enables nor disables `t` (and symmetrically), and when both are enabled,
//! `m [t u⟩ m'` and `m [u t⟩ m'` reach the same `m'`.
//!
//! *Proof.* Firing `u` changes only the places where `u` has `A`. On such a place, `t` has no `R`
//! (else R–A), so `t` tests none of the places `u` changes: `t`'s enabledness is the same
//! before and after `u`. Symmetrically for `u`. The effect of firing a transition is adding the
//! fixed vector `post − pre`, and vector addition commutes, so both orders reach
//! `m + Δt + Δu`. ∎ (The bounded counters only matter when a count passes the width, which is
//! an [`Overflow`] error in either order.)
//!
//! Consequences (DESIGN §1): two consumers of a place are dependent (`RA`–`RA`), a producer and
//! a consumer are dependent (`A`–`RA`), two pure readers are independent (`R`–`R`) and two pure
//! producers are independent (`A`–`A`).
//!
//! With 1-bit counters (safe nets) a pure producer has `W` instead of `A`: coarser, so the
//! claim still holds, and it loses nothing, because two producers of one place enabled at the
//! same marking of a safe net would put two tokens on it (an [`Overflow`], after which the net
//! runs again with wide counters and `A`). It matters for the unfolding's slots: a place with
//! `r` readers and `a` producers needs `r · a` slots when producers commute, `r` when they
//! do not (elevator_3: 6 913 slots instead of a few hundred).

use std::fmt::Write as _;

use super::components;
use super::net::{Arc, Net, PlaceIdx};
use crate::rows::Rows;
use crate::system::{Access, Footprint, GuardField, Overflow, Resource, System, Touch, Transition};

/// One counter touched by a transition: where it lives in the packed marking.
///
/// With 1-bit counters and [packed components](NetSystem::packed), the places of a one-token
/// component share one field of `width` bits, which holds `code` when the place is marked
/// (and 0 when no place of the component is); a place of its own is a field of one bit with
/// code 1. Counters of `bits > 1` are `bits` wide and have no code.
#[derive(Clone, Copy, Debug)]
struct Field {
    word: u32,
    place: PlaceIdx,
    code: u32,
    shift: u8,
    width: u8,
}

impl Field {
    /// The field's bits in its word.
    #[inline]
    fn mask(self) -> u64 {
        (u64::MAX >> (64 - u32::from(self.width))) << self.shift
    }

    /// The field's word when the place is marked, on the field's bits (1-bit layouts).
    #[inline]
    fn marked(self) -> u64 {
        u64::from(self.code) << self.shift
    }
}

/// A counter a transition tests: it must hold at least `need` tokens. (Counts from arc weights,
/// which are `u32`: half the size of a `u64`, on tables of millions of entries.)
#[derive(Clone, Copy, Debug)]
struct Test {
    field: Field,
    need: u32,
}

/// A counter a transition changes: `m(p) := m(p) - sub + add`.
#[derive(Clone, Copy, Debug)]
struct Change {
    field: Field,
    sub: u32,
    add: u32,
}

/// Per-word masks of a transition, used when counters are single bits.
#[derive(Clone, Copy, Debug)]
struct WordMasks {
    word: u32,
    /// The bits the transition tests: it is enabled when they hold `value`.
    test: u64,
    /// What the tested bits must hold (the codes of the places it needs).
    value: u64,
    /// Bits cleared by firing.
    clear: u64,
    /// Bits set by firing (must have been clear, after clearing, or the net is not safe).
    set: u64,
}

/// The word masks of every transition (1-bit counters) in one contiguous array, and an index
/// from each place to the transitions it triggers, so that the enabled transitions of a marking
/// are found from its marked places instead of by testing every transition.
#[derive(Clone, Debug, Default)]
struct BitIndex {
    /// The masks of transition `t` are `masks[start[t]..start[t + 1]]`.
    masks: Vec<WordMasks>,
    start: Vec<u32>,
    /// Transitions triggered by place `p`: `triggered[trigger_start[p]..trigger_start[p + 1]]`.
    /// Every transition that tests a place is triggered by exactly one of its tested places.
    triggered: Vec<Transition>,
    trigger_start: Vec<u32>,
    /// Transitions that test no place (enabled at every marking).
    untested: Vec<Transition>,
    /// For markings of at most [`DENSE_WORDS`] words: the test masks and values of every
    /// transition, one full marking-width row of each (`2 * words` words per transition),
    /// scanned without branches.
    dense: Vec<u64>,
    /// Whether `dense` is filled.
    use_dense: bool,
}

/// Markings up to this many words test every transition against a dense mask row.
const DENSE_WORDS: usize = 4;

/// Pushes every `t` whose dense test row (of `W` words, then `W` of values) `state` meets.
#[inline]
fn dense_enabled<const W: usize>(dense: &[u64], state: &[u64], out: &mut Vec<Transition>) {
    let s: [u64; W] = state.try_into().expect("marking width");
    for (t, row) in dense.chunks_exact(2 * W).enumerate() {
        let mut ok = true;
        for k in 0..W {
            ok &= s[k] & row[k] == row[W + k];
        }
        if ok {
            out.push(t as Transition);
        }
    }
}

/// Builds the [`BitIndex`] of 1-bit counters one transition at a time, as `with_bits` compiles
/// them (no second pass over the tables).
struct BitIndexBuilder {
    ix: BitIndex,
    words: usize,
    /// Whether no test so far needs more than one token: dense rows cannot express "never
    /// enabled", so there are none once one does.
    dense: bool,
    /// Transitions triggered by each place so far.
    count: Vec<u32>,
    /// The place that triggers each transition (MAX: in no list, as never enabled under this
    /// encoding, or untested).
    trigger: Vec<PlaceIdx>,
}

impl BitIndexBuilder {
    fn new(transitions: usize, places: usize, words: usize) -> Self {
        let dense = words <= DENSE_WORDS;
        let mut ix = BitIndex {
            start: Vec::with_capacity(transitions + 1),
            // At least one word per transition that touches a place.
            masks: Vec::with_capacity(transitions),
            dense: Vec::with_capacity(if dense { 2 * transitions * words } else { 0 }),
            ..BitIndex::default()
        };
        ix.start.push(0);
        BitIndexBuilder {
            ix,
            words,
            dense,
            count: vec![0; places],
            trigger: Vec::with_capacity(transitions),
        }
    }

    /// Adds the next transition, with its tests and changes.
    fn push(&mut self, tests: &[Test], changes: &[Change]) {
        let ix = &mut self.ix;
        let from = ix.masks.len();
        let impossible = NetSystem::word_masks(tests, changes, &mut ix.masks);
        if impossible && self.dense {
            self.dense = false;
            ix.dense = Vec::new();
        }
        if self.dense {
            let row = ix.dense.len();
            ix.dense.resize(row + 2 * self.words, 0);
            for m in &ix.masks[from..] {
                ix.dense[row + m.word as usize] |= m.test;
                ix.dense[row + self.words + m.word as usize] |= m.value;
            }
        }
        ix.start.push(ix.masks.len() as u32);
        // Each transition is triggered by its tested place that triggers the fewest so far:
        // counted per place here, the lists laid out by `finish` (transitions in increasing
        // order within each place's list, as they were chosen).
        let mut chosen = PlaceIdx::MAX;
        if !impossible {
            let count = &mut self.count;
            match tests
                .iter()
                .map(|x| x.field.place)
                .min_by_key(|&p| count[p as usize])
            {
                Some(p) => {
                    count[p as usize] += 1;
                    chosen = p;
                }
                None => ix.untested.push(self.trigger.len() as Transition),
            }
        }
        self.trigger.push(chosen);
    }

    /// The index, with every transition pushed.
    fn finish(self) -> BitIndex {
        let BitIndexBuilder {
            mut ix,
            dense,
            mut count,
            trigger,
            ..
        } = self;
        ix.use_dense = dense;
        let places = count.len();
        ix.trigger_start.reserve(places + 1);
        ix.trigger_start.push(0);
        let mut total = 0;
        for &n in &count {
            total += n;
            ix.trigger_start.push(total);
        }
        // `count[p]` becomes the next free slot of place `p`'s list.
        count.copy_from_slice(&ix.trigger_start[..places]);
        ix.triggered = vec![0; total as usize];
        for (t, &p) in trigger.iter().enumerate() {
            if p != PlaceIdx::MAX {
                ix.triggered[count[p as usize] as usize] = t as Transition;
                count[p as usize] += 1;
            }
        }
        ix
    }
}

/// A net with a chosen marking encoding, implementing [`System`].
#[derive(Clone, Debug)]
pub struct NetSystem<'n> {
    net: &'n Net,
    bits: u32,
    words: usize,
    /// The counters each transition tests, in place order.
    tests: Rows<Test>,
    /// The counters each transition changes, in place order.
    changes: Rows<Change>,
    /// With 1-bit counters: the transitions, in increasing order, with a change adding more
    /// than one token, which always overflows (rare: `new` picks 1 bit for such weights only
    /// when the net is certified safe).
    wide_adds: Vec<Transition>,
    bit_index: BitIndex,
    footprints: Rows<Touch>,
    /// The layout of a [packed](Self::packed) system.
    packing: Option<Packing>,
}

/// Where the places lie in the markings of a [packed](NetSystem::packed) system.
#[derive(Clone, Debug)]
struct Packing {
    /// By place.
    fields: Vec<Field>,
    /// The one-token components, each sorted; code `i + 1` of a component's field names its
    /// `i`-th place.
    components: Vec<Vec<PlaceIdx>>,
    /// The first bit (counted from the marking's first word) of the places of their own, which
    /// follow one another from there, and those places in that order.
    plain_from: usize,
    plain: Vec<PlaceIdx>,
    /// Words of a marking.
    words: usize,
}

/// The counter widths, narrowest first.
const WIDTHS: [u32; 5] = [1, 8, 16, 32, 64];

impl<'n> NetSystem<'n> {
    /// The system of `net` with the narrowest width that is likely to suffice: 1 bit when the
    /// net is certified safe or starts with at most one token per place and has no weights
    /// above 1, else the narrowest width that holds the initial marking and every weight.
    pub fn new(net: &'n Net) -> Self {
        Self::with_bits(net, Self::narrowest_bits(net))
    }

    /// As [`new`](Self::new), [packed](Self::packed) when that picks 1 bit and packing makes
    /// the states shorter. (Where it does not, it would only cost: a packed component needs
    /// a slot holding all its movers, which the unfolding makes if none does, and each event
    /// of a mover then has one more entry in its cone.)
    pub fn new_packed(net: &'n Net) -> Self {
        match Self::narrowest_bits(net) {
            1 => {
                let plain_words = net.places.len().div_ceil(64).max(1);
                let packing = Self::packing(net).filter(|pk| pk.words < plain_words);
                Self::with_layout(net, 1, packing)
            }
            bits => Self::with_bits(net, bits),
        }
    }

    /// The width [`new`](Self::new) picks.
    fn narrowest_bits(net: &Net) -> u32 {
        let max_initial = net.places.iter().map(|p| p.initial).max().unwrap_or(0) as u64;
        let max_weight = net.max_weight() as u64;
        if net.certified_safe() || (max_initial <= 1 && max_weight <= 1) {
            1
        } else {
            let need = max_initial.max(max_weight).saturating_mul(4);
            *WIDTHS[1..]
                .iter()
                .find(|&&b| b == 64 || need < (1u64 << b))
                .unwrap()
        }
    }

    /// The system of `net` with `bits`-wide counters (1, 8, 16, 32 or 64).
    pub fn with_bits(net: &'n Net, bits: u32) -> Self {
        assert!(WIDTHS.contains(&bits), "unsupported counter width {bits}");
        Self::with_layout(net, bits, None)
    }

    /// The system of `net` with 1-bit counters where each one-token component that
    /// [`components::one_token_components`] finds is one field holding which of its places is
    /// marked (`⌈log2(k + 1)⌉` bits for `k` places, instead of `k`): a process's control
    /// locations, or a chain of a million places, fit in one word. The system is the same
    /// (markings, footprints, token sets); its states are smaller, and the unfolding, which
    /// stores one per event, keeps them whole instead of in shared blocks.
    ///
    /// A place's bits are then shared with the other places of its component: every mover of
    /// the component changes them, which [`System::token_sets`] allows. Nets whose counters
    /// need more than one bit are [widened](Self::widened) into the plain layout.
    pub fn packed(net: &'n Net) -> Self {
        let packing = Self::packing(net);
        Self::with_layout(net, 1, packing)
    }

    /// The layout of [`packed`](Self::packed) markings, `None` when the net has no one-token
    /// component.
    fn packing(net: &Net) -> Option<Packing> {
        let components = components::one_token_components(net);
        if components.is_empty() {
            return None;
        }
        let places = net.places.len();
        let mut fields = vec![
            Field {
                word: 0,
                place: 0,
                code: 1,
                shift: 0,
                width: 1,
            };
            places
        ];
        let mut packed = vec![false; places];
        // Fields are laid out one after the other, none across two words: the components
        // first, then the places of their own.
        let (mut word, mut used) = (0u32, 0u32);
        let place_at = |width: u32, word: &mut u32, used: &mut u32| {
            if *used + width > 64 {
                *word += 1;
                *used = 0;
            }
            let at = (*word, *used as u8);
            *used += width;
            at
        };
        for set in &components {
            // Codes 0 (no token) to k.
            let width = u32::BITS - (set.len() as u32).leading_zeros();
            let (w, shift) = place_at(width, &mut word, &mut used);
            for (i, &p) in set.iter().enumerate() {
                fields[p as usize] = Field {
                    word: w,
                    place: p,
                    code: i as u32 + 1,
                    shift,
                    width: width as u8,
                };
                packed[p as usize] = true;
            }
        }
        let plain_from = word as usize * 64 + used as usize;
        let mut plain = Vec::with_capacity(places - packed.iter().filter(|&&b| b).count());
        for p in 0..places {
            if !packed[p] {
                let (w, shift) = place_at(1, &mut word, &mut used);
                fields[p] = Field {
                    word: w,
                    place: p as PlaceIdx,
                    code: 1,
                    shift,
                    width: 1,
                };
                plain.push(p as PlaceIdx);
            }
        }
        let words = (word as usize + usize::from(used > 0)).max(1);
        Some(Packing {
            fields,
            components,
            plain_from,
            plain,
            words,
        })
    }

    /// The system of `net` with `bits`-wide counters, laid out by `packing` when given (1 bit)
    /// or place after place.
    fn with_layout(net: &'n Net, bits: u32, packing: Option<Packing>) -> Self {
        let per_word = 64 / bits;
        let words = match &packing {
            Some(pk) => pk.words,
            None => net.places.len().div_ceil(per_word as usize).max(1),
        };
        // Widths and counters per word are powers of two: shifts, not divisions, per arc.
        let word_shift = per_word.trailing_zeros();
        let field = |place: PlaceIdx| match &packing {
            Some(pk) => pk.fields[place as usize],
            None => Field {
                word: place >> word_shift,
                place,
                code: 1,
                shift: ((place & (per_word - 1)) * bits) as u8,
                width: bits as u8,
            },
        };
        let n = net.transitions.len();
        // Most transitions test one place or more and change two or more: the tables start
        // with one entry per transition and grow (by doubling) where there are more.
        let mut tests = Rows::with_capacity(n, n);
        let mut changes = Rows::with_capacity(n, 2 * n);
        let mut footprints = Rows::with_capacity(n, 2 * n);
        let mut wide_adds = Vec::new();
        let mut bit_index = (bits == 1).then(|| BitIndexBuilder::new(n, net.places.len(), words));
        let mut places: Vec<PlaceIdx> = Vec::new();
        for (ti, t) in net.transitions.iter().enumerate() {
            let (pre, post, reads) = (&t.pre[..], &t.post[..], &t.reads[..]);
            // The places touched, in order, and their three weights: merged in one pass from
            // the arc lists when they are sorted with each place at most once (as NetBuilder
            // and the readers make them), else collected, sorted and looked up.
            places.clear();
            let strictly_sorted = |arcs: &[Arc]| arcs.windows(2).all(|w| w[0].place < w[1].place);
            let merge = strictly_sorted(pre) && strictly_sorted(post) && strictly_sorted(reads);
            if !merge {
                places.extend(pre.iter().chain(post).chain(reads).map(|a| a.place));
                places.sort_unstable();
                places.dedup();
            }
            let weight =
                |arcs: &[Arc], p| arcs.iter().find(|a| a.place == p).map_or(0, |a| a.weight);
            let (mut i, mut j, mut k, mut next) = (0, 0, 0, 0);
            let mut wide_add = false;
            loop {
                let (p, pre, post, read) = if merge {
                    let head =
                        |arcs: &[Arc], at: usize| arcs.get(at).map_or(PlaceIdx::MAX, |a| a.place);
                    let p = head(pre, i).min(head(post, j)).min(head(reads, k));
                    // Every index passes the end only when all lists are done.
                    if i == pre.len() && j == post.len() && k == reads.len() {
                        break;
                    }
                    let take = |arcs: &[Arc], at: &mut usize| match arcs.get(*at) {
                        Some(a) if a.place == p => {
                            *at += 1;
                            a.weight
                        }
                        _ => 0,
                    };
                    (
                        p,
                        take(pre, &mut i),
                        take(post, &mut j),
                        take(reads, &mut k),
                    )
                } else {
                    let Some(&p) = places.get(next) else {
                        break;
                    };
                    next += 1;
                    (p, weight(pre, p), weight(post, p), weight(reads, p))
                };
                let mut access = Access::NONE;
                let need = pre.max(read);
                if need > 0 {
                    access = access.union(Access::READ);
                    tests.push(Test {
                        field: field(p),
                        need,
                    });
                }
                if pre != post {
                    // With 1-bit counters a production onto a marked place overflows, so two
                    // producers of one place never both fire after the same marking: calling a
                    // pure production `W` costs no concurrency there, and saves the unfolding
                    // one slot per (reader, producer) pair of the place (see the module doc).
                    let change = if bits == 1 && pre == 0 {
                        Access::WRITE
                    } else {
                        Access::ADD
                    };
                    access = access.union(change);
                    changes.push(Change {
                        field: field(p),
                        sub: pre,
                        add: post,
                    });
                    wide_add |= post > 1;
                }
                if !access.is_empty() {
                    footprints.push(Touch {
                        resource: p as Resource,
                        access,
                    });
                }
            }
            if bits == 1 && wide_add {
                wide_adds.push(ti as Transition);
            }
            if let Some(ix) = &mut bit_index {
                ix.push(tests.filling(), changes.filling());
            }
            tests.end_row();
            changes.end_row();
            footprints.end_row();
        }
        let bit_index = bit_index.map_or_else(BitIndex::default, BitIndexBuilder::finish);
        NetSystem {
            net,
            bits,
            words,
            tests,
            changes,
            wide_adds,
            bit_index,
            footprints,
            packing,
        }
    }

    /// The word masks of `t` (1-bit counters).
    #[inline]
    fn masks(&self, t: Transition) -> &[WordMasks] {
        let ix = &self.bit_index;
        &ix.masks[ix.start[t as usize] as usize..ix.start[t as usize + 1] as usize]
    }

    /// Folds the tests and changes of a transition into per-word masks (1-bit counters),
    /// appended to `out`; returns whether the transition is never enabled.
    fn word_masks(tests: &[Test], changes: &[Change], out: &mut Vec<WordMasks>) -> bool {
        // The transition's masks are those appended here; earlier entries belong to others.
        let from = out.len();
        fn entry(masks: &mut Vec<WordMasks>, from: usize, word: u32) -> usize {
            match masks[from..].iter().position(|m| m.word == word) {
                Some(i) => from + i,
                None => {
                    masks.push(WordMasks {
                        word,
                        test: 0,
                        value: 0,
                        clear: 0,
                        set: 0,
                    });
                    masks.len() - 1
                }
            }
        }
        let masks = out;
        let mut impossible = false;
        for t in tests {
            let i = entry(masks, from, t.field.word);
            let (m, v) = (t.field.mask(), t.field.marked());
            // Two places of one component both needed: never enabled.
            impossible |= masks[i].test & m != 0 && masks[i].value & m != v;
            masks[i].test |= m;
            masks[i].value |= v;
            impossible |= t.need > 1;
        }
        for ch in changes {
            let i = entry(masks, from, ch.field.word);
            if ch.sub > 0 {
                masks[i].clear |= ch.field.mask();
            }
            if ch.add > 0 {
                masks[i].set |= ch.field.marked();
            }
        }
        if impossible {
            // A weight above 1 can never be met by a bit, nor a code by two: never enabled
            // under this encoding (no word holds a 1 on no bits).
            masks.push(WordMasks {
                word: 0,
                test: 0,
                value: 1,
                clear: 0,
                set: 0,
            });
        }
        impossible
    }

    /// The net.
    pub fn net(&self) -> &'n Net {
        self.net
    }

    /// Width of a counter in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The same net with counters of the next width, or `None` at 64 bits.
    pub fn widened(&self) -> Option<NetSystem<'n>> {
        let next = WIDTHS.iter().copied().find(|&b| b > self.bits)?;
        Some(Self::with_bits(self.net, next))
    }

    /// Runs `explore` on this system and, while a count does not fit, on the same net with the
    /// next wider counters, starting over each time. Returns the result together with the
    /// system it was computed on (its states are the ones the result refers to), or the last
    /// overflow when even 64-bit counters do not hold a count.
    ///
    /// This is the one place where a wrong guess of the width is repaired: every explorer of
    /// nets goes through it, so the guess costs time, never correctness.
    pub fn retry_widened<T>(
        self,
        mut explore: impl FnMut(&NetSystem<'n>) -> Result<T, Overflow>,
    ) -> Result<(T, NetSystem<'n>), Overflow> {
        let mut sys = self;
        loop {
            match explore(&sys) {
                Ok(result) => return Ok((result, sys)),
                Err(overflow) => match sys.widened() {
                    Some(wider) => sys = wider,
                    None => return Err(overflow),
                },
            }
        }
    }

    /// The largest count a counter holds.
    pub fn capacity(&self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// Tokens on place `p` in `marking`.
    #[inline]
    pub fn tokens(&self, marking: &[u64], p: PlaceIdx) -> u64 {
        if let Some(pk) = &self.packing {
            return self.get(marking, pk.fields[p as usize]);
        }
        let per_word = 64 / self.bits as usize;
        let word = marking[p as usize / per_word];
        let shift = (p as usize % per_word) as u32 * self.bits;
        (word >> shift) & self.capacity()
    }

    /// The count of `f`'s place in `marking`.
    #[inline]
    fn get(&self, marking: &[u64], f: Field) -> u64 {
        let word = marking[f.word as usize];
        if self.packing.is_some() {
            (word & f.mask() == f.marked()) as u64
        } else {
            (word >> f.shift) & self.capacity()
        }
    }

    /// Whether places share fields (see [`packed`](Self::packed)).
    pub fn is_packed(&self) -> bool {
        self.packing.is_some()
    }

    /// Total number of tokens in `marking`.
    pub fn total_tokens(&self, marking: &[u64]) -> u128 {
        if self.bits == 1 && self.packing.is_none() {
            return marking.iter().map(|w| w.count_ones() as u128).sum();
        }
        (0..self.net.places.len() as PlaceIdx)
            .map(|p| self.tokens(marking, p) as u128)
            .sum()
    }

    /// The largest number of tokens on one place of `marking`.
    pub fn max_tokens(&self, marking: &[u64]) -> u64 {
        if self.bits == 1 && self.packing.is_none() {
            return marking.iter().any(|&w| w != 0) as u64;
        }
        (0..self.net.places.len() as PlaceIdx)
            .map(|p| self.tokens(marking, p))
            .max()
            .unwrap_or(0)
    }

    fn overflow(&self, t: Transition, f: Field, value: u64) -> Overflow {
        Overflow {
            transition: t,
            resource: f.place as Resource,
            resource_name: self.net.places[f.place as usize].label.to_string(),
            value,
            capacity: self.capacity(),
        }
    }
}

impl System for NetSystem<'_> {
    fn state_words(&self) -> usize {
        self.words
    }

    fn initial_state(&self, out: &mut [u64]) {
        out.fill(0);
        if let Some(pk) = &self.packing {
            // (A component starts with at most one token, a place of its own in a 1-bit
            // counter with at most one: `components` checks it, and `new` picks 1 bit so.)
            for (p, f) in self.net.places.iter().zip(&pk.fields) {
                if p.initial > 0 {
                    out[f.word as usize] |= f.marked();
                }
            }
            return;
        }
        let per_word = 64 / self.bits as usize;
        for (i, p) in self.net.places.iter().enumerate() {
            // Initial markings wider than the counters are reported on the first firing by
            // construction of `new`, which always picks a width holding them; clamp defensively.
            let v = (p.initial as u64).min(self.capacity());
            out[i / per_word] |= v << ((i % per_word) as u32 * self.bits);
        }
    }

    fn transition_count(&self) -> usize {
        self.net.transitions.len()
    }

    fn transition_name(&self, t: Transition) -> &str {
        &self.net.transitions[t as usize].label
    }

    fn resource_count(&self) -> usize {
        self.net.places.len()
    }

    fn resource_name(&self, r: Resource) -> &str {
        &self.net.places[r as usize].label
    }

    #[inline]
    fn is_enabled(&self, state: &[u64], t: Transition) -> bool {
        if self.bits == 1 {
            self.masks(t)
                .iter()
                .all(|m| state[m.word as usize] & m.test == m.value)
        } else {
            self.tests
                .row(t as usize)
                .iter()
                .all(|x| self.get(state, x.field) >= x.need as u64)
        }
    }

    #[inline]
    fn enabled_on(&self, state: &[u64], t: Transition, r: Resource) -> bool {
        // A place's counter changes only by the transitions whose arcs change it (access A).
        self.tests
            .row(t as usize)
            .iter()
            .find(|x| x.field.place as Resource == r)
            .is_none_or(|x| self.get(state, x.field) >= x.need as u64)
    }

    fn guard_field(&self, t: Transition, r: Resource) -> Option<GuardField> {
        // The test of enabled_on (a place t does not test always passes: left to it).
        let x = self
            .tests
            .row(t as usize)
            .iter()
            .find(|x| x.field.place as Resource == r)?;
        let f = x.field;
        Some(if self.packing.is_some() {
            // The field must hold the place's code (more than one token: never).
            GuardField {
                word: f.word,
                shift: f.shift.into(),
                mask: f.mask() >> f.shift,
                need: if x.need > 1 { u64::MAX } else { f.code.into() },
                span: 0,
            }
        } else {
            GuardField {
                word: f.word,
                shift: f.shift.into(),
                mask: self.capacity(),
                need: x.need as u64,
                span: self.capacity().saturating_sub(x.need as u64),
            }
        })
    }

    #[inline]
    fn disables(&self, u: Transition, t: Transition, r: Resource) -> bool {
        // A 1-bit counter that u takes from and does not give back holds 0 after u.
        self.bits == 1
            && self
                .changes
                .row(u as usize)
                .iter()
                .any(|c| c.field.place as Resource == r && c.sub > 0 && c.add == 0)
            && self
                .tests
                .row(t as usize)
                .iter()
                .any(|x| x.field.place as Resource == r && x.need > 0)
    }

    fn token_sets(&self) -> Vec<Vec<Resource>> {
        // Places are resources, numbered alike.
        match &self.packing {
            Some(pk) => pk.components.clone(),
            None => components::one_token_components(self.net),
        }
    }

    fn resource_words(&self, r: Resource) -> std::ops::Range<usize> {
        let word = match &self.packing {
            Some(pk) => pk.fields[r as usize].word as usize,
            None => r as usize / (64 / self.bits as usize),
        };
        word..word + 1
    }

    fn resource_bits(&self, r: Resource, out: &mut Vec<(usize, u64)>) -> bool {
        // Place r's counter, where `with_bits` put it; arcs change it only with access A (W
        // for productions with 1-bit counters), and a marking has nothing but counters. A
        // packed place's field is its component's, which the component's movers change.
        if let Some(pk) = &self.packing {
            let f = pk.fields[r as usize];
            out.push((f.word as usize, f.mask()));
            return true;
        }
        let per_word = 64 / self.bits as usize;
        let shift = (r as usize % per_word) as u32 * self.bits;
        out.push((r as usize / per_word, self.capacity() << shift));
        true
    }

    fn guard_class(&self, t: Transition, r: Resource) -> Option<u64> {
        // enabled_on asks for `need` tokens on the place (none when t does not test it).
        Some(
            self.tests
                .row(t as usize)
                .iter()
                .find(|x| x.field.place as Resource == r)
                .map_or(0, |x| x.need as u64),
        )
    }

    fn enabled(&self, state: &[u64], out: &mut Vec<Transition>) {
        if self.bits != 1 {
            for t in 0..self.transition_count() as Transition {
                if self.is_enabled(state, t) {
                    out.push(t);
                }
            }
            return;
        }
        let ix = &self.bit_index;
        match if ix.use_dense { state.len() } else { 0 } {
            1 => return dense_enabled::<1>(&ix.dense, state, out),
            2 => return dense_enabled::<2>(&ix.dense, state, out),
            3 => return dense_enabled::<3>(&ix.dense, state, out),
            4 => return dense_enabled::<4>(&ix.dense, state, out),
            _ => {}
        }
        // Only transitions triggered by a marked place (or testing nothing) can be enabled.
        let first = out.len();
        out.extend_from_slice(&ix.untested);
        let mut visit = |p: usize| {
            let (a, b) = (
                ix.trigger_start[p] as usize,
                ix.trigger_start[p + 1] as usize,
            );
            for &t in &ix.triggered[a..b] {
                if self.is_enabled(state, t) {
                    out.push(t);
                }
            }
        };
        // The marked places: those whose bit is set from `from` on (bit `b` is place `b`, or
        // `plain[b - from]` when packed), and those whose component's field names them.
        let (from, plain): (usize, Option<&[PlaceIdx]>) = match &self.packing {
            None => (0, None),
            Some(pk) => {
                for set in &pk.components {
                    let f = pk.fields[set[0] as usize];
                    let code = (state[f.word as usize] & f.mask()) >> f.shift;
                    if code != 0 {
                        visit(set[code as usize - 1] as usize);
                    }
                }
                (pk.plain_from, Some(&pk.plain))
            }
        };
        for (w, &word) in state.iter().enumerate().skip(from / 64) {
            let mut bits = if w == from / 64 {
                word & (u64::MAX << (from % 64))
            } else {
                word
            };
            while bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                visit(plain.map_or(b, |places| places[b - from] as usize));
            }
        }
        out[first..].sort_unstable();
    }

    #[inline]
    fn fire(&self, state: &[u64], t: Transition, out: &mut [u64]) -> Result<(), Overflow> {
        out.copy_from_slice(state);
        self.fire_in_place(out, t)
    }

    #[inline]
    fn fire_in_place(&self, out: &mut [u64], t: Transition) -> Result<(), Overflow> {
        if self.bits == 1 {
            // The changes are looked at only to report an overflow.
            let changes = || self.changes.row(t as usize).iter();
            if !self.wide_adds.is_empty() && self.wide_adds.binary_search(&t).is_ok() {
                let ch = changes().find(|ch| ch.add > 1).expect("a wide add");
                return Err(self.overflow(t, ch.field, ch.add as u64));
            }
            for m in self.masks(t) {
                let w = out[m.word as usize] & !m.clear;
                if w & m.set != 0 {
                    let bit = (w & m.set).trailing_zeros();
                    let ch = changes()
                        .find(|ch| ch.field.word == m.word && ch.field.mask() >> bit & 1 != 0)
                        .expect("a set bit comes from a change");
                    return Err(self.overflow(t, ch.field, 2));
                }
                out[m.word as usize] = w | m.set;
            }
            return Ok(());
        }
        let cap = self.capacity();
        for ch in self.changes.row(t as usize) {
            let old = self.get(out, ch.field);
            let new = old - ch.sub as u64;
            let new = match new.checked_add(ch.add as u64) {
                Some(v) if v <= cap => v,
                v => return Err(self.overflow(t, ch.field, v.unwrap_or(u64::MAX))),
            };
            let w = &mut out[ch.field.word as usize];
            *w = (*w & !(cap << ch.field.shift)) | (new << ch.field.shift);
        }
        Ok(())
    }

    fn footprint(&self, t: Transition) -> &Footprint {
        self.footprints.row(t as usize)
    }

    fn describe_state(&self, state: &[u64]) -> String {
        let mut s = String::new();
        for (i, p) in self.net.places.iter().enumerate() {
            let k = self.tokens(state, i as PlaceIdx);
            if k == 0 {
                continue;
            }
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&p.label);
            if k > 1 {
                let _ = write!(s, "={k}");
            }
        }
        if s.is_empty() {
            s.push_str("(empty)");
        }
        s
    }

    fn marking_of(&self, state: &[u64]) -> Option<Vec<(String, u64)>> {
        let marked = self.net.places.iter().enumerate().filter_map(|(i, p)| {
            let k = self.tokens(state, i as PlaceIdx);
            (k > 0).then(|| (p.id.to_string(), k))
        });
        Some(marked.collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// p0 --t0--> p1 (weight 2 out), p1 --t1 (weight 2 in)--> p0; plus a reader of p0.
    fn weighted() -> Net {
        let mut b = NetBuilder::new("w");
        let p0 = b.add_place("p0", None, 1).unwrap();
        let p1 = b.add_place("p1", None, 0).unwrap();
        let t0 = b.add_transition("t0", None).unwrap();
        let t1 = b.add_transition("t1", None).unwrap();
        let r = b.add_transition("r", None).unwrap();
        b.add_arc(p0, t0, ArcKind::Input, 1).unwrap();
        b.add_arc(p1, t0, ArcKind::Output, 2).unwrap();
        b.add_arc(p1, t1, ArcKind::Input, 2).unwrap();
        b.add_arc(p0, t1, ArcKind::Output, 1).unwrap();
        b.add_arc(p0, r, ArcKind::Read, 1).unwrap();
        b.finish()
    }

    #[test]
    fn fires_with_weights_at_every_width() {
        let net = weighted();
        for bits in [8, 16, 32, 64] {
            let sys = NetSystem::with_bits(&net, bits);
            let mut m = vec![0; sys.state_words()];
            sys.initial_state(&mut m);
            assert!(sys.is_enabled(&m, 0) && !sys.is_enabled(&m, 1) && sys.is_enabled(&m, 2));
            let mut m2 = m.clone();
            sys.fire(&m, 0, &mut m2).unwrap();
            assert_eq!((sys.tokens(&m2, 0), sys.tokens(&m2, 1)), (0, 2));
            assert!(sys.is_enabled(&m2, 1) && !sys.is_enabled(&m2, 2));
            assert_eq!(sys.describe_state(&m2), "p1=2");
            sys.fire(&m2, 1, &mut m).unwrap();
            assert_eq!(sys.describe_state(&m), "p0");
        }
    }

    #[test]
    fn one_bit_overflow_is_reported_and_widening_fixes_it() {
        let net = weighted();
        let sys = NetSystem::with_bits(&net, 1);
        let mut m = vec![0; sys.state_words()];
        sys.initial_state(&mut m);
        let mut out = m.clone();
        let err = sys.fire(&m, 0, &mut out).unwrap_err();
        assert_eq!(err.resource_name, "p1");
        let wide = sys.widened().unwrap();
        assert_eq!(wide.bits(), 8);
    }

    #[test]
    fn footprints_follow_the_design_table() {
        let net = weighted();
        let sys = NetSystem::new(&net);
        let ra = Access::READ.union(Access::ADD);
        assert_eq!(
            sys.footprint(0),
            &[
                Touch {
                    resource: 0,
                    access: ra
                },
                Touch {
                    resource: 1,
                    access: Access::ADD
                }
            ]
        );
        assert_eq!(
            sys.footprint(2),
            &[Touch {
                resource: 0,
                access: Access::READ
            }]
        );
        assert!(sys.dependent(0, 1));
        assert!(sys.dependent(0, 2)); // consumer of p0 vs reader of p0
    }

    /// A pseudo-random net: `places` places, `transitions` transitions with up to 3 arcs of
    /// each kind and weights up to `max_weight` (some places marked).
    fn random_net(seed: u64, places: u32, transitions: u32, max_weight: u32) -> Net {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |n: u32| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % n as u64) as u32
        };
        let mut b = NetBuilder::new("r");
        for p in 0..places {
            b.add_place(format!("p{p}"), None, next(2)).unwrap();
        }
        for t in 0..transitions {
            b.add_transition(format!("t{t}"), None).unwrap();
            for kind in [ArcKind::Input, ArcKind::Output, ArcKind::Read] {
                for _ in 0..next(4) {
                    // Duplicates are refused by the builder: skip them.
                    let _ = b.add_arc(next(places), t, kind, 1 + next(max_weight));
                }
            }
        }
        b.finish()
    }

    #[test]
    fn sorted_and_unsorted_arc_lists_build_the_same_system() {
        // Arc lists sorted by place (as the builder leaves them) take the one-pass merge;
        // lists out of order, or naming a place twice, as a hand-made Net may have them, take
        // the path that collects, sorts and looks places up. Both must compile alike.
        let check = |sorted: &Net, unsorted: &Net, what: &str| {
            for bits in WIDTHS {
                let (a, b) = (
                    NetSystem::with_bits(sorted, bits),
                    NetSystem::with_bits(unsorted, bits),
                );
                let at = format!("{what}, {bits} bits");
                assert_eq!(format!("{:?}", a.tests), format!("{:?}", b.tests), "{at}");
                assert_eq!(
                    format!("{:?}", a.changes),
                    format!("{:?}", b.changes),
                    "{at}"
                );
                assert_eq!(a.wide_adds, b.wide_adds, "{at}");
                assert_eq!(
                    format!("{:?}", a.footprints),
                    format!("{:?}", b.footprints),
                    "{at}"
                );
                assert_eq!(
                    format!("{:?}", a.bit_index),
                    format!("{:?}", b.bit_index),
                    "{at}"
                );
            }
        };
        let mut changed = 0;
        for seed in 0..40 {
            // Few places (dense rows, crowded trigger lists) and many (several words).
            let places = if seed % 2 == 0 { 5 } else { 300 };
            let max_weight = if seed % 4 < 2 { 1 } else { 3 };
            let net = random_net(seed, places, 60, max_weight);
            let mut unsorted = net.clone();
            for t in &mut unsorted.transitions {
                t.pre.reverse();
                t.reads.reverse();
                if let Some(&a) = t.post.first() {
                    t.post.push(a);
                }
                changed += usize::from(t.pre.len() > 1 || !t.post.is_empty());
            }
            check(&net, &unsorted, &format!("seed {seed}"));
        }
        // The unsorted copies did take the other path.
        assert!(changed > 1000, "{changed}");
        let net = weighted();
        let mut unsorted = net.clone();
        unsorted
            .transitions
            .iter_mut()
            .for_each(|t| t.pre.reverse());
        check(&net, &unsorted, "weighted");
    }

    #[test]
    fn counters_never_wrap() {
        let net = weighted();
        let sys = NetSystem::with_bits(&net, 8);
        let mut m = vec![0; sys.state_words()];
        // p1 at 254: t0 adds 2 -> 256 > 255.
        m[0] = 1 | (254 << 8);
        let mut out = m.clone();
        let err = sys.fire(&m, 0, &mut out).unwrap_err();
        assert_eq!((err.value, err.capacity), (256, 255));
    }

    #[test]
    fn the_widest_counters_never_wrap_either() {
        let net = weighted();
        let sys = NetSystem::with_bits(&net, 64);
        assert!(sys.widened().is_none());
        // p1 two below the top: t0 adds 2, one too many for 64 bits.
        let mut m = vec![1, u64::MAX - 1];
        let mut out = m.clone();
        let err = sys.fire(&m, 0, &mut out).unwrap_err();
        assert_eq!((err.value, err.capacity), (u64::MAX, u64::MAX));
        m[1] = u64::MAX - 2;
        sys.fire(&m, 0, &mut out).unwrap();
        assert_eq!(sys.tokens(&out, 1), u64::MAX);
    }
}
