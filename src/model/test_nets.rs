//! Small nets generated for the library's own tests.

use super::net::{ArcKind, Net, NetBuilder};

/// A safe net: `k` three-state machines with one token each (in state 0); every transition
/// moves one or two of them (`(machine, from, to)` triples, taken modulo `k` and 3; a machine
/// named twice by one transition moves once).
pub(crate) fn machines(k: usize, moves: &[Vec<(usize, usize, usize)>]) -> Net {
    let mut b = NetBuilder::new("machines");
    let places: Vec<Vec<_>> = (0..k)
        .map(|i| {
            (0..3)
                .map(|s| {
                    b.add_place(format!("p{i}_{s}"), None, u32::from(s == 0))
                        .unwrap()
                })
                .collect()
        })
        .collect();
    for (n, mv) in moves.iter().enumerate() {
        let t = b.add_transition(format!("t{n}"), None).unwrap();
        let mut used = Vec::new();
        for &(i, from, to) in mv {
            let i = i % k;
            if used.contains(&i) {
                continue;
            }
            used.push(i);
            b.add_arc(places[i][from % 3], t, ArcKind::Input, 1)
                .unwrap();
            b.add_arc(places[i][to % 3], t, ArcKind::Output, 1).unwrap();
        }
    }
    b.finish()
}
