//! Global properties of a net decided on its explicit reachability graph: deadlock, 1-safety,
//! quasi-liveness, stable marking and liveness (the MCC examinations of the same names).
//!
//! One breadth-first pass ([`reach::explore`]) watches every new marking:
//! - deadlock: a marking enabling no transition;
//! - 1-safety: a place with two tokens (with 1-bit counters, a firing that overflows one);
//! - quasi-liveness: the transitions not yet seen enabled;
//! - stable marking: the places whose counter never differed from the initial marking (the OR
//!   of `marking XOR initial` over all markings).
//!
//! A verdict the markings seen so far already prove (a deadlock, two tokens on a place, every
//! transition seen enabled, every place seen changing) stops the pass early. The other verdicts
//! need every reachable marking. Liveness needs the graph itself: `t` is live iff every bottom
//! strongly connected component of the reachability graph has a marking enabling `t` (from
//! any marking one reaches a bottom component, inside which every marking reaches every
//! other). Components come from Tarjan's algorithm on an explicit stack, successors recomputed
//! by firing and looked up in the state table; an edge to a finished component marks its
//! source's component as not bottom.
//!
//! Counters are widened and the pass restarted when a count does not fit, as in
//! [`reach::explore_net`].

use std::ops::ControlFlow;

use super::limits::{Limits, StopReason};
use super::reach::{self, ReachProgress, StateId, StateSpace};
use crate::model::net::{Net, PlaceIdx};
use crate::model::net_system::NetSystem;
use crate::system::{Overflow, System, Transition};

/// A global property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Some reachable marking enables no transition.
    Deadlock,
    /// No reachable marking puts two tokens on a place.
    OneSafe,
    /// Every transition is enabled in some reachable marking.
    QuasiLiveness,
    /// Some place has the same number of tokens in every reachable marking.
    StableMarking,
    /// From every reachable marking, every transition can be enabled again.
    Liveness,
}

/// The verdict on a property, with what was explored.
#[derive(Clone, Debug)]
pub struct GlobalRun {
    /// The verdict; `None` when a limit stopped the run before it was decided.
    pub verdict: Option<bool>,
    /// Why the verdict holds, in the net's words (a place, a transition, a run).
    pub evidence: Option<String>,
    /// Markings found.
    pub states: u64,
    /// Whether the verdict came before every reachable marking was seen.
    pub early: bool,
    /// What stopped the run before a verdict, if anything did.
    pub stopped: Option<StopReason>,
    /// Counter width of the final pass, in bits.
    pub counter_bits: u32,
    /// Bytes held by the state space (and, for liveness, the component search) at the end.
    pub bytes: u64,
}

/// Options of [`explore`].
#[derive(Clone, Copy, Debug)]
pub struct GlobalOptions {
    /// The property to decide.
    pub property: Property,
    /// End the pass as soon as the markings seen prove the verdict; otherwise every verdict
    /// waits for the whole graph (its statistics then count every reachable marking).
    pub stop_early: bool,
}

impl GlobalOptions {
    /// Decides `property`, stopping as soon as the verdict is proved.
    pub fn new(property: Property) -> Self {
        GlobalOptions {
            property,
            stop_early: true,
        }
    }
}

/// Decides a global property of `net`.
pub fn explore(
    net: &Net,
    options: &GlobalOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<GlobalRun, Overflow> {
    let property = options.property;
    let decide_once = |sys: &NetSystem<'_>| match decide_with(sys, options, limits, progress) {
        // With 1-bit counters an overflow is a firing that puts a second token on a place
        // of a reachable marking: the net is not 1-safe.
        Err(o) if property == Property::OneSafe && sys.bits() == 1 => Ok(GlobalRun {
            verdict: Some(false),
            evidence: Some(format!(
                "firing {} puts two tokens on place {}",
                sys.transition_name(o.transition),
                o.resource_name
            )),
            states: 0,
            early: true,
            stopped: None,
            counter_bits: 1,
            bytes: 0,
        }),
        other => other,
    };
    NetSystem::new(net)
        .retry_widened(decide_once)
        .map(|(run, _)| run)
}

