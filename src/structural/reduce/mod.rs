//! Structural reductions: a smaller net that answers the same question as the given one, and
//! the map back from the smaller net to the given one.
//!
//! [`reduce`] applies the rules of `rules.rs` (Berthelot's reductions and their modern forms) to
//! a fixpoint within a [`Budget`], each only when its precondition holds for the
//! [`Preserve`] class asked for. The [`Reduction`] it returns holds the reduced [`Net`], the
//! rules applied, the sizes before and after, and the map back: every reduced place is one
//! original place, every reduced transition a sequence of original transitions, so that a run
//! of the reduced net becomes a run of the original net ([`Reduction::lift_run`],
//! [`Reduction::lift_dead_run`]) and witnesses are given in the original's names.
//!
//! *What survives.* Every rule keeps this invariant: every run of the reduced net, each
//! transition replaced by its sequence, is a run of the original net reaching the same
//! marking on the reduced net's places. So the reduced net's reachable markings are
//! projections of the original's (a 1-safe net stays 1-safe, a bounded net bounded), and each
//! rule's doc comment says what it adds for its class.

mod rules;

use std::time::Instant;

use compact_str::CompactString;

use super::{Budget, Facts};
use crate::model::net::{ArcKind, Net, NetBuilder, Nupn, PlaceIdx, TransIdx};

/// What a reduction must preserve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Preserve {
    /// Whether a dead marking is reachable; a dead run of the reduced net lifts to a dead run
    /// of the original ([`Reduction::lift_dead_run`]).
    Deadlock,
    /// The reachable markings projected on the kept places, and whether each kept transition
    /// is enabled in them (state predicates of reachability formulas). Kept places and
    /// transitions survive with their names; the places a kept transition needs are kept too.
    Reachability {
        /// Places whose marking is observed.
        places: Vec<PlaceIdx>,
        /// Transitions whose fireability is observed.
        transitions: Vec<TransIdx>,
    },
    /// LTL without next on the kept places and the fireability of the kept transitions: the
    /// maximal runs of the net and of its reduction have the same stutter-equivalence classes
    /// of traces on what is observed (a dead run's last marking repeated forever). Also
    /// preserves what [`Preserve::Reachability`] does, and the existence of dead markings.
    LtlX {
        /// Places whose marking is observed.
        places: Vec<PlaceIdx>,
        /// Transitions whose fireability is observed.
        transitions: Vec<TransIdx>,
    },
    /// Liveness of every transition: the reduced net is live (every transition can fire again
    /// from every reachable marking) iff the original is. Nothing is kept; no transition is
    /// removed as dead (a dead transition makes the net not live, and stays to say so), and
    /// self-loops stay (each must be live too). Each rule's doc comment in `rules.rs` says why
    /// it preserves liveness: a reduced transition is live iff each original transition it
    /// stands for is, and a removed one is live iff the one it was merged into or is parallel
    /// to is. Not for the liveness of some transitions only (the arguments use the liveness
    /// of all).
    Liveness,
}

impl Preserve {
    /// Whether transitions proven never enabled must stay ([`Preserve::Liveness`]).
    fn keeps_dead_transitions(&self) -> bool {
        matches!(self, Preserve::Liveness)
    }

    /// The kept places and transitions, both indexed by the original's nodes.
    fn kept(&self, net: &Net) -> (Vec<bool>, Vec<bool>) {
        let mut places = vec![false; net.places.len()];
        let mut transitions = vec![false; net.transitions.len()];
        if let Preserve::Reachability {
            places: ps,
            transitions: ts,
        }
        | Preserve::LtlX {
            places: ps,
            transitions: ts,
        } = self
        {
            for &p in ps {
                if let Some(k) = places.get_mut(p as usize) {
                    *k = true;
                }
            }
            for &t in ts {
                let Some(tr) = net.transitions.get(t as usize) else {
                    continue;
                };
                transitions[t as usize] = true;
                // Whether `t` is enabled is a function of the marking of what it needs.
                for a in tr.pre.iter().chain(&tr.reads) {
                    places[a.place as usize] = true;
                }
            }
        }
        (places, transitions)
    }
}

/// Sizes of a net.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Sizes {
    /// Number of places.
    pub places: usize,
    /// Number of transitions.
    pub transitions: usize,
    /// Number of arcs (input, output and read).
    pub arcs: usize,
}

impl Sizes {
    /// The sizes of `net`.
    pub fn of(net: &Net) -> Sizes {
        Sizes {
            places: net.places.len(),
            transitions: net.transitions.len(),
            arcs: net.arc_count(),
        }
    }
}

