//! Soundness of the independence relation of nets (DESIGN §1): on random small nets, at every
//! reachable marking, two independent transitions neither enable nor disable each other, and
//! firing them in either order reaches the same marking. And the slots built from it cover
//! exactly the dependent pairs (DESIGN §2).

use crate::common;

use proptest::prelude::*;
use unfold::explore::limits::Limits;
use unfold::explore::reach::explore;
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::model::net_system::NetSystem;
use unfold::system::{Access, System, Transition};
use unfold::unfolding::parts::{SlotParts, TransitionWords};
use unfold::unfolding::slots::{SlotCover, SlotMap};

/// A random net: up to 6 places and 6 transitions, weights 1–2, read arcs, markings 0–2.
fn arb_net() -> impl Strategy<Value = Net> {
    (1usize..=6, 1usize..=6).prop_flat_map(|(np, nt)| {
        let arcs = prop::collection::vec((0..np, 0..nt, 0u8..4, 1u32..=2), 0..(np * nt * 2));
        let marking = prop::collection::vec(0u32..=2, np);
        (Just((np, nt)), arcs, marking).prop_map(|((np, nt), arcs, marking)| {
            let mut b = NetBuilder::new("random");
            for (p, &m) in marking.iter().enumerate().take(np) {
                b.add_place(format!("p{p}"), None, m).unwrap();
            }
            for t in 0..nt {
                b.add_transition(format!("t{t}"), None).unwrap();
            }
            for (p, t, kind, w) in arcs {
                let kind = match kind {
                    0 | 1 => ArcKind::Input,
                    2 => ArcKind::Output,
                    _ => ArcKind::Read,
                };
                // Duplicates are refused by the builder; skipping them keeps the net valid.
                let _ = b.add_arc(p as u32, t as u32, kind, w);
            }
            b.finish()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn independent_transitions_commute(net in arb_net()) {
        let sys = NetSystem::with_bits(&net, 8);
        // Unbounded nets are cut by a small memory budget: every marking found is reachable.
        let limits = Limits::new(None, Some(256 * 1024));
        let out = match explore(&sys, &limits, &mut |_| {}, &mut |_, _| {}) {
            Ok(out) => out,
            Err(_) => return Ok(()), // counters overflowed: an unbounded net, nothing to check
        };
        let words = sys.state_words();
        let (mut a, mut b, mut ab, mut ba) =
            (vec![0; words], vec![0; words], vec![0; words], vec![0; words]);
        let n = sys.transition_count() as u32;
        for id in 0..out.space.len() {
            let m = out.space.state(id as u32);
            for t in 0..n {
                for u in 0..n {
                    if t == u || sys.dependent(t, u) {
                        continue;
                    }
                    if !sys.is_enabled(m, t) {
                        continue;
                    }
                    if sys.fire(m, t, &mut a).is_err() {
                        continue;
                    }
                    // Firing t neither enables nor disables u.
                    prop_assert_eq!(sys.is_enabled(m, u), sys.is_enabled(&a, u),
                        "t{} changes the enabledness of t{} at {}", t, u, sys.describe_state(m));
                    if sys.is_enabled(m, u) {
                        if sys.fire(m, u, &mut b).is_err()
                            || sys.fire(&a, u, &mut ab).is_err()
                            || sys.fire(&b, t, &mut ba).is_err()
                        {
                            continue;
                        }
                        prop_assert!(sys.is_enabled(&b, t));
                        prop_assert_eq!(&ab, &ba, "t{} and t{} do not commute at {}", t, u,
                            sys.describe_state(m));
                    }
                }
            }
        }
    }
}

/// The relation is not trivially "everything dependent": the design's four cases hold.
#[test]
fn design_cases() {
    let mut b = NetBuilder::new("cases");
    let p = b.add_place("p", None, 1).unwrap();
    let names = [
        "consume1", "consume2", "produce1", "produce2", "read1", "read2",
    ];
    for n in names {
        b.add_transition(n, None).unwrap();
    }
    b.add_arc(p, 0, ArcKind::Input, 1).unwrap();
    b.add_arc(p, 1, ArcKind::Input, 1).unwrap();
    b.add_arc(p, 2, ArcKind::Output, 1).unwrap();
    b.add_arc(p, 3, ArcKind::Output, 1).unwrap();
    b.add_arc(p, 4, ArcKind::Read, 1).unwrap();
    // read2 as a self-loop with equal weights
    b.add_arc(p, 5, ArcKind::Input, 1).unwrap();
    b.add_arc(p, 5, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let sys = NetSystem::new(&net);
    assert!(sys.dependent(0, 1), "two consumers");
    assert!(sys.dependent(0, 2), "consumer and producer");
    assert!(!sys.dependent(4, 5), "two readers");
    assert!(sys.dependent(2, 4), "producer and reader");
    // Two producers commute on counters; with 1-bit counters (a safe net) they could never both
    // fire after one marking, and are declared dependent to keep the unfolding's slots few.
    assert_eq!(sys.bits(), 1);
    assert!(sys.dependent(2, 3), "two producers, 1-bit counters");
    let wide = NetSystem::with_bits(&net, 8);
    assert!(!wide.dependent(2, 3), "two producers, 8-bit counters");
    assert!(wide.dependent(0, 1) && wide.dependent(2, 4) && !wide.dependent(4, 5));
}

/// Checks the cover property of `slots` against `sys.dependent`, pair by pair.
/// The changers [`SlotMap::with_cover_and_changers`] gives with its slots: for each resource,
/// every transition whose footprint changes it (any access but a pure read), in order.
fn assert_changers<S: System>(sys: &S, cover: SlotCover) -> Result<(), TestCaseError> {
    let (slots, changers) = SlotMap::with_cover_and_changers(sys, cover);
    prop_assert_eq!(slots.count(), SlotMap::with_cover(sys, cover).count());
    prop_assert_eq!(changers.len(), sys.resource_count());
    for r in 0..sys.resource_count() {
        let want: Vec<Transition> = (0..sys.transition_count() as Transition)
            .flat_map(|t| {
                sys.footprint(t)
                    .iter()
                    .filter(move |touch| {
                        touch.resource as usize == r
                            && !touch.access.is_empty()
                            && touch.access != Access::READ
                    })
                    .map(move |_| t)
            })
            .collect();
        prop_assert_eq!(changers.row(r), &want[..], "resource {}", r);
    }
    Ok(())
}

fn assert_cover<S: System>(sys: &S, slots: &SlotMap) -> Result<(), TestCaseError> {
    assert_cover_with(sys, slots, |_, _| false)
}

/// [`assert_cover`], where pairs that `also` names may share a slot without being dependent.
fn assert_cover_with<S: System>(
    sys: &S,
    slots: &SlotMap,
    also: impl Fn(Transition, Transition) -> bool,
) -> Result<(), TestCaseError> {
    let n = sys.transition_count() as Transition;
    let mut members = vec![Vec::new(); slots.count()];
    for t in 0..n {
        prop_assert!(!slots.of(t).is_empty(), "t{} is on no slot", t);
        for &s in slots.of(t) {
            members[s as usize].push(t);
        }
    }
    for (s, m) in members.iter().enumerate() {
        for &a in m {
            for &b in m {
                prop_assert!(
                    sys.dependent(a, b) || also(a, b),
                    "slot {} holds independent t{} and t{}",
                    s,
                    a,
                    b
                );
            }
        }
    }
    for a in 0..n {
        for b in 0..n {
            let share = slots.of(a).iter().any(|s| slots.of(b).contains(s));
            prop_assert!(
                !sys.dependent(a, b) || share,
                "t{} and t{} share no slot",
                a,
                b
            );
            prop_assert!(
                !share || sys.dependent(a, b) || also(a, b),
                "t{} and t{}",
                a,
                b
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The slots of a system are an edge clique cover of its dependence relation (DESIGN §2):
    /// every slot's members are pairwise dependent, and every dependent pair shares a slot. The
    /// unfolding's causality and conflict indexes are only right under that property.
    #[test]
    fn slots_cover_exactly_the_dependent_pairs(
        net in arb_net(),
        bits in prop::sample::select(vec![1u32, 8]),
    ) {
        let sys = NetSystem::with_bits(&net, bits);
        assert_cover(&sys, &SlotMap::with_cover(&sys, SlotCover::Resources))?;
        assert_changers(&sys, SlotCover::Resources)?;
    }

    /// The token sets a net names hold at most one token at every reachable marking, every
    /// transition changing one takes exactly one token from it and puts one back, and the
    /// slots made with them still cover the dependent pairs, adding only pairs of movers of
    /// one set (never enabled together, so never concurrent).
    #[test]
    fn token_sets_hold_one_token(net in prop_oneof![arb_net(), arb_machines()]) {
        // (64-bit counters: unbounded nets are cut by the memory budget, not by an overflow.)
        let sys = NetSystem::with_bits(&net, 64);
        let sets = sys.token_sets();
        let set_of = |p: usize| sets.iter().position(|s| s.contains(&(p as u32)));
        let movers = |t: Transition| -> Vec<usize> {
            let tr = &net.transitions[t as usize];
            let weight = |arcs: &[unfold::model::net::Arc], p: u32| {
                arcs.iter().find(|a| a.place == p).map_or(0, |a| a.weight)
            };
            let mut of: Vec<usize> = tr
                .pre
                .iter()
                .chain(&tr.post)
                .filter(|a| weight(&tr.pre, a.place) != weight(&tr.post, a.place))
                .filter_map(|a| set_of(a.place as usize))
                .collect();
            of.sort_unstable();
            of.dedup();
            of
        };
        let slots = SlotMap::with_cover(&sys, SlotCover::TokenSets);
        assert_changers(&sys, SlotCover::TokenSets)?;
        assert_cover_with(&sys, &slots, |a, b| {
            movers(a).iter().any(|k| movers(b).contains(k))
        })?;
        let limits = Limits::new(None, Some(256 * 1024));
        let out = explore(&sys, &limits, &mut |_| {}, &mut |_, _| {});
        prop_assert!(out.is_ok(), "64-bit counters do not overflow here");
        let out = out.unwrap();
        for id in 0..out.space.len() {
            let m = out.space.state(id as u32);
            for set in &sets {
                let sum: u64 = set.iter().map(|&p| m[p as usize]).sum();
                prop_assert!(sum <= 1, "set {:?} holds {} tokens", set, sum);
            }
        }
    }
}

/// A random net of up to three state machines of four states (one token each, in state 0)
/// and a shared place: transitions move one or two machines, may test a state of another and
/// may take or give the shared place's token.
fn arb_machines() -> impl Strategy<Value = Net> {
    let moves = prop::collection::vec((0usize..3, 0usize..4, 0usize..4), 1..=2);
    let transition = (moves, prop::option::of((0usize..3, 0usize..4)), 0u8..4);
    (1usize..=3, prop::collection::vec(transition, 1..=6))
        .prop_map(|(k, steps)| common::machines_net(k, 4, steps))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the assembly of history states rests on (`unfolding::parts`): the bits each slot
    /// decides are disjoint, a firing changes only bits decided by slots of its transition, and
    /// every transition's primary slot is one of its own. A net has parts unless some place has
    /// two independent changers (two pure producers on 8-bit counters, say). On every net,
    /// with parts or not: each transition reads and writes only its footprint's words, guards
    /// given as fields answer as `enabled_on`, and `disables` keeps its promise.
    #[test]
    fn slot_parts_cover_every_change(
        net in arb_net(),
        bits in prop::sample::select(vec![1u32, 8]),
    ) {
        let sys = NetSystem::with_bits(&net, bits);
        let (slots, changers) = SlotMap::with_cover_and_changers(&sys, SlotCover::TokenSets);
        let parts = SlotParts::with_changers(&sys, &slots, &changers);
        // A place whose changers are not pairwise dependent is decided by no one slot.
        let weight = |arcs: &[unfold::model::net::Arc], p: usize| {
            arcs.iter().filter(|a| a.place as usize == p).map(|a| a.weight).sum::<u32>()
        };
        let changers = |p: usize| -> Vec<Transition> {
            (0..net.transitions.len() as Transition)
                .filter(|&t| {
                    let t = &net.transitions[t as usize];
                    weight(&t.pre, p) != weight(&t.post, p)
                })
                .collect()
        };
        let undecided = (0..net.places.len()).any(|p| {
            let c = changers(p);
            c.iter().any(|&a| c.iter().any(|&b| !sys.dependent(a, b)))
        });
        prop_assert_eq!(parts.is_some(), !undecided);
        let words = sys.state_words();
        // By bit, the slot deciding it (without parts, only the checks below that do not
        // rest on them run).
        let mut owner = vec![vec![None; 64]; words];
        for s in 0..slots.count() as u32 {
            for &(w, m) in parts.as_ref().map_or(&[][..], |p| p.of(s)) {
                for (bit, o) in owner[w as usize].iter_mut().enumerate() {
                    if m >> bit & 1 == 1 {
                        prop_assert_eq!(*o, None, "bit {} of word {}", bit, w);
                        *o = Some(s);
                    }
                }
            }
        }
        let n = sys.transition_count() as Transition;
        if let Some(parts) = &parts {
            for t in 0..n {
                prop_assert!(parts.primary(t) < slots.of(t).len());
            }
        }
        let limits = Limits::new(None, Some(256 * 1024));
        let Ok(out) = explore(&sys, &limits, &mut |_| {}, &mut |_, _| {}) else {
            return Ok(()); // counters overflowed
        };
        let mut next = vec![0; words];
        let words_of = TransitionWords::new(&sys);
        prop_assert!(words_of.is_some(), "nets say where their places lie");
        let words_of = words_of.unwrap();
        for id in 0..out.space.len() {
            let m = out.space.state(id as u32);
            // A guard given as a field of the state answers as `enabled_on`.
            for x in 0..n {
                for touch in sys.footprint(x) {
                    if let Some(g) = sys.guard_field(x, touch.resource) {
                        prop_assert_eq!(g.holds(m), sys.enabled_on(m, x, touch.resource));
                    }
                }
            }
            for t in (0..n).filter(|&t| sys.is_enabled(m, t)) {
                let local = common::check_local_firing(&sys, &words_of, m, t);
                prop_assert!(local.is_ok(), "{}", local.unwrap_err());
                if sys.fire(m, t, &mut next).is_err() {
                    continue;
                }
                // `disables` promises a failing guard after t, whatever the state before.
                for x in 0..n {
                    for touch in sys.footprint(x) {
                        let r = touch.resource;
                        prop_assert!(
                            !sys.disables(t, x, r) || !sys.enabled_on(&next, x, r),
                            "t{} is said to disable t{}'s guard on place {}", t, x, r
                        );
                    }
                }
                for w in (0..words).filter(|_| parts.is_some()) {
                    let changed = m[w] ^ next[w];
                    for bit in (0..64).filter(|&b| changed >> b & 1 == 1) {
                        let s = owner[w][bit];
                        prop_assert!(
                            s.is_some_and(|s| slots.of(t).contains(&s)),
                            "t{} changes bit {} of word {}, decided by slot {:?}", t, bit, w, s
                        );
                    }
                }
            }
        }
    }
}

/// Two readers of a flag that also take one token from a shared place are dependent: they and
/// the flag's writer form one slot, so the writer is on one slot, not one per reader.
#[test]
fn dependent_readers_share_the_writers_slot() {
    let mut b = NetBuilder::new("flag");
    let flag = b.add_place("flag", None, 1).unwrap();
    let turn = b.add_place("turn", None, 1).unwrap();
    let done = b.add_place("done", None, 0).unwrap();
    let (r1, r2, w) = (
        b.add_transition("r1", None).unwrap(),
        b.add_transition("r2", None).unwrap(),
        b.add_transition("w", None).unwrap(),
    );
    for r in [r1, r2] {
        b.add_arc(flag, r, ArcKind::Read, 1).unwrap();
        b.add_arc(turn, r, ArcKind::Input, 1).unwrap();
        b.add_arc(done, r, ArcKind::Output, 1).unwrap();
    }
    b.add_arc(flag, w, ArcKind::Input, 1).unwrap();
    let net = b.finish();
    let sys = NetSystem::new(&net);
    let slots = SlotMap::new(&sys);
    assert_cover(&sys, &slots).unwrap();
    assert_eq!(
        slots.of(w).len(),
        1,
        "the writer is on one slot per group of readers"
    );
    assert_eq!(slots.of(r1), slots.of(w));
}
