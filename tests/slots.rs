//! The slots of a system are an edge clique cover of its dependence relation (DESIGN §2): on
//! random nets, every slot's members are pairwise dependent, and every dependent pair shares a
//! slot. The unfolding's causality and conflict indexes are only right under that property.

use proptest::prelude::*;
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::model::net_system::NetSystem;
use unfold::system::{System, Transition};
use unfold::unfolding::slots::SlotMap;

/// A random net: up to 8 places and 8 transitions, weights 1–2, read arcs, markings 0–1.
fn arb_net() -> impl Strategy<Value = Net> {
    (1usize..=8, 1usize..=8).prop_flat_map(|(np, nt)| {
        let arcs = prop::collection::vec((0..np, 0..nt, 0u8..5, 1u32..=2), 0..(np * nt * 2));
        let marking = prop::collection::vec(0u32..=1, np);
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
                    2 | 3 => ArcKind::Output,
                    _ => ArcKind::Read,
                };
                // Duplicates are refused by the builder; skipping them keeps the net valid.
                let _ = b.add_arc(p as u32, t as u32, kind, w);
            }
            b.finish()
        })
    })
}

/// Checks the cover property of `slots` against `sys.dependent`, pair by pair.
fn assert_cover<S: System>(sys: &S, slots: &SlotMap) -> Result<(), TestCaseError> {
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
                    sys.dependent(a, b),
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
            prop_assert_eq!(share, sys.dependent(a, b), "t{} and t{}", a, b);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn slots_cover_exactly_the_dependent_pairs(net in arb_net(), bits in prop::sample::select(vec![1u32, 8])) {
        let sys = NetSystem::with_bits(&net, bits);
        assert_cover(&sys, &SlotMap::new(&sys))?;
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