/// A reduced net and the map back to the net it was reduced from.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The reduced net.
    pub net: Net,
    /// Each rule applied, with how many times, in the order the rounds apply them (rules that never applied left out).
    pub rules: Vec<(&'static str, usize)>,
    /// Sizes of the original net.
    pub before: Sizes,
    /// Sizes of the reduced net.
    pub after: Sizes,
    /// Whether the rules reached their fixpoint (false: the budget ran out first; the reduced
    /// net is still sound, only larger than it could be).
    pub complete: bool,
    /// The original place of each reduced place.
    places: Vec<PlaceIdx>,
    /// The sequence of original transitions of each reduced transition.
    transitions: Vec<Vec<TransIdx>>,
    /// The transitions removed by pre-agglomerations (fired just before the transitions they
    /// were merged into), as sequences of original transitions, in the order the rules were
    /// applied: a dead run of the reduced net, lifted, may leave them enabled.
    delayed: Vec<Vec<TransIdx>>,
    /// The reduced place of each original place, if it survived.
    place_index: Vec<Option<PlaceIdx>>,
    /// The reduced transition that is each original transition alone, if any.
    transition_index: Vec<Option<TransIdx>>,
}

/// The longest run [`Reduction::lift_dead_run`] appends (a bound on a loop that ends on every
/// net the rules produce; the bound only guards against a mistake turning into a hang).
const COMPLETION_STEPS: usize = 1 << 20;

impl Reduction {
    /// The original place of reduced place `p`.
    pub fn original_place(&self, p: PlaceIdx) -> PlaceIdx {
        self.places[p as usize]
    }

    /// The original transitions, in firing order, of reduced transition `t`.
    pub fn original_transitions(&self, t: TransIdx) -> &[TransIdx] {
        &self.transitions[t as usize]
    }

    /// The reduced place of original place `p`, if it survived (kept places always do).
    pub fn place_of(&self, p: PlaceIdx) -> Option<PlaceIdx> {
        self.place_index.get(p as usize).copied().flatten()
    }

    /// The reduced transition that is original transition `t` alone, if there is one (kept
    /// transitions always have one).
    pub fn transition_of(&self, t: TransIdx) -> Option<TransIdx> {
        self.transition_index.get(t as usize).copied().flatten()
    }

    /// A run of the original net from a run of the reduced net: each transition replaced by
    /// its sequence. It reaches the same marking on the reduced net's places.
    pub fn lift_run(&self, run: &[TransIdx]) -> Vec<TransIdx> {
        run.iter()
            .flat_map(|&t| self.transitions[t as usize].iter().copied())
            .collect()
    }

    /// A run of `original` (the net this reduction was made from, under [`Preserve::Deadlock`]
    /// or [`Preserve::LtlX`]) to a dead marking, from a run of the reduced net to a dead
    /// marking: [`lift_run`](Self::lift_run), then, from the last pre-agglomeration applied
    /// to the first, its delayed transition fired as long as it can (see `rules.rs`: each
    /// step turns a dead marking of one net of the chain of reductions into a dead marking
    /// of the net before it).
    pub fn lift_dead_run(&self, original: &Net, run: &[TransIdx]) -> Vec<TransIdx> {
        let mut lifted = self.lift_run(run);
        let mut marking: Vec<u64> = original.places.iter().map(|p| p.initial as u64).collect();
        for &t in &lifted {
            fire(original, &mut marking, t);
        }
        let mut steps = 0;
        for sequence in self.delayed.iter().rev() {
            while steps < COMPLETION_STEPS && firable(original, &marking, sequence) {
                for &t in sequence {
                    fire(original, &mut marking, t);
                    lifted.push(t);
                }
                steps += 1;
            }
        }
        lifted
    }
}

/// Whether `sequence` can be fired from `marking` in `net`.
fn firable(net: &Net, marking: &[u64], sequence: &[TransIdx]) -> bool {
    let mut m = marking.to_vec();
    sequence.iter().all(|&t| {
        let tr = &net.transitions[t as usize];
        let on = tr
            .pre
            .iter()
            .chain(&tr.reads)
            .all(|a| m[a.place as usize] >= a.weight as u64);
        if on {
            fire(net, &mut m, t);
        }
        on
    })
}

/// Fires `t` at `marking` (saturating: the caller fires enabled transitions only).
fn fire(net: &Net, marking: &mut [u64], t: TransIdx) {
    let tr = &net.transitions[t as usize];
    for a in &tr.pre {
        let m = &mut marking[a.place as usize];
        *m = m.saturating_sub(a.weight as u64);
    }
    for a in &tr.post {
        let m = &mut marking[a.place as usize];
        *m = m.saturating_add(a.weight as u64);
    }
}

/// Arcs of a working transition: `(place, weight)` sorted by place, places indexing
/// [`Work::places`].
pub(crate) type Arcs = Vec<(u32, u32)>;