/// What the breadth-first pass watches.
struct Watch<'a> {
    sys: &'a NetSystem<'a>,
    property: Property,
    initial: Vec<u64>,
    /// OR of `marking XOR initial` over the markings seen.
    changed: Vec<u64>,
    /// Places never seen changing (stable marking).
    stable: Vec<PlaceIdx>,
    /// Transitions never seen enabled (quasi-liveness).
    unseen: Vec<Transition>,
    /// The verdict once proved, with its evidence and the marking that proved it.
    decided: Option<(bool, String, Option<StateId>)>,
}

impl Watch<'_> {
    fn observe(&mut self, id: StateId, m: &[u64]) {
        if self.decided.is_some() {
            return;
        }
        let sys = self.sys;
        match self.property {
            // A net without transitions is dead from the start, and vacuously live.
            Property::Deadlock | Property::Liveness => {
                if sys.is_deadlock(m)
                    && (self.property == Property::Deadlock || sys.transition_count() > 0)
                {
                    let verdict = self.property == Property::Deadlock;
                    self.decided = Some((verdict, "a deadlock is reachable".into(), Some(id)));
                }
            }
            Property::OneSafe => {
                if sys.max_tokens(m) > 1 {
                    self.decided = Some((false, "two tokens on a place".into(), Some(id)));
                }
            }
            Property::QuasiLiveness => {
                self.unseen.retain(|&t| !sys.is_enabled(m, t));
                if self.unseen.is_empty() {
                    let why = "every transition is enabled in some reachable marking";
                    self.decided = Some((true, why.into(), None));
                }
            }
            Property::StableMarking => {
                let mut grew = false;
                for ((acc, &w), &w0) in self.changed.iter_mut().zip(m).zip(&self.initial) {
                    let next = *acc | (w ^ w0);
                    grew |= next != *acc;
                    *acc = next;
                }
                if grew {
                    let changed = &self.changed;
                    self.stable.retain(|&p| sys.tokens(changed, p) == 0);
                    if self.stable.is_empty() {
                        let why = "every place changes its number of tokens";
                        self.decided = Some((false, why.into(), None));
                    }
                }
            }
        }
    }
}

