//! Packed markings ([`NetSystem::packed`]: the places of a one-token component share one field)
//! against the plain layout (one bit per place) as the oracle: on every reachable marking of
//! random nets of state machines, the same enabled transitions, the same successors, the same
//! tokens on every place, guards that agree with enabledness, and the parts of the state that
//! the unfolding relies on.

use std::collections::{HashMap, VecDeque};

use proptest::prelude::*;
use unfold::model::net::{ArcKind, Net, NetBuilder};
use unfold::model::net_system::NetSystem;
use unfold::system::{Resource, System, Transition};

/// How a transition of [`machines`] touches a machine: moves its token, tests a state of it
/// (a read arc, or a self-loop as PEP nets write tests), or needs two of its states at once
/// (never enabled).
#[derive(Clone, Debug)]
enum Touch {
    Move(usize, usize),
    Read(usize),
    SelfLoop(usize),
    Both(usize, usize),
}

/// A transition: what it does to some machines, and to a shared place (take 0, give 1).
type Step = (Vec<(usize, Touch)>, u8);

fn arb_touch(len: usize) -> impl Strategy<Value = Touch> {
    prop_oneof![
        4 => (0..len, 0..len).prop_map(|(a, b)| Touch::Move(a, b)),
        1 => (0..len).prop_map(Touch::Read),
        1 => (0..len).prop_map(Touch::SelfLoop),
        1 => (0..len, 0..len).prop_map(|(a, b)| Touch::Both(a, b)),
    ]
}

