//! The reduction rules, each with its precondition for every preservation class.
//!
//! References: G. Berthelot, *Transformations and decompositions of nets*, Advances in Petri
//! Nets 1986, LNCS 254 (implicit places, pre- and post-fusion of transitions); S. Haddad and
//! J.-F. Pradat-Peyre, *New efficient Petri nets reductions for parallel programs
//! verification*, Parallel Processing Letters 16(1), 2006 (agglomerations for LTL without
//! next); Y. Thierry-Mieg, *Structural reductions revisited*, Petri Nets 2020, LNCS 12152
//! (the rules as used by model checkers, their conditions for deadlocks, safety and
//! LTL without next).
//!
//! Notation: `•t`, `t•` the input and output places of `t`, `•p`, `p•` the producers and
//! consumers of `p`; `K` the kept places (which include every place a kept transition
//! needs) — empty for [`Preserve::Deadlock`]. Every rule keeps the invariant of the module
//! above: a run of the reduced net, each transition replaced by its sequence, is a run of the
//! original reaching the same marking on the remaining places. Each rule below says why the
//! converse holds for its classes. A rule never removes or merges a kept node.
//!
//! *Liveness* ([`Preserve::Liveness`]: every transition can fire again from every reachable
//! marking). A rule preserves it when the original net `N` is live iff the reduced net `N'`
//! is; each rule's *Liveness* paragraph gives the argument. The ones common to several rules:
//! (a) when the firing sequences from every reachable marking `M` of `N` are those of `N'`
//! from the projection of `M`, and every removed transition is live iff a remaining one is,
//! liveness is the same; (b) the removal of a transition never enabled is not sound (it makes
//! `N` not live while `N'` may be), so under liveness such transitions stay
//! ([`Work::keep_dead`]) and the explicit pass on `N'` finds them dead; (c) a transition whose
//! firing changes no marking cannot be removed either (its own liveness would be lost).

use rustc_hash::FxHashMap;

use super::{Arcs, Neighbours, Preserve, Work, WorkTransition};

/// One pass of a rule over the net; returns how many times it applied.
type Pass = fn(&mut Work) -> usize;

/// A rule: its name and the classes it preserves.
pub(crate) struct Rule {
    /// The rule's name in summaries.
    pub name: &'static str,
    /// One pass of the rule over the net.
    pass: Pass,
    /// Whether it preserves [`Preserve::Reachability`] only (else every class but, unless
    /// `liveness`, [`Preserve::Liveness`]).
    reachability_only: bool,
    /// Whether it preserves [`Preserve::Liveness`].
    liveness: bool,
}

impl Rule {
    /// One pass of the rule, if it preserves `preserve`; the pass returns how many times it
    /// applied.
    pub fn apply(&self, preserve: &Preserve) -> Option<Pass> {
        let sound = match preserve {
            Preserve::Liveness => self.liveness,
            Preserve::Reachability { .. } => true,
            Preserve::Deadlock | Preserve::LtlX { .. } => !self.reachability_only,
        };
        sound.then_some(self.pass)
    }
}

/// A rule for every class.
const fn all(name: &'static str, pass: Pass) -> Rule {
    Rule {
        name,
        pass,
        reachability_only: false,
        liveness: true,
    }
}

/// Every rule, in the order a round applies them (cheap removals first).
pub(crate) const RULES: [Rule; 8] = [
    all("dead transitions", unmarkable_places),
    all("constant places", constant_places),
    all("sink places", sink_places),
    all("implicit places", implicit_places),
    all("parallel transitions", parallel_transitions),
    Rule {
        name: "self-loop transitions",
        pass: self_loops,
        reachability_only: true,
        liveness: false,
    },
    all("post-agglomeration", post_agglomeration),
    all("pre-agglomeration", pre_agglomeration),
];

/// **Dead transitions** (all classes), given the transitions the structural facts prove never
/// enabled ([`super::Facts::dead`]): they are removed unless kept. A transition never enabled
/// fires in no run and is enabled in no marking, so runs, markings and dead markings are
/// those of the net without it. (Kept ones stay: their fireability, always false, is
/// observed.)
pub(crate) fn remove_dead(work: &mut Work, dead: &[bool]) -> usize {
    let mut count = 0;
    for (t, &d) in dead.iter().enumerate() {
        let tr = &mut work.transitions[t];
        if d && tr.alive && !tr.kept {
            tr.alive = false;
            count += 1;
        }
    }
    count
}