/// A place of the net being reduced.
#[derive(Clone, Debug)]
pub(crate) struct WorkPlace {
    /// The original place.
    pub origin: PlaceIdx,
    /// Tokens in the initial marking.
    pub initial: u32,
    /// Not removed yet.
    pub alive: bool,
    /// Observed: never removed.
    pub kept: bool,
}

/// A transition of the net being reduced.
#[derive(Clone, Debug)]
pub(crate) struct WorkTransition {
    /// The original transitions it stands for, in firing order.
    pub origin: Vec<TransIdx>,
    /// Input arcs.
    pub pre: Arcs,
    /// Output arcs.
    pub post: Arcs,
    /// Read arcs.
    pub reads: Arcs,
    /// Not removed yet.
    pub alive: bool,
    /// Observed: never removed nor merged.
    pub kept: bool,
}

/// The net being reduced: nodes are removed by a flag and added at the end, so that indices
/// stay valid during a pass.
#[derive(Clone, Debug)]
pub(crate) struct Work {
    /// Places.
    pub places: Vec<WorkPlace>,
    /// Transitions.
    pub transitions: Vec<WorkTransition>,
    /// Transitions removed by pre-agglomerations, as sequences of original transitions, in
    /// the order the rules were applied.
    pub delayed: Vec<Vec<TransIdx>>,
    /// Transitions proven never enabled stay ([`Preserve::Liveness`]): a rule that would
    /// remove one leaves its node alone.
    pub keep_dead: bool,
}

impl Work {
    /// The working copy of `net`, with what `preserve` keeps.
    fn of(net: &Net, preserve: &Preserve) -> Work {
        let (kept_places, kept_transitions) = preserve.kept(net);
        let arcs = |list: &crate::model::net::Arcs| -> Arcs {
            list.iter().map(|a| (a.place, a.weight)).collect()
        };
        Work {
            places: net
                .places
                .iter()
                .enumerate()
                .map(|(i, p)| WorkPlace {
                    origin: i as PlaceIdx,
                    initial: p.initial,
                    alive: true,
                    kept: kept_places[i],
                })
                .collect(),
            transitions: net
                .transitions
                .iter()
                .enumerate()
                .map(|(i, t)| WorkTransition {
                    origin: vec![i as TransIdx],
                    pre: arcs(&t.pre),
                    post: arcs(&t.post),
                    reads: arcs(&t.reads),
                    alive: true,
                    kept: kept_transitions[i],
                })
                .collect(),
            delayed: Vec::new(),
            keep_dead: preserve.keeps_dead_transitions(),
        }
    }

    /// Removes transition `t`.
    pub fn remove_transition(&mut self, t: usize) {
        self.transitions[t].alive = false;
    }

    /// Removes place `p` and every arc on it.
    pub fn remove_place(&mut self, p: u32, neighbours: &Neighbours) {
        self.places[p as usize].alive = false;
        for &t in neighbours.all(p) {
            let tr = &mut self.transitions[t as usize];
            for list in [&mut tr.pre, &mut tr.post, &mut tr.reads] {
                list.retain(|a| a.0 != p);
            }
        }
    }

    /// The reduced net: the live nodes, with the original's identifiers (merged transitions
    /// get their parts' identifiers joined, made unique when needed).
    fn finish(&self, original: &Net) -> (Net, Vec<PlaceIdx>, Vec<Vec<TransIdx>>) {
        let mut b = NetBuilder::new(original.name.clone());
        let mut index = vec![u32::MAX; self.places.len()];
        let mut places = Vec::new();
        for (i, p) in self.places.iter().enumerate() {
            if p.alive {
                let o = &original.places[p.origin as usize];
                index[i] = unique(&mut b, o.id.clone(), |b, id| {
                    b.add_place(id, Some(o.label.clone()), p.initial)
                });
                places.push(p.origin);
            }
        }
        let mut transitions = Vec::new();
        for t in self.transitions.iter().filter(|t| t.alive) {
            let part = |f: fn(&crate::model::net::NetTransition) -> &CompactString| {
                let names: Vec<&str> = t
                    .origin
                    .iter()
                    .map(|&o| f(&original.transitions[o as usize]).as_str())
                    .collect();
                CompactString::from(names.join("__"))
            };
            let (id, label) = (part(|t| &t.id), part(|t| &t.label));
            let ti = unique(&mut b, id, |b, id| {
                b.add_transition(id, Some(label.clone()))
            });
            for (list, kind) in [
                (&t.pre, ArcKind::Input),
                (&t.post, ArcKind::Output),
                (&t.reads, ArcKind::Read),
            ] {
                for &(p, w) in list {
                    // Arcs are merged per place by the rules, so the builder refuses none.
                    let _ = b.add_arc(index[p as usize], ti, kind, w);
                }
            }
            transitions.push(t.origin.clone());
        }
        if original.certified_safe() {
            // Every reduced marking is the projection of a reachable one (the module's
            // invariant): 1-safe still.
            b.set_nupn(Nupn {
                safe: Some(true),
                ..Nupn::default()
            });
        }
        (b.finish(), places, transitions)
    }
}

