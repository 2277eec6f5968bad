//! One-token state-machine components of a net: sets of places that hold one token between
//! them, which the transitions touching them move from one place of the set to another (a
//! process's control locations, the values of a variable encoded as one place per value).
//!
//! Such a set `P` is a P-invariant: every transition takes from `P` as many tokens as it puts
//! back, so the initial marking's sum over `P`, at most 1, holds at every reachable marking.
//! Two transitions that move the token then never fire concurrently, which lets the unfolding
//! give them one slot ([`System::token_sets`](crate::system::System::token_sets)).
//!
//! Finding the largest such sets is a search over P-invariants; this module takes the cheap
//! route. Every place marked with one token starts a set, and a transition that takes from
//! one set and puts into none of its places extends the set with the one place it puts into
//! that belongs to no set yet (and likewise backwards), until nothing changes; where several
//! such places are left, the nearest in the net's order is guessed, and the propagation goes
//! on. Every set found is then checked against the invariant above, and dropped if it fails,
//! so the heuristic decides only how much is found, never whether what is found holds.

use super::net::{Arc, Net, PlaceIdx};
use crate::rows::Rows;

/// No set yet.
const NONE: u32 = u32::MAX;

/// The places whose counter `t` changes, with the change (tokens put minus tokens taken),
/// pushed onto `out` in place order. (Arc lists are sorted by place, as [`Net`] keeps them.)
fn push_effects(net: &Net, t: usize, out: &mut Rows<(PlaceIdx, i64)>) {
    let tr = &net.transitions[t];
    let (pre, post) = (&tr.pre[..], &tr.post[..]);
    let place = |arcs: &[Arc], k: usize| arcs.get(k).map_or(PlaceIdx::MAX, |a| a.place);
    let (mut i, mut j) = (0, 0);
    while i < pre.len() || j < post.len() {
        let p = place(pre, i).min(place(post, j));
        let mut d = 0;
        if i < pre.len() && pre[i].place == p {
            d -= i64::from(pre[i].weight);
            i += 1;
        }
        if j < post.len() && post[j].place == p {
            d += i64::from(post[j].weight);
            j += 1;
        }
        // A self-loop is a test: it changes nothing.
        if d != 0 {
            out.push((p, d));
        }
    }
    out.end_row();
}