/// **Dead transitions, again** (all classes): a place initially empty that no live transition
/// produces into stays empty, so every transition consuming or reading it is never enabled;
/// removed as in [`remove_dead`].
fn unmarkable_places(work: &mut Work) -> usize {
    if work.keep_dead {
        return 0; // Under liveness a never-enabled transition stays (see the module).
    }
    let nb = Neighbours::of(work);
    let mut count = 0;
    for p in 0..work.places.len() {
        let place = &work.places[p];
        if !place.alive || place.initial > 0 || !nb.producers[p].is_empty() {
            continue;
        }
        for &t in nb.consumers[p].iter().chain(&nb.readers[p]) {
            let tr = &mut work.transitions[t as usize];
            if tr.alive && !tr.kept {
                tr.alive = false;
                count += 1;
            }
        }
    }
    count
}

/// The weight of the arc on `p` in `arcs`, 0 without one.
fn weight(arcs: &Arcs, p: u32) -> u32 {
    arcs.iter().find(|a| a.0 == p).map_or(0, |a| a.1)
}

/// **Constant places** (all classes): a place `p ∉ K` on which every live transition consumes
/// as many tokens as it produces keeps its initial marking `m` in every reachable marking.
/// A transition needing more than `m` tokens of `p` is never enabled (removed, as dead);
/// every other one always has what it needs of `p`. Removing `p` and its arcs then changes
/// no run and no enabledness.
///
/// *Liveness.* Only when no transition needs more than `m` tokens of `p` (else `p` stays, and
/// so do those dead transitions): then the firing sequences from every reachable marking are
/// those of the reduced net from its projection (argument (a) of the module).
fn constant_places(work: &mut Work) -> usize {
    let nb = Neighbours::of(work);
    let mut count = 0;
    for p in 0..work.places.len() as u32 {
        let place = &work.places[p as usize];
        if !place.alive || place.kept {
            continue;
        }
        let initial = place.initial;
        let live = || {
            nb.all(p)
                .iter()
                .copied()
                .filter(|&t| work.transitions[t as usize].alive)
        };
        let constant = live().all(|t| {
            let tr = &work.transitions[t as usize];
            weight(&tr.pre, p) == weight(&tr.post, p)
        });
        if !constant {
            continue;
        }
        let dead: Vec<u32> = live()
            .filter(|&t| {
                let tr = &work.transitions[t as usize];
                weight(&tr.pre, p).max(weight(&tr.reads, p)) > initial
            })
            .collect();
        if !dead.is_empty() && work.keep_dead {
            continue;
        }
        if dead.iter().any(|&t| work.transitions[t as usize].kept) {
            continue; // Cannot happen (kept transitions need kept places), but stay exact.
        }
        for t in dead {
            work.remove_transition(t as usize);
        }
        work.remove_place(p, &nb);
        count += 1;
    }
    count
}

/// **Sink places** (all classes): a place `p ∉ K` that no live transition consumes or reads
/// never disables anything; removing it changes no run, and the markings of the other places
/// along every run are the same.
///
/// *Liveness.* The firing sequences from a reachable marking do not depend on `p`: argument
/// (a) of the module.
fn sink_places(work: &mut Work) -> usize {
    let nb = Neighbours::of(work);
    let mut count = 0;
    for p in 0..work.places.len() as u32 {
        let place = &work.places[p as usize];
        if place.alive
            && !place.kept
            && nb.consumers[p as usize].is_empty()
            && nb.readers[p as usize].is_empty()
        {
            work.remove_place(p, &nb);
            count += 1;
        }
    }
    count
}

