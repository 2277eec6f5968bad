//! Stubborn sets for LTL without next (Valmari; in the form of Peled's ample sets): at a
//! marking, a set of enabled transitions such that every transition outside it, fired first,
//! neither disables one inside nor is disabled by it (closure over conflicts, and over the
//! producers of a missing token for the disabled ones), with only invisible transitions
//! (none of them changes an atom's value), else every enabled transition. The cycle
//! condition is the searcher's ([`super::product`]): a state with a successor on the search
//! stack is expanded fully, so every cycle of the reduced graph has a fully expanded state.

use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::Predicate;
use crate::system::System;

/// What the stubborn sets of one net and one formula need: conflicts, producers, visibility.
pub struct Stubborn {
    /// The transitions that consume from or read each place.
    takers: Vec<Vec<TransIdx>>,
    /// The transitions that add tokens to each place.
    producers: Vec<Vec<TransIdx>>,
    /// Whether firing the transition may change some atom's value.
    visible: Vec<bool>,
}

/// The net effect of `t` on `p` is not zero.
fn changes(net: &Net, t: TransIdx, p: PlaceIdx) -> bool {
    let tr = &net.transitions[t as usize];
    let weight = |arcs: &[crate::model::net::Arc]| {
        arcs.iter().find(|a| a.place == p).map_or(0, |a| a.weight)
    };
    weight(&tr.pre) != weight(&tr.post)
}

impl Stubborn {
    /// The tables for `net` and the atoms of a formula.
    pub fn new(net: &Net, atoms: &[Predicate]) -> Stubborn {
        let places = net.places.len();
        let mut takers = vec![Vec::new(); places];
        let mut producers = vec![Vec::new(); places];
        for (t, tr) in net.transitions.iter().enumerate() {
            let t = t as TransIdx;
            for a in tr.pre.iter().chain(&tr.reads) {
                takers[a.place as usize].push(t);
            }
            for a in &tr.post {
                if changes(net, t, a.place) {
                    producers[a.place as usize].push(t);
                }
            }
        }
        for list in takers.iter_mut() {
            list.dedup();
        }
        // The places an atom's value depends on.
        let mut seen = vec![false; places];
        let mut fire_places = Vec::new();
        let mut all = false;
        for atom in atoms {
            atom.visit_support(
                &mut |p| seen[p as usize] = true,
                &mut |t| fire_places.push(t),
                &mut || all = true,
            );
        }
        for t in fire_places {
            let tr = &net.transitions[t as usize];
            for a in tr.pre.iter().chain(&tr.reads) {
                seen[a.place as usize] = true;
            }
        }
        let visible = (0..net.transitions.len() as TransIdx)
            .map(|t| {
                let tr = &net.transitions[t as usize];
                tr.pre
                    .iter()
                    .chain(&tr.post)
                    .any(|a| (all || seen[a.place as usize]) && changes(net, t, a.place))
            })
            .collect();
        Stubborn {
            takers,
            producers,
            visible,
        }
    }

    /// Whether each transition may change some atom's value (the visible ones); the others
    /// leave every atom's value as it was, at every marking.
    pub fn visible(&self) -> &[bool] {
        &self.visible
    }

    /// A stubborn set of the enabled transitions `enabled` (sorted) at `state`: a subset,
    /// or all of them when no smaller one suits. Tries a few seeds and keeps the smallest.
    pub fn reduce(
        &self,
        sys: &NetSystem<'_>,
        state: &[u64],
        enabled: &[TransIdx],
        scratch: &mut Scratch,
    ) -> Vec<TransIdx> {
        let mut best: Option<Vec<TransIdx>> = None;
        let seeds = enabled
            .iter()
            .filter(|&&t| !self.visible[t as usize])
            .take(3);
        for &seed in seeds {
            if let Some(set) = self.close(sys, state, seed, scratch)
                && best.as_ref().is_none_or(|b| set.len() < b.len())
            {
                best = Some(set);
                if best.as_ref().is_some_and(|b| b.len() == 1) {
                    break;
                }
            }
        }
        match best {
            Some(b) if b.len() < enabled.len() => b,
            _ => enabled.to_vec(),
        }
    }

    /// The closure from `seed`; `None` when it holds an enabled visible transition.
    fn close(
        &self,
        sys: &NetSystem<'_>,
        state: &[u64],
        seed: TransIdx,
        s: &mut Scratch,
    ) -> Option<Vec<TransIdx>> {
        let net = sys.net();
        s.mark.resize(net.transitions.len(), 0);
        s.generation = s.generation.wrapping_add(1);
        if s.generation == 0 {
            s.mark.iter_mut().for_each(|m| *m = 0);
            s.generation = 1;
        }
        let generation = s.generation;
        s.work.clear();
        s.mark[seed as usize] = generation;
        s.work.push(seed);
        let mut out = Vec::new();
        while let Some(t) = s.work.pop() {
            let tr = &net.transitions[t as usize];
            let add = |u: TransIdx, s: &mut Scratch| {
                if s.mark[u as usize] != generation {
                    s.mark[u as usize] = generation;
                    s.work.push(u);
                }
            };
            if sys.is_enabled(state, t) {
                if self.visible[t as usize] {
                    return None;
                }
                out.push(t);
                // Whoever takes a token t needs, or reads one t takes, conflicts with t.
                for a in tr.pre.iter().chain(&tr.reads) {
                    for &u in &self.takers[a.place as usize] {
                        add(u, s);
                    }
                }
            } else {
                // A place short of tokens: only its producers can enable t.
                let short = tr
                    .pre
                    .iter()
                    .chain(&tr.reads)
                    .filter(|a| sys.tokens(state, a.place) < a.weight as u64)
                    .min_by_key(|a| self.producers[a.place as usize].len());
                if let Some(a) = short {
                    for &u in &self.producers[a.place as usize] {
                        add(u, s);
                    }
                }
            }
        }
        out.sort_unstable();
        Some(out)
    }
}

/// Reused buffers of the closure.
#[derive(Default)]
pub struct Scratch {
    mark: Vec<u32>,
    generation: u32,
    work: Vec<TransIdx>,
}