/// The one-token components of `net` that the heuristic of the module finds: disjoint sets
/// of at least two places, each sorted, each checked to be an invariant holding at most one
/// token in which every transition takes at most one token.
pub fn one_token_components(net: &Net) -> Vec<Vec<PlaceIdx>> {
    let places = net.places.len();
    let mut set = vec![NONE; places];
    let mut sets = 0u32;
    for (p, place) in net.places.iter().enumerate() {
        if place.initial == 1 {
            set[p] = sets;
            sets += 1;
        }
    }
    if sets == 0 {
        return Vec::new();
    }
    let n = net.transitions.len();
    let mut effects = Rows::with_capacity(n, 2 * n);
    for t in 0..n {
        push_effects(net, t, &mut effects);
    }
    // The transitions changing each place.
    let changers = Rows::group(places, || {
        (0..n).flat_map(|t| {
            effects
                .row(t)
                .iter()
                .map(move |&(p, _)| (p as usize, t as u32))
        })
    });
    let mut queued = vec![false; n];
    let mut work: Vec<u32> = Vec::new();
    // (`but`: a transition that need not be looked at again.)
    let enqueue = |p: usize, but: u32, work: &mut Vec<u32>, queued: &mut [bool]| {
        for &t in changers.row(p) {
            if t != but && !queued[t as usize] {
                queued[t as usize] = true;
                work.push(t);
            }
        }
    };
    for (p, _) in set.iter().enumerate().filter(|&(_, &s)| s != NONE) {
        enqueue(p, u32::MAX, &mut work, &mut queued);
    }
    // Steps where the token could go to several free places wait in `pending` until
    // nothing else moves; then the place nearest in the net's order is guessed (generators
    // number a process's places, or a variable's, together), and the check below drops a set
    // that a wrong guess spoilt.
    let mut pending: Vec<u32> = Vec::new();
    let (mut from, mut to) = (Vec::new(), Vec::new());
    loop {
        let (t, guess) = match work.pop() {
            Some(t) => {
                queued[t as usize] = false;
                (t, false)
            }
            None => match pending.pop() {
                Some(t) => (t, true),
                None => break,
            },
        };
        let change = effects.row(t as usize);
        from.clear();
        from.extend(change.iter().filter(|c| c.1 < 0).map(|c| c.0 as usize));
        to.clear();
        to.extend(change.iter().filter(|c| c.1 > 0).map(|c| c.0 as usize));
        for (side, other) in [(&from, &to), (&to, &from)] {
            for &p in side.iter() {
                let s = set[p];
                // A set met once on this side and not at all on the other: the token must go
                // to (or come from) a place of the other side that has no set yet.
                if s == NONE
                    || side.iter().filter(|&&q| set[q] == s).count() != 1
                    || other.iter().any(|&q| set[q] == s)
                {
                    continue;
                }
                let mut free = other.iter().copied().filter(|&q| set[q] == NONE);
                let q = match (free.next(), free.next()) {
                    (Some(q), None) => q,
                    (Some(_), Some(_)) if !guess => {
                        pending.push(t);
                        continue;
                    }
                    (Some(_), Some(_)) => {
                        let free = other.iter().copied().filter(|&q| set[q] == NONE);
                        free.min_by_key(|&q| (q.abs_diff(p), q))
                            .expect("two free places")
                    }
                    _ => continue,
                };
                set[q] = s;
                // A step with one place on each side has nothing left to give once its
                // token's set is on both (most steps): it is not looked at again.
                let done = from.len() == 1 && to.len() == 1;
                enqueue(q, if done { t } else { u32::MAX }, &mut work, &mut queued);
            }
        }
    }
    // The check: at most one token initially, and every transition takes from the set as
    // many tokens as it puts back, at most one.
    let mut ok = vec![true; sets as usize];
    let mut initial = vec![0u64; sets as usize];
    let mut size = vec![0u32; sets as usize];
    for (p, place) in net.places.iter().enumerate() {
        if set[p] != NONE {
            initial[set[p] as usize] += u64::from(place.initial);
            size[set[p] as usize] += 1;
        }
    }
    let mut sums: Vec<(u32, i64, i64)> = Vec::new();
    for t in 0..n {
        sums.clear();
        for &(p, d) in effects.row(t) {
            let s = set[p as usize];
            if s == NONE {
                continue;
            }
            let taken = (-d).max(0);
            match sums.iter_mut().find(|x| x.0 == s) {
                Some(x) => {
                    x.1 += d;
                    x.2 += taken;
                }
                None => sums.push((s, d, taken)),
            }
        }
        for &(s, net_change, taken) in &sums {
            if net_change != 0 || taken > 1 {
                ok[s as usize] = false;
            }
        }
    }
    let keep = |s: u32| ok[s as usize] && initial[s as usize] <= 1 && size[s as usize] >= 2;
    let kept = Rows::group(sets as usize, || {
        (0..places)
            .filter(|&p| set[p] != NONE && keep(set[p]))
            .map(|p| (set[p] as usize, p as PlaceIdx))
    });
    (0..kept.len())
        .map(|s| kept.row(s).to_vec())
        .filter(|row| !row.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// A net from `(name, initial)` places and `(name, inputs, outputs)` transitions.
    fn net(places: &[(&str, u32)], transitions: &[(&str, &[&str], &[&str])]) -> Net {
        let mut b = NetBuilder::new("test");
        let at = |name: &str| places.iter().position(|p| p.0 == name).unwrap() as PlaceIdx;
        for &(p, m) in places {
            b.add_place(p, None, m).unwrap();
        }
        for &(t, ins, outs) in transitions {
            let ti = b.add_transition(t, None).unwrap();
            for &p in ins {
                b.add_arc(at(p), ti, ArcKind::Input, 1).unwrap();
            }
            for &p in outs {
                b.add_arc(at(p), ti, ArcKind::Output, 1).unwrap();
            }
        }
        b.finish()
    }

    #[test]
    fn a_chain_is_one_component() {
        let n = net(
            &[("a", 1), ("b", 0), ("c", 0)],
            &[("t", &["a"], &["b"]), ("u", &["b"], &["c"])],
        );
        assert_eq!(one_token_components(&n), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn processes_and_a_lock_split_into_their_components() {
        // Two processes a0 -> a1 -> a0 taking and giving back a lock: {a0, a1}, {b0, b1} and
        // the lock with the critical sections ({l, a1, b1}) overlap; the processes are found.
        let n = net(
            &[("a0", 1), ("a1", 0), ("b0", 1), ("b1", 0), ("l", 1)],
            &[
                ("ta", &["a0", "l"], &["a1"]),
                ("ua", &["a1"], &["a0", "l"]),
                ("tb", &["b0", "l"], &["b1"]),
                ("ub", &["b1"], &["b0", "l"]),
            ],
        );
        let found = one_token_components(&n);
        assert!(found.contains(&vec![0, 1]), "{found:?}");
        assert!(found.contains(&vec![2, 3]), "{found:?}");
        for set in &found {
            assert!(
                !set.contains(&4),
                "the lock's set fails the check: {found:?}"
            );
        }
    }

    #[test]
    fn a_set_that_gains_tokens_is_dropped() {
        // t puts a token into b without taking one from {a, b}: no invariant.
        let n = net(
            &[("a", 1), ("b", 0), ("x", 1)],
            &[("m", &["a"], &["b"]), ("t", &["x"], &["b", "x"])],
        );
        assert!(one_token_components(&n).is_empty());
    }

    #[test]
    fn two_tokens_are_not_one() {
        let n = net(
            &[("a", 1), ("b", 1)],
            &[("t", &["a"], &["b"]), ("u", &["b"], &["a"])],
        );
        // Each marked place starts a set; neither can take the other: no set of two places.
        assert!(one_token_components(&n).is_empty());
    }
}