/// **Implicit places** (all classes; Berthelot's implicit places, the case of one witness
/// place): a place `q ∉ K` and a place `p` that every transition changes by the same amount
/// (`post − pre` equal on both), with `d = M₀(q) − M₀(p) ≥ 0` and, for every transition `t`,
/// `need_t(q) ≤ d + need_t(p)` (`need` the larger of the input and read weights). Then
/// `M(q) = M(p) + d` in every reachable marking, so whenever `t` has what it needs of `p`
/// it has what it needs of `q`: `q` never disables anything, and removing it changes no run.
/// Parallel places (the same arcs) are the case `need_t(q) = need_t(p)`. In each group of
/// places with the same changes, places are taken by increasing initial marking and a place
/// is removed only with a witness that stays.
///
/// *Liveness.* Along every run of the reduced net from a reachable marking the equation
/// `M(q) = M(p) + d` still holds in the original, so `q` disables nothing there either: the
/// firing sequences are the same (argument (a) of the module).
fn implicit_places(work: &mut Work) -> usize {
    let nb = Neighbours::of(work);
    let mut groups: FxHashMap<Vec<(u32, i64)>, Vec<u32>> = FxHashMap::default();
    for p in 0..work.places.len() as u32 {
        if !work.places[p as usize].alive {
            continue;
        }
        let changes: Vec<(u32, i64)> = nb
            .all(p)
            .iter()
            .filter_map(|&t| {
                let tr = &work.transitions[t as usize];
                let change = weight(&tr.post, p) as i64 - weight(&tr.pre, p) as i64;
                (change != 0).then_some((t, change))
            })
            .collect();
        if !changes.is_empty() {
            groups.entry(changes).or_default().push(p);
        }
    }
    let need = |t: u32, p: u32| {
        let tr = &work.transitions[t as usize];
        weight(&tr.pre, p).max(weight(&tr.reads, p)) as u64
    };
    // The witness `p` covers `q`: `q` has no fewer tokens, and never needs more than `p`
    // allows.
    let covers = |p: u32, q: u32| {
        let (mp, mq) = (
            work.places[p as usize].initial as u64,
            work.places[q as usize].initial as u64,
        );
        mq >= mp
            && nb
                .all(q)
                .iter()
                .chain(nb.all(p))
                .all(|&t| need(t, q) <= mq - mp + need(t, p))
    };
    let mut remove = Vec::new();
    for (_, mut places) in groups {
        places.sort_by_key(|&p| {
            (
                work.places[p as usize].initial,
                !work.places[p as usize].kept,
            )
        });
        let mut witnesses: Vec<u32> = Vec::new();
        for q in places {
            // A bounded number of comparisons per place: groups of thousands of places with
            // the same changes would make this quadratic.
            let covered =
                !work.places[q as usize].kept && witnesses.iter().take(16).any(|&p| covers(p, q));
            if covered {
                remove.push(q);
            } else {
                witnesses.push(q);
            }
        }
    }
    for &q in &remove {
        work.remove_place(q, &nb);
    }
    remove.len()
}

/// **Parallel transitions** (all classes): transitions with the same input, output and read
/// arcs are one transition under two names; all but one are removed (a kept one stays). A
/// run firing a removed one fires the one left instead, through the same markings.
///
/// *Liveness.* A removed transition is enabled exactly where the one left is, with the same
/// effect, so one is live iff the other is; the reachable markings and the firing sequences
/// up to renaming are the same (argument (a) of the module).
fn parallel_transitions(work: &mut Work) -> usize {
    let mut groups: FxHashMap<(&Arcs, &Arcs, &Arcs), Vec<usize>> = FxHashMap::default();
    for (i, t) in work.transitions.iter().enumerate() {
        if t.alive {
            groups
                .entry((&t.pre, &t.post, &t.reads))
                .or_default()
                .push(i);
        }
    }
    let mut remove = Vec::new();
    for (_, ts) in groups {
        let keep = ts
            .iter()
            .copied()
            .find(|&t| work.transitions[t].kept)
            .unwrap_or(ts[0]);
        remove.extend(
            ts.into_iter()
                .filter(|&t| t != keep && !work.transitions[t].kept),
        );
    }
    for &t in &remove {
        work.remove_transition(t);
    }
    remove.len()
}

