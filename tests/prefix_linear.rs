//! The complete prefix is built with work linear in its size on chains and rings: the work
//! counter of `PrefixRun` (events visited walking histories plus marking words written), not a
//! clock, so the test is as fast on a loaded machine and fails on the quadratic construction,
//! which walked the whole history of every event (work about N²/2 on a chain of N).

use unfold::explore::limits::Limits;
use unfold::explore::prefix::{self, Order, PrefixOptions, PrefixRun};
use unfold::model::net::{ArcKind, Net, NetBuilder};

/// One token through `n` transitions, `s_i -> t_i -> s_{i+1}`; a ring when `closed` (the last
/// transition puts the token back on `s_0`).
fn chain(n: usize, closed: bool) -> Net {
    let mut b = NetBuilder::new(if closed { "ring" } else { "chain" });
    let places = if closed { n } else { n + 1 };
    let s: Vec<_> = (0..places)
        .map(|i| {
            b.add_place(format!("s_{i}"), None, u32::from(i == 0))
                .unwrap()
        })
        .collect();
    for i in 0..n {
        let t = b.add_transition(format!("t_{i}"), None).unwrap();
        b.add_arc(s[i], t, ArcKind::Input, 1).unwrap();
        b.add_arc(s[(i + 1) % places], t, ArcKind::Output, 1)
            .unwrap();
    }
    b.finish()
}

fn run(net: &Net, order: Order) -> PrefixRun {
    let options = PrefixOptions {
        order,
        deadlock: false,
    };
    prefix::explore(net, &options, &Limits::default(), &mut |_| {}).unwrap()
}

#[test]
fn work_per_event_is_flat_on_chains_and_rings() {
    for closed in [false, true] {
        for order in [Order::Mole, Order::Erv, Order::Size] {
            let mut per_event = Vec::new();
            for n in [1_000, 4_000, 16_000] {
                let r = run(&chain(n, closed), order);
                let events = r.prefix.events.len() as u64;
                // The brute-force count: a chain has one event per transition, a ring too (the
                // last one a cutoff, back to the initial marking).
                assert_eq!(events, n as u64, "closed {closed}, {order}");
                assert_eq!(r.prefix.cutoffs(), usize::from(closed));
                per_event.push(r.work as f64 / events as f64);
            }
            // Quadratic work would grow 16-fold per event from 1 000 to 16 000.
            assert!(
                per_event[2] <= 2.0 * per_event[0] + 1.0 && per_event[2] < 50.0,
                "closed {closed}, {order}: work per event {per_event:?}"
            );
        }
    }
}

/// A net where extensions have several causes still walks (the counter is not always 0):
/// two concurrent chains joined by a last transition.
#[test]
fn joins_are_walked() {
    let mut b = NetBuilder::new("join");
    let a0 = b.add_place("a0", None, 1).unwrap();
    let a1 = b.add_place("a1", None, 0).unwrap();
    let b0 = b.add_place("b0", None, 1).unwrap();
    let b1 = b.add_place("b1", None, 0).unwrap();
    let done = b.add_place("done", None, 0).unwrap();
    for (name, from, to) in [("ta", a0, a1), ("tb", b0, b1)] {
        let t = b.add_transition(name, None).unwrap();
        b.add_arc(from, t, ArcKind::Input, 1).unwrap();
        b.add_arc(to, t, ArcKind::Output, 1).unwrap();
    }
    let j = b.add_transition("join", None).unwrap();
    b.add_arc(a1, j, ArcKind::Input, 1).unwrap();
    b.add_arc(b1, j, ArcKind::Input, 1).unwrap();
    b.add_arc(done, j, ArcKind::Output, 1).unwrap();
    let r = run(&b.finish(), Order::Mole);
    assert_eq!(r.prefix.events.len(), 3);
    assert_eq!(r.prefix.marking(&[0, 1, 2]), vec![done]);
    assert!(r.work >= 3, "work {}", r.work);
}