fn decide_with(
    sys: &NetSystem<'_>,
    options: &GlobalOptions,
    limits: &Limits,
    progress: &mut dyn FnMut(ReachProgress),
) -> Result<GlobalRun, Overflow> {
    let property = options.property;
    let net = sys.net();
    let mut initial = vec![0u64; sys.state_words()];
    sys.initial_state(&mut initial);
    let mut watch = Watch {
        sys,
        property,
        changed: vec![0; initial.len()],
        initial,
        stable: (0..net.places.len() as PlaceIdx).collect(),
        unseen: (0..sys.transition_count() as Transition).collect(),
        decided: None,
    };
    if property == Property::QuasiLiveness && watch.unseen.is_empty() {
        watch.decided = Some((true, "the net has no transition".into(), None));
    }
    if property == Property::StableMarking && watch.stable.is_empty() {
        watch.decided = Some((false, "the net has no place".into(), None));
    }
    let explored = reach::explore_until(sys, limits, progress, &mut |id, m| {
        watch.observe(id, m);
        if options.stop_early && watch.decided.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let out = match explored {
        Ok(out) => out,
        // The markings seen before a count overflowed were represented exactly: a verdict they
        // proved stands (without its run, which went with the pass).
        Err(overflow) => match watch.decided {
            Some((verdict, why, _)) => {
                return Ok(GlobalRun {
                    verdict: Some(verdict),
                    evidence: Some(why),
                    states: 0,
                    early: true,
                    stopped: None,
                    counter_bits: sys.bits(),
                    bytes: 0,
                });
            }
            None => return Err(overflow),
        },
    };
    let mut run = GlobalRun {
        verdict: None,
        evidence: None,
        states: out.space.len() as u64,
        early: false,
        stopped: out.stopped,
        counter_bits: sys.bits(),
        bytes: out.space.bytes(),
    };
    if let Some((verdict, why, at)) = watch.decided {
        run.verdict = Some(verdict);
        run.early = out.halted || out.stopped.is_some();
        run.stopped = None;
        run.evidence = Some(match at {
            Some(id) => {
                let path: Vec<&str> = out
                    .space
                    .path_to(id)
                    .into_iter()
                    .map(|t| sys.transition_name(t))
                    .collect();
                let state = sys.describe_state(out.space.state(id));
                if path.is_empty() {
                    format!("{why}: the initial marking {state}")
                } else {
                    format!("{why}: run {} reaches {state}", path.join(" "))
                }
            }
            None => why,
        });
        return Ok(run);
    }
    if run.stopped.is_some() {
        return Ok(run);
    }
    // Every reachable marking was seen and none proved the verdict early.
    let (verdict, evidence) = match property {
        Property::Deadlock => (false, "no reachable marking is dead".to_string()),
        Property::OneSafe => (
            true,
            "no reachable marking has two tokens on a place".into(),
        ),
        Property::QuasiLiveness => (
            false,
            format!(
                "transition {} is never enabled",
                sys.transition_name(watch.unseen[0])
            ),
        ),
        Property::StableMarking => {
            let p = watch.stable[0];
            (
                true,
                format!(
                    "place {} always holds {} tokens",
                    net.places[p as usize].label, net.places[p as usize].initial
                ),
            )
        }
        Property::Liveness => match bottom_components(sys, &out.space, limits)? {
            Components::AllLive => (
                true,
                "every bottom component enables every transition".into(),
            ),
            Components::Dead { transition, size } => (
                false,
                format!(
                    "transition {} is never enabled in a bottom component of {size} markings",
                    sys.transition_name(transition)
                ),
            ),
            Components::Stopped(reason, bytes) => {
                run.stopped = Some(reason);
                run.bytes = run.bytes.max(bytes);
                return Ok(run);
            }
        },
    };
    run.verdict = Some(verdict);
    run.evidence = Some(evidence);
    Ok(run)
}

/// What the bottom components say about liveness.
enum Components {
    /// Every bottom component has a marking enabling each transition.
    AllLive,
    /// A bottom component of `size` markings where `transition` is never enabled.
    Dead { transition: Transition, size: usize },
    /// A limit stopped the search (with the bytes it would have held).
    Stopped(StopReason, u64),
}

const UNVISITED: u32 = u32::MAX;

/// The state of Tarjan's search.
struct Tarjan {
    /// Discovery order, `UNVISITED` before.
    index: Vec<u32>,
    /// The least index reachable through the search tree and one back edge.
    low: Vec<u32>,
    on_stack: Vec<bool>,
    /// Whether the state has an edge to a finished component (so its own is not bottom).
    exits: Vec<bool>,
    /// States of the unfinished components.
    stack: Vec<StateId>,
    /// The search path: a state and the next transition to try from it.
    calls: Vec<(StateId, Transition)>,
    next_index: u32,
}

impl Tarjan {
    fn visit(&mut self, v: StateId) {
        let i = v as usize;
        self.index[i] = self.next_index;
        self.low[i] = self.next_index;
        self.next_index += 1;
        self.on_stack[i] = true;
        self.stack.push(v);
        self.calls.push((v, 0));
    }
}

/// Tarjan's algorithm over the complete reachability graph in `space`, checking each bottom
/// component as it is found.
fn bottom_components(
    sys: &NetSystem<'_>,
    space: &StateSpace,
    limits: &Limits,
) -> Result<Components, Overflow> {
    let n = space.len();
    let nt = sys.transition_count();
    // Per state: index and lowlink (4 bytes each), at most one entry on the component stack (4)
    // and on the call stack (8), and two flags (1 byte each).
    let need = space.bytes() + n as u64 * (4 + 4 + 4 + 8 + 1 + 1);
    if limits.check_memory(need).is_err() {
        return Ok(Components::Stopped(StopReason::MemoryLimit, need));
    }
    let mut dfs = Tarjan {
        index: vec![UNVISITED; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        exits: vec![false; n],
        stack: Vec::new(),
        calls: Vec::new(),
        next_index: 0,
    };
    let mut next = vec![0u64; sys.state_words()];
    let mut covered = vec![false; nt];
    let mut steps = 0u64;
    dfs.visit(0);
    while let Some(&(v, cursor)) = dfs.calls.last() {
        steps += 1;
        if steps.is_multiple_of(4096)
            && let Err(reason) = limits.check_time()
        {
            return Ok(Components::Stopped(reason, need));
        }
        let (vi, state) = (v as usize, space.state(v));
        // The next enabled transition from `cursor` on.
        let mut t = cursor;
        while (t as usize) < nt && !sys.is_enabled(state, t) {
            t += 1;
        }
        if (t as usize) < nt {
            dfs.calls.last_mut().unwrap().1 = t + 1;
            sys.fire(state, t, &mut next)?;
            let w = space
                .lookup(&next)
                .expect("the state space is complete: every successor is in it")
                as usize;
            if dfs.index[w] == UNVISITED {
                dfs.visit(w as StateId);
            } else if dfs.on_stack[w] {
                dfs.low[vi] = dfs.low[vi].min(dfs.index[w]);
            } else {
                // `w`'s component is finished and does not contain `v`.
                dfs.exits[vi] = true;
            }
            continue;
        }
        // Every successor of `v` is done.
        dfs.calls.pop();
        if dfs.low[vi] == dfs.index[vi] {
            // `v` is the root of a component: the states above it on the stack.
            let (mut bottom, mut size, mut left) = (true, 0usize, nt);
            covered.iter_mut().for_each(|c| *c = false);
            while let Some(u) = dfs.stack.pop() {
                dfs.on_stack[u as usize] = false;
                size += 1;
                bottom &= !dfs.exits[u as usize];
                if left > 0 {
                    let state = space.state(u);
                    for (t, c) in covered.iter_mut().enumerate() {
                        if !*c && sys.is_enabled(state, t as Transition) {
                            *c = true;
                            left -= 1;
                        }
                    }
                }
                if u == v {
                    break;
                }
            }
            if bottom && left > 0 {
                let transition = covered.iter().position(|&c| !c).unwrap() as Transition;
                return Ok(Components::Dead { transition, size });
            }
        }
        if let Some(&(parent, _)) = dfs.calls.last() {
            let pi = parent as usize;
            if dfs.on_stack[vi] {
                dfs.low[pi] = dfs.low[pi].min(dfs.low[vi]);
            } else {
                dfs.exits[pi] = true;
            }
        }
    }
    Ok(Components::AllLive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    fn decide_all(net: &Net) -> [Option<bool>; 5] {
        [
            Property::Deadlock,
            Property::OneSafe,
            Property::QuasiLiveness,
            Property::StableMarking,
            Property::Liveness,
        ]
        .map(|p| {
            explore(
                net,
                &GlobalOptions {
                    property: p,
                    stop_early: false,
                },
                &Limits::default(),
                &mut |_| {},
            )
            .unwrap()
            .verdict
        })
    }

    /// A cycle p0 -> t0 -> p1 -> t1 -> p0 with one token, and an idle marked place `idle`.
    fn cycle() -> NetBuilder {
        let mut b = NetBuilder::new("cycle");
        let p0 = b.add_place("p0", None, 1).unwrap();
        let p1 = b.add_place("p1", None, 0).unwrap();
        b.add_place("idle", None, 1).unwrap();
        let t0 = b.add_transition("t0", None).unwrap();
        let t1 = b.add_transition("t1", None).unwrap();
        b.add_arc(p0, t0, ArcKind::Input, 1).unwrap();
        b.add_arc(p1, t0, ArcKind::Output, 1).unwrap();
        b.add_arc(p1, t1, ArcKind::Input, 1).unwrap();
        b.add_arc(p0, t1, ArcKind::Output, 1).unwrap();
        b
    }

    #[test]
    fn live_cycle() {
        // No deadlock, safe, quasi-live, `idle` is stable, live.
        let net = cycle().finish();
        assert_eq!(
            decide_all(&net),
            [Some(false), Some(true), Some(true), Some(true), Some(true)]
        );
    }

    #[test]
    fn escape_into_a_dead_end_loop() {
        // From the cycle, `leave` (p0 -> q) moves into a self-loop `spin` on q: no deadlock, but
        // t0, t1 and leave are dead in the bottom component {q}; `idle` stays stable.
        let mut b = cycle();
        let q = b.add_place("q", None, 0).unwrap();
        let leave = b.add_transition("leave", None).unwrap();
        let spin = b.add_transition("spin", None).unwrap();
        b.add_arc(0, leave, ArcKind::Input, 1).unwrap();
        b.add_arc(q, leave, ArcKind::Output, 1).unwrap();
        b.add_arc(q, spin, ArcKind::Input, 1).unwrap();
        b.add_arc(q, spin, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        assert_eq!(
            decide_all(&net),
            [Some(false), Some(true), Some(true), Some(true), Some(false)]
        );
    }

    #[test]
    fn live_after_a_transient_start() {
        // x = 2, y = 0; t: x -> y; u: y,y -> x,y. Markings (2,0) -> (1,1) <-> (0,2): the
        // initial marking is left for good, and its component enables only t, yet the bottom
        // component {(1,1), (0,2)} enables both: live (only bottom components count).
        let mut b = NetBuilder::new("transient");
        let x = b.add_place("x", None, 2).unwrap();
        let y = b.add_place("y", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(x, t, ArcKind::Input, 1).unwrap();
        b.add_arc(y, t, ArcKind::Output, 1).unwrap();
        b.add_arc(y, u, ArcKind::Input, 2).unwrap();
        b.add_arc(x, u, ArcKind::Output, 1).unwrap();
        b.add_arc(y, u, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        assert_eq!(
            decide_all(&net),
            [
                Some(false),
                Some(false),
                Some(true),
                Some(false),
                Some(true)
            ]
        );
    }

    #[test]
    fn unsafe_dead_net_with_a_never_enabled_transition() {
        // t: a -> b,b (weight 2), then nothing is enabled: a deadlock, not safe, `never`
        // (which needs a token on c) never enabled, c empty throughout (stable).
        let mut b = NetBuilder::new("u");
        let a = b.add_place("a", None, 1).unwrap();
        let bb = b.add_place("b", None, 0).unwrap();
        let c = b.add_place("c", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let never = b.add_transition("never", None).unwrap();
        b.add_arc(a, t, ArcKind::Input, 1).unwrap();
        b.add_arc(bb, t, ArcKind::Output, 2).unwrap();
        b.add_arc(c, never, ArcKind::Input, 1).unwrap();
        let net = b.finish();
        assert_eq!(
            decide_all(&net),
            [
                Some(true),
                Some(false),
                Some(false),
                Some(true),
                Some(false)
            ]
        );
        let run = explore(
            &net,
            &GlobalOptions {
                property: Property::OneSafe,
                stop_early: false,
            },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap();
        assert!(run.evidence.unwrap().contains("b"), "names the place");
    }

    #[test]
    fn every_place_changing_is_not_stable() {
        // Two tokens circulate on the cycle p0 <-> p1 with weights: p0 and p1 both change.
        let mut b = NetBuilder::new("s");
        let p0 = b.add_place("p0", None, 2).unwrap();
        let p1 = b.add_place("p1", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        let u = b.add_transition("u", None).unwrap();
        b.add_arc(p0, t, ArcKind::Input, 1).unwrap();
        b.add_arc(p1, t, ArcKind::Output, 1).unwrap();
        b.add_arc(p1, u, ArcKind::Input, 1).unwrap();
        b.add_arc(p0, u, ArcKind::Output, 1).unwrap();
        let net = b.finish();
        assert_eq!(
            decide_all(&net),
            [
                Some(false),
                Some(false),
                Some(true),
                Some(false),
                Some(true)
            ]
        );
    }

    #[test]
    fn stop_early_ends_the_pass_at_the_verdict() {
        // 2^16 markings; the t_i are enabled initially and every u_i after one step, so
        // quasi-liveness is decided long before the whole space is built.
        let mut b = NetBuilder::new("c");
        for i in 0..16 {
            let p = b.add_place(format!("p{i}"), None, 1).unwrap();
            let q = b.add_place(format!("q{i}"), None, 0).unwrap();
            let t = b.add_transition(format!("t{i}"), None).unwrap();
            let u = b.add_transition(format!("u{i}"), None).unwrap();
            b.add_arc(p, t, ArcKind::Input, 1).unwrap();
            b.add_arc(q, t, ArcKind::Output, 1).unwrap();
            b.add_arc(q, u, ArcKind::Input, 1).unwrap();
            b.add_arc(p, u, ArcKind::Output, 1).unwrap();
        }
        let net = b.finish();
        let limits = Limits::default();
        let run = explore(
            &net,
            &GlobalOptions {
                property: Property::QuasiLiveness,
                stop_early: true,
            },
            &limits,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(run.verdict, Some(true));
        assert!(run.early);
        assert!(run.states < 1 << 16, "{} states", run.states);
        // Without stopping early the whole space is explored, with the same verdict.
        let full = explore(
            &net,
            &GlobalOptions {
                property: Property::QuasiLiveness,
                stop_early: false,
            },
            &Limits::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((full.verdict, full.states), (Some(true), 1 << 16));
    }

    #[test]
    fn early_verdict_survives_a_counter_overflow() {
        // a, b marked; t1: a -> c, t2: b -> c, t3: c -> d. Quasi-liveness is decided on the
        // first successor (t3 enabled there); a pass that goes on then fires t2 into the
        // marked c, which overflows the 1-bit counters: the verdict stands.
        let mut b = NetBuilder::new("two-producers");
        let a = b.add_place("a", None, 1).unwrap();
        let bb = b.add_place("b", None, 1).unwrap();
        let c = b.add_place("c", None, 0).unwrap();
        let d = b.add_place("d", None, 0).unwrap();
        for (name, from, to) in [("t1", a, c), ("t2", bb, c), ("t3", c, d)] {
            let t = b.add_transition(name, None).unwrap();
            b.add_arc(from, t, ArcKind::Input, 1).unwrap();
            b.add_arc(to, t, ArcKind::Output, 1).unwrap();
        }
        let net = b.finish();
        for stop_early in [false, true] {
            let options = GlobalOptions {
                property: Property::QuasiLiveness,
                stop_early,
            };
            let run = explore(&net, &options, &Limits::default(), &mut |_| {}).unwrap();
            assert_eq!(run.verdict, Some(true));
        }
        assert_eq!(decide_all(&net)[1], Some(false), "not 1-safe");
    }

    #[test]
    fn limits_give_no_verdict() {
        let net = cycle().finish();
        let limits = Limits::new(Some(std::time::Duration::ZERO), None);
        let run = explore(
            &net,
            &GlobalOptions {
                property: Property::Liveness,
                stop_early: false,
            },
            &limits,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(run.verdict, None);
        assert_eq!(run.stopped, Some(StopReason::Timeout));
    }
}