/// **Self-loop transitions** ([`Preserve::Reachability`] only): a transition `t ∉` kept
/// whose firing changes no marking (`pre = post`, any read arcs) adds no reachable marking;
/// removing it keeps the reachable markings. Not for deadlocks (a marking where only `t` is
/// enabled would become dead) nor LTL-X (a run looping on `t` forever at a marking that
/// enables other transitions would be lost), nor liveness (`t`'s own liveness would be lost).
fn self_loops(work: &mut Work) -> usize {
    let mut count = 0;
    for t in &mut work.transitions {
        if t.alive && !t.kept && t.pre == t.post {
            t.alive = false;
            count += 1;
        }
    }
    count
}

/// Nodes touched in the current pass of an agglomeration: a candidate touching one is left to
/// the next pass, whose [`Neighbours`] see the changes.
struct Dirty {
    places: Vec<bool>,
    transitions: Vec<bool>,
}

impl Dirty {
    fn of(work: &Work) -> Dirty {
        Dirty {
            places: vec![false; work.places.len()],
            transitions: vec![false; work.transitions.len()],
        }
    }

    fn transition(&self, t: u32) -> bool {
        self.transitions.get(t as usize).copied().unwrap_or(true)
    }

    /// Marks `t` and every place it has an arc on.
    fn mark(&mut self, t: &WorkTransition, index: Option<u32>) {
        if let Some(i) = index
            && let Some(d) = self.transitions.get_mut(i as usize)
        {
            *d = true;
        }
        for &(p, _) in t.pre.iter().chain(&t.post).chain(&t.reads) {
            self.places[p as usize] = true;
        }
    }
}

/// `a + b` on arcs, `None` on a weight overflow.
fn add_arcs(a: &Arcs, b: &Arcs) -> Option<Arcs> {
    let mut out = a.clone();
    for &(p, w) in b {
        match out.iter_mut().find(|e| e.0 == p) {
            Some(e) => e.1 = e.1.checked_add(w)?,
            None => out.push((p, w)),
        }
    }
    out.sort_unstable();
    Some(out)
}

/// `arcs` without the arc on `p`.
fn without(arcs: &Arcs, p: u32) -> Arcs {
    arcs.iter().copied().filter(|a| a.0 != p).collect()
}

/// The place `p` with its producers `H` and consumers `F`, when `p` is a candidate of an
/// agglomeration: live, not kept, initially empty, read by none, no transition both
/// producing and consuming it, nothing around it touched in this pass.
fn agglomeration_candidate<'a>(
    work: &Work,
    nb: &'a Neighbours,
    dirty: &Dirty,
    p: u32,
) -> Option<(&'a [u32], &'a [u32])> {
    let place = &work.places[p as usize];
    let (h, f) = (&nb.producers[p as usize], &nb.consumers[p as usize]);
    let ok = place.alive
        && !place.kept
        && place.initial == 0
        && !dirty.places[p as usize]
        && nb.readers[p as usize].is_empty()
        && !h.is_empty()
        && !f.is_empty()
        // The size either agglomeration allows, checked first: the tests below are quadratic.
        && (h.len() == 1 || h.len().saturating_mul(f.len()) <= h.len() + f.len())
        && h.iter()
            .chain(f)
            .all(|&t| !dirty.transition(t) && !work.transitions[t as usize].kept)
        && h.iter().all(|t| !f.contains(t));
    ok.then_some((&h[..], &f[..]))
}

/// Adds `t` to `work`, marking its places dirty.
fn push(work: &mut Work, dirty: &mut Dirty, t: WorkTransition) {
    dirty.mark(&t, None);
    work.transitions.push(t);
}

