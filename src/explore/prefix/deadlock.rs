//! Deadlock detection on a complete prefix.
//!
//! Every reachable marking is the marking of a configuration of the prefix made of non-cutoff
//! events, and every transition enabled there gives an event of the prefix (possibly a cutoff)
//! extending it. So the net has a deadlock iff some configuration `C` of non-cutoff events
//! enables no event of the prefix: no event has its whole preset in the cut of `C`.
//!
//! The search is a depth-first include/exclude branching over events (each configuration is met
//! at most once): at a node with cut `X`, if no event is enabled, `C` is a deadlock. Otherwise
//! an enabled event `e` that may still be added is either added (first branch) or excluded
//! for good (second branch: then `C` must later consume a condition of `•e` by another
//! event). Pruning: an enabled event that is excluded or a cutoff, none of whose preset
//! conditions can still be consumed by an addable event, makes the node hopeless; an enabled
//! addable event none of whose preset conditions can be consumed by another addable event must
//! be in every deadlock extending `C`, so it is added without branching.

use super::{DeadlockAnswer, NONE, Prefix};
use crate::explore::limits::Limits;

struct State<'p> {
    prefix: &'p Prefix,
    consumers: Vec<Vec<u32>>,
    in_cut: Vec<bool>,
    consumed: Vec<bool>,
    absent: Vec<u32>,
    excluded: Vec<bool>,
    enabled: Vec<u32>,
    pos: Vec<u32>,
    config: Vec<u32>,
}

enum Step {
    Deadlock,
    Hopeless,
    Branch(u32, bool),
}

impl<'p> State<'p> {
    fn enable(&mut self, e: u32) {
        self.pos[e as usize] = self.enabled.len() as u32;
        self.enabled.push(e);
    }

    fn disable(&mut self, e: u32) {
        let i = self.pos[e as usize] as usize;
        let last = *self.enabled.last().unwrap();
        self.enabled.swap_remove(i);
        if last != e {
            self.pos[last as usize] = i as u32;
        }
        self.pos[e as usize] = NONE;
    }

    fn enter(&mut self, c: u32) {
        self.in_cut[c as usize] = true;
        for i in 0..self.consumers[c as usize].len() {
            let f = self.consumers[c as usize][i];
            self.absent[f as usize] -= 1;
            if self.absent[f as usize] == 0 {
                self.enable(f);
            }
        }
    }

    fn leave(&mut self, c: u32) {
        self.in_cut[c as usize] = false;
        for i in 0..self.consumers[c as usize].len() {
            let f = self.consumers[c as usize][i];
            if self.absent[f as usize] == 0 {
                self.disable(f);
            }
            self.absent[f as usize] += 1;
        }
    }

    fn fire(&mut self, e: u32) {
        for &b in self.prefix.preset(e) {
            self.leave(b);
            self.consumed[b as usize] = true;
        }
        for c in self.prefix.postset(e) {
            self.enter(c);
        }
        self.config.push(e);
    }

    fn unfire(&mut self, e: u32) {
        self.config.pop();
        for c in self.prefix.postset(e) {
            self.leave(c);
        }
        for &b in self.prefix.preset(e) {
            self.consumed[b as usize] = false;
            self.enter(b);
        }
    }

    /// Whether `g` may still be added to the configuration.
    fn addable(&self, g: u32) -> bool {
        let ev = &self.prefix.events[g as usize];
        if ev.cutoff || self.excluded[g as usize] {
            return false;
        }
        self.prefix.preset(g).iter().all(|&b| {
            if self.consumed[b as usize] {
                return false;
            }
            // One level of conflict propagation: a producer that can no longer occur.
            let p = self.prefix.conditions[b as usize].producer;
            self.in_cut[b as usize]
                || p == NONE
                || (!self.prefix.events[p as usize].cutoff && !self.excluded[p as usize])
        })
    }

    /// Whether some addable event other than `f` consumes a condition of `•f`.
    fn can_be_disabled(&self, f: u32) -> bool {
        self.prefix.preset(f).iter().any(|&b| {
            self.consumers[b as usize]
                .iter()
                .any(|&g| g != f && self.addable(g))
        })
    }