/// Adds a node with identifier `id` through `add`, or `id_2`, `id_3`… when the identifier is
/// taken (by a merged transition's joined name).
fn unique<E>(
    b: &mut NetBuilder,
    id: CompactString,
    mut add: impl FnMut(&mut NetBuilder, CompactString) -> Result<u32, E>,
) -> u32 {
    let mut suffix = 1usize;
    let mut candidate = id.clone();
    loop {
        if let Ok(i) = add(b, candidate) {
            return i;
        }
        suffix += 1;
        candidate = compact_str::format_compact!("{id}_{suffix}");
    }
}

/// The live transitions around every place of a [`Work`], at the start of a pass.
#[derive(Clone, Debug, Default)]
pub(crate) struct Neighbours {
    /// Transitions putting tokens on each place.
    pub producers: Vec<Vec<u32>>,
    /// Transitions taking tokens from each place.
    pub consumers: Vec<Vec<u32>>,
    /// Transitions reading each place.
    pub readers: Vec<Vec<u32>>,
    /// Every transition with an arc on each place (sorted, no repeats).
    every: Vec<Vec<u32>>,
}

impl Neighbours {
    /// The neighbours in `work`.
    pub fn of(work: &Work) -> Neighbours {
        let n = work.places.len();
        let mut nb = Neighbours {
            producers: vec![Vec::new(); n],
            consumers: vec![Vec::new(); n],
            readers: vec![Vec::new(); n],
            every: vec![Vec::new(); n],
        };
        for (i, t) in work.transitions.iter().enumerate() {
            if !t.alive {
                continue;
            }
            for (list, into) in [
                (&t.post, &mut nb.producers),
                (&t.pre, &mut nb.consumers),
                (&t.reads, &mut nb.readers),
            ] {
                for &(p, _) in list {
                    into[p as usize].push(i as u32);
                }
            }
            for &(p, _) in t.pre.iter().chain(&t.post).chain(&t.reads) {
                let e = &mut nb.every[p as usize];
                if e.last() != Some(&(i as u32)) {
                    e.push(i as u32);
                }
            }
        }
        nb
    }

    /// Every live transition with an arc on `p`.
    pub fn all(&self, p: u32) -> &[u32] {
        &self.every[p as usize]
    }
}

/// The net `net` reduced by the rules whose preconditions hold for `preserve`, within
/// `budget` (its time shared by the structural facts and the rules; its entries bound the
/// semiflow computation of the facts).
pub fn reduce(net: &Net, preserve: &Preserve, budget: &Budget) -> Reduction {
    let start = Instant::now();
    let facts_budget = Budget {
        time: budget.time / 2,
        ..*budget
    };
    let facts = Facts::of(net, &facts_budget);
    let rest = Budget {
        time: budget.time.saturating_sub(start.elapsed()),
        ..*budget
    };
    reduce_with(net, preserve, &facts, &rest)
}

/// [`reduce`] with the net's structural `facts` already computed (a caller that has them
/// saves computing the semiflows again); `budget` is the rules' time alone.
pub fn reduce_with(net: &Net, preserve: &Preserve, facts: &Facts, budget: &Budget) -> Reduction {
    let start = Instant::now();
    let mut work = Work::of(net, preserve);
    let mut counts = vec![0usize; rules::RULES.len()];
    if !work.keep_dead {
        counts[0] += rules::remove_dead(&mut work, facts.dead());
    }
    let mut complete = false;
    while start.elapsed() < budget.time {
        let mut changed = 0;
        for (i, rule) in rules::RULES.iter().enumerate() {
            if start.elapsed() >= budget.time {
                break;
            }
            if let Some(apply) = rule.apply(preserve) {
                let n = apply(&mut work);
                counts[i] += n;
                changed += n;
            }
        }
        if changed == 0 {
            complete = true;
            break;
        }
    }
    let (reduced, places, transitions) = work.finish(net);
    let mut place_index = vec![None; net.places.len()];
    for (i, &p) in places.iter().enumerate() {
        place_index[p as usize] = Some(i as PlaceIdx);
    }
    let mut transition_index = vec![None; net.transitions.len()];
    for (i, s) in transitions.iter().enumerate() {
        if let [t] = s[..] {
            transition_index[t as usize] = Some(i as TransIdx);
        }
    }
    Reduction {
        before: Sizes::of(net),
        after: Sizes::of(&reduced),
        net: reduced,
        rules: rules::RULES
            .iter()
            .zip(counts)
            .map(|(r, n)| (r.name, n))
            .filter(|&(_, n)| n > 0)
            .collect(),
        complete,
        places,
        transitions,
        delayed: work.delayed,
        place_index,
        transition_index,
    }
}