/// **Post-agglomeration** (Berthelot's post-fusion; all classes): a place `p ∉ K`, initially
/// empty, read by none, whose consumers `F` each have `•f = {p}` with weight `w`, no read
/// arcs, `f• ∩ K = ∅`, and whose producers `H` each put exactly `w` tokens on `p` and do not
/// consume it; no node of `H ∪ F` kept. Every pair `h, f` becomes one transition `h;f`
/// (`pre(h)`, `post(h) − p + post(f)`), and `p`, `H`, `F` go (only when `|H|·|F| ≤ |H| + |F|`,
/// so the net does not grow).
///
/// *Why.* Once `h` has fired, `f` is enabled and only other transitions of `F` compete for
/// the token, so in any run each firing of an `f` can be moved to just after the `h` whose
/// tokens it takes (the moved `f` only adds tokens earlier; the transitions in between still
/// fire — monotonicity). A firing of `h` never followed by an `f` becomes `h;f`, which adds
/// tokens on `f•` only. The markings along the reordered run agree with the original's on
/// every place but `p` and `f•`, none in `K`: the same traces up to stuttering (LTL-X), the
/// same projections on `K` (reachability). A dead marking has `M(p) < w`, so `M(p) = 0` (a
/// multiple of `w`): no firing pending, and the reordered run reaches the same marking,
/// dead in the reduced net (no `h` enabled, so no `h;f`); conversely a dead marking of the
/// reduced net is dead in the original with `M(p) = 0`. Infinite runs stay infinite: `F`
/// fires at most as often as `H`.
///
/// *Liveness.* The reachable markings of `N'` are those of `N` with `M(p) = 0` (projected). In
/// any run, a firing of `h` not followed by a firing of an `f` taking its tokens can be
/// followed at once by any `f` (it needs only `p`, which holds the `w` tokens `h` just put,
/// and adds tokens only): so every run of `N` from such a marking, reordered as above and
/// completed, is a run of `N'` firing the same transitions and at least one `h;f` for every
/// `h` it fired, with any `f` chosen. `N` live ⟹ `N'` live: from a reachable `M` of `N'`,
/// `N` can fire `h` (then `h;f` for the `f` wanted) or any other transition. `N'` live ⟹
/// `N` live: from a reachable marking `M` of `N` with `k` firings of `h` pending
/// (`M(p) = k·w`), firing `k` transitions of `F` reaches a marking with `M(p) = 0`, a
/// reachable marking of `N'`, from which every `h;f` (so every `h` and every `f`) and every
/// other transition can fire again.
fn post_agglomeration(work: &mut Work) -> usize {
    let nb = Neighbours::of(work);
    let mut dirty = Dirty::of(work);
    let mut count = 0;
    for p in 0..work.places.len() as u32 {
        let Some((h, f)) = agglomeration_candidate(work, &nb, &dirty, p) else {
            continue;
        };
        if h.len() * f.len() > h.len() + f.len() {
            continue;
        }
        let w = weight(&work.transitions[f[0] as usize].pre, p);
        let consumers_ok = f.iter().all(|&t| {
            let tr = &work.transitions[t as usize];
            tr.pre[..] == [(p, w)]
                && tr.reads.is_empty()
                && tr.post.iter().all(|a| !work.places[a.0 as usize].kept)
        });
        let producers_ok = h.iter().all(|&t| {
            let tr = &work.transitions[t as usize];
            weight(&tr.post, p) == w && weight(&tr.pre, p) == 0
        });
        if !consumers_ok || !producers_ok {
            continue;
        }
        let mut merged = Vec::new();
        for &hi in h {
            for &fi in f {
                let (ht, ft) = (
                    &work.transitions[hi as usize],
                    &work.transitions[fi as usize],
                );
                let Some(post) = add_arcs(&without(&ht.post, p), &ft.post) else {
                    continue;
                };
                merged.push(WorkTransition {
                    origin: ht.origin.iter().chain(&ft.origin).copied().collect(),
                    pre: ht.pre.clone(),
                    post,
                    reads: ht.reads.clone(),
                    alive: true,
                    kept: false,
                });
            }
        }
        if merged.len() != h.len() * f.len() {
            continue; // A weight overflowed.
        }
        for &t in h.iter().chain(f) {
            dirty.mark(&work.transitions[t as usize], Some(t));
            work.remove_transition(t as usize);
        }
        for t in merged {
            push(work, &mut dirty, t);
        }
        work.places[p as usize].alive = false;
        dirty.places[p as usize] = true;
        count += 1;
    }
    count
}