/// `k` machines of `len` states (some start with no token), a shared place, and `steps`; with
/// `leak`, one transition takes a machine's token and puts it into another machine, which
/// spoils both components (the layout must then leave their places plain).
fn machines(k: usize, len: usize, empty: usize, steps: &[Step], leak: bool) -> Net {
    let mut b = NetBuilder::new("machines");
    let state: Vec<Vec<u32>> = (0..k)
        .map(|m| {
            (0..len)
                .map(|s| {
                    let marked = s == 0 && m % 5 != empty % 5;
                    b.add_place(format!("m{m}s{s}"), None, u32::from(marked))
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let shared = b.add_place("shared", None, 1).unwrap();
    for (i, (touches, lock)) in steps.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut used = Vec::new();
        for (m, touch) in touches {
            let m = m % k;
            if used.contains(&m) {
                continue;
            }
            used.push(m);
            let s = &state[m];
            match *touch {
                Touch::Move(a, c) if a != c => {
                    b.add_arc(s[a], t, ArcKind::Input, 1).unwrap();
                    b.add_arc(s[c], t, ArcKind::Output, 1).unwrap();
                }
                Touch::Move(a, _) | Touch::Read(a) => {
                    b.add_arc(s[a], t, ArcKind::Read, 1).unwrap();
                }
                Touch::SelfLoop(a) => {
                    b.add_arc(s[a], t, ArcKind::Input, 1).unwrap();
                    b.add_arc(s[a], t, ArcKind::Output, 1).unwrap();
                }
                Touch::Both(a, c) => {
                    b.add_arc(s[a], t, ArcKind::Read, 1).unwrap();
                    if a != c {
                        b.add_arc(s[c], t, ArcKind::Read, 1).unwrap();
                    }
                }
            }
        }
        match lock {
            0 => b.add_arc(shared, t, ArcKind::Input, 1).unwrap(),
            1 => b.add_arc(shared, t, ArcKind::Output, 1).unwrap(),
            _ => {}
        }
    }
    if leak && k > 1 {
        let t = b.add_transition("leak", None).unwrap();
        b.add_arc(state[0][0], t, ArcKind::Input, 1).unwrap();
        b.add_arc(state[1][len - 1], t, ArcKind::Output, 1).unwrap();
    }
    b.finish()
}

fn arb_net() -> impl Strategy<Value = Net> {
    // Up to 30 machines of up to 9 states: fields of 1 to 4 bits over several words.
    (1usize..=30, 2usize..=9, 0usize..5, any::<bool>()).prop_flat_map(|(k, len, empty, leak)| {
        let step = (prop::collection::vec((0..k, arb_touch(len)), 1..=3), 0u8..4);
        prop::collection::vec(step, 1..=3 * k.min(8))
            .prop_map(move |steps| machines(k, len, empty, &steps, leak))
    })
}

/// The places' tokens, by the plain layout's reading.
fn marking(sys: &NetSystem, state: &[u64]) -> Vec<u64> {
    (0..sys.net().places.len() as u32)
        .map(|p| sys.tokens(state, p))
        .collect()
}

fn enabled(sys: &NetSystem, state: &[u64]) -> Vec<Transition> {
    let mut out = Vec::new();
    sys.enabled(state, &mut out);
    out
}

/// Walks the reachable markings of both layouts side by side (up to `cap` of them) and
/// checks that they agree at each.
fn check(net: &Net, cap: usize) -> Result<usize, TestCaseError> {
    let plain = NetSystem::with_bits(net, 1);
    let packed = NetSystem::packed(net);
    let n = plain.transition_count() as Transition;
    let places = net.places.len();
    prop_assert_eq!(plain.token_sets(), packed.token_sets());
    for t in 0..n {
        prop_assert_eq!(plain.footprint(t), packed.footprint(t));
    }
    // The parts of a component's places are its field; other places' parts are disjoint.
    let bits = |r: Resource| {
        let mut out = Vec::new();
        assert!(packed.resource_bits(r, &mut out));
        out
    };
    let sets = packed.token_sets();
    let in_set: HashMap<Resource, usize> = sets
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.iter().map(move |&r| (r, k)))
        .collect();
    for r in 0..places as Resource {
        let (w, m) = bits(r)[0];
        prop_assert_eq!(packed.resource_words(r), w..w + 1);
        for q in 0..r {
            let (x, n) = bits(q)[0];
            let overlap = w == x && m & n != 0;
            let same_set = in_set.contains_key(&r) && in_set.get(&r) == in_set.get(&q);
            prop_assert_eq!(overlap, same_set, "places {} and {}", q, r);
            if overlap {
                prop_assert_eq!(m, n);
            }
        }
    }
    let mut a = vec![0; plain.state_words()];
    let mut b = vec![0; packed.state_words()];
    plain.initial_state(&mut a);
    packed.initial_state(&mut b);
    let mut seen: HashMap<Vec<u64>, Vec<u64>> = HashMap::new();
    let mut queue = VecDeque::new();
    seen.insert(a.clone(), b.clone());
    queue.push_back((a, b));
    while let Some((a, b)) = queue.pop_front() {
        prop_assert_eq!(marking(&plain, &a), marking(&packed, &b));
        prop_assert_eq!(plain.describe_state(&a), packed.describe_state(&b));
        prop_assert_eq!(plain.is_deadlock(&a), packed.is_deadlock(&b));
        let on = enabled(&plain, &a);
        prop_assert_eq!(
            &on,
            &enabled(&packed, &b),
            "enabled at {}",
            plain.describe_state(&a)
        );
        for t in 0..n {
            let is = packed.is_enabled(&b, t);
            prop_assert_eq!(plain.is_enabled(&a, t), is);
            // Guards by place: as fields, as `enabled_on`, and together as enabledness.
            let mut all = true;
            for touch in packed.footprint(t) {
                let r = touch.resource;
                let g = packed.enabled_on(&b, t, r);
                prop_assert_eq!(plain.enabled_on(&a, t, r), g);
                if let Some(field) = packed.guard_field(t, r) {
                    prop_assert_eq!(field.holds(&b), g, "guard of {} on {}", t, r);
                }
                all &= g;
            }
            prop_assert!(all || !is);
        }
        for &t in &on {
            let (mut a2, mut b2) = (a.clone(), b.clone());
            let (x, y) = (
                plain.fire_in_place(&mut a2, t),
                packed.fire_in_place(&mut b2, t),
            );
            prop_assert_eq!(x.is_ok(), y.is_ok(), "overflow by {}", t);
            if x.is_err() {
                continue;
            }
            // A transition changes only the words of its footprint's places.
            let words: Vec<usize> = packed
                .footprint(t)
                .iter()
                .flat_map(|touch| packed.resource_words(touch.resource))
                .collect();
            for (w, (old, new)) in b.iter().zip(&b2).enumerate() {
                prop_assert!(old == new || words.contains(&w), "word {} by {}", w, t);
            }
            if seen.len() < cap && !seen.contains_key(&a2) {
                seen.insert(a2.clone(), b2.clone());
                queue.push_back((a2, b2));
            } else if let Some(known) = seen.get(&a2) {
                // One plain marking, one packed state.
                prop_assert_eq!(known, &b2);
            }
        }
    }
    Ok(seen.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn packed_markings_behave_as_plain_ones(net in arb_net()) {
        check(&net, 3000)?;
    }
}

/// A chain of a million places is one field of 20 bits: its states are one word.
#[test]
fn a_long_chain_packs_into_one_word() {
    let mut b = NetBuilder::new("chain");
    let n = 1 << 20;
    let places: Vec<u32> = (0..n)
        .map(|i| {
            b.add_place(format!("p{i}"), None, u32::from(i == 0))
                .unwrap()
        })
        .collect();
    for i in 0..n - 1 {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        b.add_arc(places[i], t, ArcKind::Input, 1).unwrap();
        b.add_arc(places[i + 1], t, ArcKind::Output, 1).unwrap();
    }
    let net = b.finish();
    let sys = NetSystem::packed(&net);
    assert!(sys.is_packed());
    assert_eq!(sys.state_words(), 1);
    let mut s = vec![0; 1];
    sys.initial_state(&mut s);
    for t in [0, 1, 2] {
        assert_eq!(enabled(&sys, &s), vec![t]);
        sys.fire_in_place(&mut s, t).unwrap();
    }
    assert_eq!(sys.tokens(&s, 3), 1);
    assert_eq!(sys.describe_state(&s), "p3");
}

/// A component of `2^k - 1` places takes `k` bits; the walk over reachable markings counts
/// every state of a ring once.
#[test]
fn rings_of_every_width_reach_every_state() {
    for len in [2, 3, 4, 7, 8, 15, 16, 17] {
        let steps: Vec<Step> = (0..len)
            .map(|s| (vec![(0, Touch::Move(s, (s + 1) % len))], 2))
            .collect();
        let net = machines(3, len, 9, &steps, false);
        assert_eq!(check(&net, usize::MAX).unwrap(), len, "ring of {len}");
        let packed = NetSystem::packed(&net);
        assert!(packed.is_packed());
    }
}
