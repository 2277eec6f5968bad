//! Semiflows through given places when the Farkas algorithm cannot finish: a depth-first
//! search for a set `S` of places whose 0/1 vector is a semiflow (`Σ_{q∈S} C(q, t) = 0` for
//! every transition `t` that may fire), grown from one place. In nets made of state machines
//! synchronised by transitions (workflows, protocols) such sets are the state-machine
//! components, and one through each place bounds it, where the minimal semiflows are too many
//! to list (one per choice of a branch at every fork).
//!
//! The search only proposes: every set found is checked as a semiflow by the caller, so a
//! mistake here costs a semiflow, never makes a wrong one.

use std::time::Instant;

use super::effect;
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// The most places added and removed by one search.
const STEPS: usize = 20_000;

/// The incidence of the transitions that may fire, both ways: by transition `(place,
/// change)` and by place `(transition, change)`.
pub(super) struct Incidence {
    by_transition: Vec<Vec<(PlaceIdx, i64)>>,
    by_place: Vec<Vec<(TransIdx, i64)>>,
}

impl Incidence {
    /// The incidence of `net` without the transitions marked in `dead`.
    pub(super) fn of(net: &Net, dead: &[bool]) -> Incidence {
        let mut by_place = vec![Vec::new(); net.places.len()];
        let by_transition: Vec<Vec<(PlaceIdx, i64)>> = (0..net.transitions.len())
            .map(|t| {
                if dead.get(t).copied().unwrap_or(false) {
                    return Vec::new();
                }
                let e = effect(net, t as TransIdx);
                for &(p, c) in &e {
                    by_place[p as usize].push((t as TransIdx, c));
                }
                e
            })
            .collect();
        Incidence {
            by_transition,
            by_place,
        }
    }

    /// The places no semiflow covers for certain: those on which some transition only
    /// produces, or only consumes, once the places already excluded are left out (a
    /// semiflow's weights there would make `y·C(·, t)` non-zero), until nothing changes.
    pub(super) fn excluded(&self) -> Vec<bool> {
        let mut out = vec![false; self.by_place.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for col in &self.by_transition {
                let live = || col.iter().filter(|&&(p, _)| !out[p as usize]);
                let (pos, neg) =
                    live().fold((false, false), |(a, b), &(_, c)| (a || c > 0, b || c < 0));
                if pos != neg {
                    let places: Vec<PlaceIdx> = live().map(|&(p, _)| p).collect();
                    for p in places {
                        out[p as usize] = true;
                    }
                    changed = true;
                }
            }
        }
        out
    }
}

/// A depth-first search for a 0/1 semiflow through one place.
struct Search<'a> {
    inc: &'a Incidence,
    excluded: &'a [bool],
    in_set: Vec<bool>,
    /// The places in a set found already: a search tries the others first, to cover more.
    covered: Vec<bool>,
    /// `Σ_{q∈S} C(q, t)` by transition.
    balance: Vec<i64>,
    /// The transitions whose balance is not zero, and where each is in that list
    /// (`u32::MAX`: not in it).
    unbalanced: Vec<TransIdx>,
    position: Vec<u32>,
}