/// **Pre-agglomeration** (Berthelot's pre-fusion; all classes): a place `p ∉ K`, initially
/// empty, read by none, with one producer `h`, where `h• = {p}` with weight `w`, `h` has no
/// read arcs, `•h ≠ ∅`, `•h ∩ K = ∅`, and every place of `•h` is consumed by `h` only and
/// read by none; every consumer `f` of `p` takes exactly `w` tokens from it; no node of
/// `{h} ∪ F` kept. Every `f` becomes `h;f` (`pre(f) − p + pre(h)`, `post(f)`, `reads(f)`),
/// and `h` and `p` go.
///
/// *Why.* The tokens `h` takes can be taken by `h` only and are seen by nobody, and the
/// tokens it puts on `p` are used by `F` only, so in any run each firing of `h` can be put
/// off until just before the `f` that takes its tokens, or dropped when none does; the
/// markings along the delayed run agree with the original's except on `•h` and `p`, none
/// in `K`: the same projections on `K` and the same traces up to stuttering. A dead marking
/// of the original, its pending firings of `h` undone, is dead in the reduced net (with a
/// firing of `h` pending, `p` holds `w` tokens and an `f` not enabled lacks some other
/// place, as `h;f` does). A dead marking of the reduced net may enable `h` in the original;
/// firing `h` while it is enabled (it consumes tokens nothing else puts back at a dead
/// marking, so this ends) reaches a dead marking: [`super::Reduction::lift_dead_run`].
///
/// *Liveness.* `N` live ⟹ `N'` live: a reachable marking `M` of `N'` is one of `N` with
/// `M(p) = 0`; a run of `N` from it firing `f` (or any other transition), its firings of `h`
/// put off until just before the `f` taking their tokens (every `f` takes a token of an `h`
/// of the run, as `M(p) = 0`) and the others dropped, is a run of `N'` firing `h;f`. `N'`
/// live ⟹ `N` live: a reachable marking `M` of `N` with `k` firings of `h` pending is `M°`
/// (the same run with those `k` firings dropped, reachable in `N'`) after `h` fired `k` times.
/// As `N'` is live, from `M°` it has a run firing some `h;f` `k` times and then any
/// transition wanted; in `N`, from `M`, that run lifted with its first `k` firings of `h`
/// left out fires: until the `k`-th, the marking is the lifted run's with more tokens on `p`
/// (taken only by `F`) and fewer on `•h` (taken only by the left-out `h`, read by none).
fn pre_agglomeration(work: &mut Work) -> usize {
    let nb = Neighbours::of(work);
    let mut dirty = Dirty::of(work);
    let mut count = 0;
    for p in 0..work.places.len() as u32 {
        let Some((h, f)) = agglomeration_candidate(work, &nb, &dirty, p) else {
            continue;
        };
        let [hi] = *h else { continue };
        let ht = &work.transitions[hi as usize];
        let Some(&(_, w)) = ht.post.first() else {
            continue;
        };
        let h_ok = ht.post.len() == 1
            && ht.reads.is_empty()
            && !ht.pre.is_empty()
            && ht.pre.iter().all(|&(q, _)| {
                !work.places[q as usize].kept
                    && !dirty.places[q as usize]
                    && nb.consumers[q as usize][..] == [hi]
                    && nb.readers[q as usize].is_empty()
            });
        let f_ok = f
            .iter()
            .all(|&t| weight(&work.transitions[t as usize].pre, p) == w);
        if !h_ok || !f_ok {
            continue;
        }
        let ht = ht.clone();
        let merged: Vec<WorkTransition> = f
            .iter()
            .map(|&fi| {
                let ft = &work.transitions[fi as usize];
                let mut pre = without(&ft.pre, p);
                // Disjoint: the places of •h are consumed by h alone.
                pre.extend_from_slice(&ht.pre);
                pre.sort_unstable();
                WorkTransition {
                    origin: ht.origin.iter().chain(&ft.origin).copied().collect(),
                    pre,
                    post: ft.post.clone(),
                    reads: ft.reads.clone(),
                    alive: true,
                    kept: false,
                }
            })
            .collect();
        dirty.mark(&ht, Some(hi));
        work.remove_transition(hi as usize);
        for &t in f {
            dirty.mark(&work.transitions[t as usize], Some(t));
            work.remove_transition(t as usize);
        }
        for t in merged {
            push(work, &mut dirty, t);
        }
        work.places[p as usize].alive = false;
        work.delayed.push(ht.origin);
        count += 1;
    }
    count
}
