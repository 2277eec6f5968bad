//! Turning self-loops into read arcs (what Cunf's `plain2cont` script does), so that the
//! contextual version of any net can be made and unfolded.

use super::net::{Arc, Net};

/// `net` with every pair of arcs `p → t`, `t → p` of equal weight replaced by one read arc
/// `t` reads `p` of that weight, and how many pairs were replaced. Places, transitions and
/// their order are kept (adequate orders break ties by that order).
pub fn loops_to_read_arcs(net: &Net) -> (Net, usize) {
    let mut out = net.clone();
    let mut replaced = 0;
    for t in &mut out.transitions {
        let loops: Vec<Arc> = t
            .pre
            .iter()
            .copied()
            .filter(|a| t.post.contains(a))
            .collect();
        if loops.is_empty() {
            continue;
        }
        replaced += loops.len();
        t.pre.retain(|a| !loops.contains(a));
        t.post.retain(|a| !loops.contains(a));
        for a in loops {
            match t.reads.iter_mut().find(|r| r.place == a.place) {
                // Already read as well: the stronger test stays.
                Some(r) => r.weight = r.weight.max(a.weight),
                None => t.reads.push(a),
            }
        }
        t.reads.sort();
    }
    (out, replaced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    #[test]
    fn equal_weight_loops_become_read_arcs_and_others_stay() {
        let mut b = NetBuilder::new("n");
        let p = b.add_place("p", None, 1).unwrap();
        let q = b.add_place("q", None, 1).unwrap();
        let r = b.add_place("r", None, 0).unwrap();
        let t = b.add_transition("t", None).unwrap();
        b.add_arc(p, t, ArcKind::Input, 1).unwrap();
        b.add_arc(p, t, ArcKind::Output, 1).unwrap();
        b.add_arc(q, t, ArcKind::Input, 1).unwrap();
        b.add_arc(q, t, ArcKind::Output, 2).unwrap();
        b.add_arc(r, t, ArcKind::Output, 1).unwrap();
        let (net, n) = loops_to_read_arcs(&b.finish());
        assert_eq!(n, 1);
        let t = &net.transitions[0];
        assert_eq!(t.reads.iter().map(|a| a.place).collect::<Vec<_>>(), vec![p]);
        assert_eq!(t.pre.iter().map(|a| a.place).collect::<Vec<_>>(), vec![q]);
        assert_eq!(
            t.post
                .iter()
                .map(|a| (a.place, a.weight))
                .collect::<Vec<_>>(),
            vec![(q, 2), (r, 1)]
        );
    }
}