impl Search<'_> {
    fn add(&mut self, p: PlaceIdx, sign: i64) {
        self.in_set[p as usize] = sign > 0;
        for &(t, c) in &self.inc.by_place[p as usize] {
            let (before, after) = (
                self.balance[t as usize],
                self.balance[t as usize] + sign * c,
            );
            self.balance[t as usize] = after;
            if before == 0 && after != 0 {
                self.position[t as usize] = self.unbalanced.len() as u32;
                self.unbalanced.push(t);
            } else if before != 0 && after == 0 {
                let at = std::mem::replace(&mut self.position[t as usize], u32::MAX) as usize;
                self.unbalanced.swap_remove(at);
                if let Some(&moved) = self.unbalanced.get(at) {
                    self.position[moved as usize] = at as u32;
                }
            }
        }
    }

    /// The places that can reduce the imbalance of `t`, outside the set, those not covered
    /// yet first.
    fn candidates(&self, t: TransIdx) -> Vec<PlaceIdx> {
        let b = self.balance[t as usize];
        let mut out: Vec<PlaceIdx> = self.inc.by_transition[t as usize]
            .iter()
            .filter(|&&(q, c)| {
                c.signum() == -b.signum() && !self.in_set[q as usize] && !self.excluded[q as usize]
            })
            .map(|&(q, _)| q)
            .collect();
        out.sort_by_key(|&q| self.covered[q as usize]);
        out
    }

    /// The unbalanced transition with the fewest candidates, with them; `None` when every
    /// transition is balanced.
    fn most_constrained(&self) -> Option<(TransIdx, Vec<PlaceIdx>)> {
        let mut best: Option<(TransIdx, Vec<PlaceIdx>)> = None;
        for &t in &self.unbalanced {
            let c = self.candidates(t);
            if best.as_ref().is_none_or(|b| c.len() < b.1.len()) {
                let done = c.is_empty();
                best = Some((t, c));
                if done {
                    break;
                }
            }
        }
        best
    }

    /// A set through `p` whose 0/1 vector is a semiflow, within [`STEPS`] steps.
    fn from(&mut self, p: PlaceIdx, deadline: Instant) -> Option<Vec<PlaceIdx>> {
        // Each frame: the candidates of one choice and the index of the one taken.
        let mut frames: Vec<(Vec<PlaceIdx>, usize)> = Vec::new();
        let mut steps = 0usize;
        self.add(p, 1);
        let found = loop {
            steps += 1;
            if steps > STEPS || (steps.is_multiple_of(256) && Instant::now() >= deadline) {
                break None;
            }
            match self.most_constrained() {
                None => break Some(()),
                Some((_, c)) if !c.is_empty() => {
                    self.add(c[0], 1);
                    frames.push((c, 0));
                }
                Some(_) => {
                    // Backtrack to the last choice with another candidate.
                    while let Some((c, i)) = frames.last_mut() {
                        let taken = c[*i];
                        *i += 1;
                        let next = c.get(*i).copied();
                        self.add(taken, -1);
                        match next {
                            Some(q) => {
                                self.add(q, 1);
                                break;
                            }
                            None => {
                                frames.pop();
                            }
                        }
                    }
                    if frames.is_empty() {
                        break None;
                    }
                }
            }
        };
        let set: Vec<PlaceIdx> = frames.iter().map(|(c, i)| c[*i]).chain([p]).collect();
        // Leave the scratch state clean for the next search.
        for &q in &set {
            self.add(q, -1);
        }
        debug_assert!(self.unbalanced.is_empty());
        found.map(|()| {
            let mut set = set;
            set.sort_unstable();
            set
        })
    }
}

/// For each place marked in `wanted` (and not excluded), in order, not yet in a set found, a
/// set of places through it whose 0/1 vector is a semiflow of `inc`, when a bounded search
/// finds one before `deadline`.
pub(super) fn zero_one_semiflows(
    inc: &Incidence,
    wanted: &[bool],
    deadline: Instant,
) -> Vec<Vec<PlaceIdx>> {
    let places = inc.by_place.len();
    let excluded = inc.excluded();
    let mut search = Search {
        inc,
        excluded: &excluded,
        in_set: vec![false; places],
        covered: vec![false; places],
        balance: vec![0; inc.by_transition.len()],
        unbalanced: Vec::new(),
        position: vec![u32::MAX; inc.by_transition.len()],
    };
    let mut out = Vec::new();
    for p in 0..places {
        if !wanted[p] || search.covered[p] || excluded[p] {
            continue;
        }
        if Instant::now() >= deadline {
            break;
        }
        if let Some(set) = search.from(p as PlaceIdx, deadline) {
            for &q in &set {
                search.covered[q as usize] = true;
            }
            out.push(set);
        }
    }
    out
}