    fn step(&self) -> Step {
        if self.enabled.is_empty() {
            return Step::Deadlock;
        }
        let mut pick = None;
        let mut helps = false;
        for &f in &self.enabled {
            let ev = &self.prefix.events[f as usize];
            if ev.cutoff || self.excluded[f as usize] {
                if !self.can_be_disabled(f) {
                    return Step::Hopeless;
                }
            } else if !self.can_be_disabled(f) {
                // Must be in every deadlock extending this configuration.
                return Step::Branch(f, true);
            }
        }
        for &f in &self.enabled {
            if self.addable(f) {
                // Prefer an event that disables a stuck one.
                let disables = self.prefix.preset(f).iter().any(|&b| {
                    self.consumers[b as usize].iter().any(|&g| {
                        g != f
                            && self.pos[g as usize] != NONE
                            && (self.prefix.events[g as usize].cutoff || self.excluded[g as usize])
                    })
                });
                if pick.is_none() || (disables && !helps) {
                    pick = Some(f);
                    helps = disables;
                }
            }
        }
        match pick {
            Some(f) => Step::Branch(f, false),
            None => Step::Hopeless,
        }
    }
}

/// Progress of a deadlock search, for displays.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadlockProgress {
    /// Nodes of the search visited so far.
    pub nodes: u64,
    /// Events of the configuration at the current node.
    pub depth: usize,
}

/// Decides deadlock freedom from a complete prefix.
pub fn search(prefix: &Prefix, _transitions: usize, limits: &Limits) -> DeadlockAnswer {
    search_with_progress(prefix, limits, &mut |_| {})
}

/// Like [`search`], calling `progress` now and then (every 65536 nodes).
///
/// The limits are checked at the first node and every 4096 nodes after it.
pub fn search_with_progress(
    prefix: &Prefix,
    limits: &Limits,
    progress: &mut dyn FnMut(DeadlockProgress),
) -> DeadlockAnswer {
    let n = prefix.events.len();
    let mut s = State {
        prefix,
        consumers: prefix.consumers(),
        in_cut: vec![false; prefix.conditions.len()],
        consumed: vec![false; prefix.conditions.len()],
        absent: (0..n as u32)
            .map(|e| prefix.preset(e).len() as u32)
            .collect(),
        excluded: vec![false; n],
        enabled: Vec::new(),
        pos: vec![NONE; n],
        config: Vec::new(),
    };
    for e in 0..n as u32 {
        if s.absent[e as usize] == 0 {
            s.enable(e);
        }
    }
    for c in 0..prefix.initial {
        s.enter(c);
    }
    // (event, kind): 0 added (exclusion branch pending), 1 excluded, 2 forced.
    let mut stack: Vec<(u32, u8)> = Vec::new();
    let mut nodes: u64 = 0;
    loop {
        nodes += 1;
        // From the first node on: a limit the unfolding left no time under stops the search
        // at once.
        if nodes % 4096 == 1 {
            if let Err(r) = limits.check_time() {
                return DeadlockAnswer::Unknown(r);
            }
            if nodes % 65536 == 1 {
                progress(DeadlockProgress {
                    nodes,
                    depth: s.config.len(),
                });
            }
        }
        match s.step() {
            Step::Deadlock => {
                let mut config = s.config.clone();
                config.sort_unstable();
                return DeadlockAnswer::Found(config);
            }
            Step::Branch(e, forced) => {
                stack.push((e, if forced { 2 } else { 0 }));
                s.fire(e);
            }
            Step::Hopeless => loop {
                let Some((e, kind)) = stack.pop() else {
                    return DeadlockAnswer::Free;
                };
                match kind {
                    0 => {
                        s.unfire(e);
                        s.excluded[e as usize] = true;
                        stack.push((e, 1));
                        break;
                    }
                    1 => s.excluded[e as usize] = false,
                    _ => s.unfire(e),
                }
            },
        }
    }
}
