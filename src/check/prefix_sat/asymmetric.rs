//! Asymmetric conflict on a contextual prefix: the cycles a set of events must not have to be
//! a configuration, and the firing order of a configuration.
//!
//! In a contextual prefix, `e ↗ f` (*e* must occur before *f* when both occur) when `e < f` or
//! `e` reads a condition `f` consumes. A set of events closed under causality and free of
//! symmetric conflict is a configuration iff `↗` has no cycle on it; its firing orders are the
//! linearisations of `↗` (readers before the consumer of what they read).
//!
//! The encoding forbids cycles lazily: the clauses say closure and conflict-freeness only; a
//! model whose events have a cycle gets a clause against that cycle and the solver is asked
//! again (a cycle found is never a configuration, so the clause removes no configuration; a
//! model without a cycle is one). The clause names only the *readers* on the cycle (the
//! sources of its `e ↗ f` edges where `e` reads what `f` consumes): every other event of the
//! cycle is a cause of the next reader along it, so causal closure brings it in.
//! Cycles of two readers (each reads what the other consumes) are common and cheap, so they are
//! forbidden from the start.

use super::occurrence::Occurrence;
use crate::explore::prefix::NONE;

/// The successors of every usable event under the immediate edges of `↗`.
pub(super) struct Asymmetric {
    /// Per event: `(f, reads)`, `f` usable and `e ↗ f` immediately: `e` produces a condition
    /// `f` consumes or reads (`reads` false), or `e` reads one `f` consumes (`reads` true).
    next: Vec<Vec<(u32, bool)>>,
}

impl Asymmetric {
    /// The edges of `occ` (none for a plain prefix).
    pub(super) fn new(occ: Occurrence) -> Self {
        let n = occ.events();
        let mut next: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n as usize];
        if !occ.contextual() {
            return Asymmetric { next };
        }
        let mut consumers: Vec<Vec<u32>> = vec![Vec::new(); occ.conditions() as usize];
        for e in (0..n).filter(|&e| occ.usable(e)) {
            for &c in occ.preset(e) {
                consumers[c as usize].push(e);
            }
        }
        for f in (0..n).filter(|&f| occ.usable(f)) {
            for &c in occ.preset(f).iter().chain(occ.context(f)) {
                let e = occ.producer(c);
                if e != NONE {
                    next[e as usize].push((f, false));
                }
            }
        }
        for e in (0..n).filter(|&e| occ.usable(e)) {
            for &c in occ.context(e) {
                for &f in &consumers[c as usize] {
                    next[e as usize].push((f, true));
                }
            }
        }
        for edges in &mut next {
            // One edge per successor, a causal one where there are both (shorter clauses).
            edges.sort_unstable();
            edges.dedup_by_key(|x| x.0);
        }
        Asymmetric { next }
    }

    /// The pairs of usable events each reading a condition the other consumes.
    pub(super) fn two_cycles(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (e, edges) in self.next.iter().enumerate() {
            let e = e as u32;
            for &(f, reads) in edges {
                if reads && e < f && self.next[f as usize].contains(&(e, true)) {
                    out.push((e, f));
                }
            }
        }
        out
    }

    /// Cycles of `↗` on the set `chosen` (a flag per event), each as the readers whose
    /// joint presence makes it (see the module's documentation); empty iff `chosen` is
    /// acyclic. At most `max` cycles.
    pub(super) fn cycles(&self, chosen: &[bool], max: usize) -> Vec<Vec<u32>> {
        // Depth-first search; every back edge closes a cycle on the search's stack.
        const WHITE: u8 = 0;
        const GREY: u8 = 1;
        const BLACK: u8 = 2;
        let mut colour = vec![WHITE; chosen.len()];
        let mut out = Vec::new();
        // (event, index of its next edge, whether the edge into it was a read).
        let mut stack: Vec<(u32, usize, bool)> = Vec::new();
        for root in 0..chosen.len() as u32 {
            if !chosen[root as usize] || colour[root as usize] != WHITE {
                continue;
            }
            colour[root as usize] = GREY;
            stack.push((root, 0, false));
            while let Some(top) = stack.last_mut() {
                let (v, i) = (top.0, top.1);
                let Some(&(w, reads)) = self.next[v as usize].get(i) else {
                    colour[v as usize] = BLACK;
                    stack.pop();
                    continue;
                };
                top.1 += 1;
                if !chosen[w as usize] {
                    continue;
                }
                match colour[w as usize] {
                    WHITE => {
                        colour[w as usize] = GREY;
                        stack.push((w, 0, reads));
                    }
                    GREY => {
                        // The cycle w → … → v → w: the sources of its read edges.
                        let from = stack
                            .iter()
                            .position(|s| s.0 == w)
                            .expect("grey is stacked");
                        let mut readers: Vec<u32> = Vec::new();
                        // The edge into stack[j] is a read edge from stack[j - 1].
                        for j in from + 1..stack.len() {
                            if stack[j].2 {
                                readers.push(stack[j - 1].0);
                            }
                        }
                        if reads {
                            readers.push(v);
                        }
                        readers.sort_unstable();
                        readers.dedup();
                        out.push(readers);
                        if out.len() >= max {
                            return out;
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// `events` (a configuration: closed, conflict-free, acyclic) in an order in which they
    /// fire: every event after its causes and after the readers of what it consumes; among
    /// the events free to go, the smallest id first.
    pub(super) fn linearise(&self, events: &[u32]) -> Vec<u32> {
        let mut chosen = vec![false; self.next.len()];
        for &e in events {
            chosen[e as usize] = true;
        }
        let mut waiting = vec![0u32; self.next.len()];
        for &e in events {
            for &(f, _) in &self.next[e as usize] {
                if chosen[f as usize] {
                    waiting[f as usize] += 1;
                }
            }
        }
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> = events
            .iter()
            .filter(|&&e| waiting[e as usize] == 0)
            .map(|&e| std::cmp::Reverse(e))
            .collect();
        let mut order = Vec::with_capacity(events.len());
        while let Some(std::cmp::Reverse(e)) = ready.pop() {
            order.push(e);
            for &(f, _) in &self.next[e as usize] {
                if chosen[f as usize] {
                    waiting[f as usize] -= 1;
                    if waiting[f as usize] == 0 {
                        ready.push(std::cmp::Reverse(f));
                    }
                }
            }
        }
        debug_assert_eq!(order.len(), events.len(), "a cycle in a configuration");
        order
    }
}
