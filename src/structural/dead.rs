//! Transitions that can never fire and places whose marking never changes, from the net's
//! graph alone.

use super::effect;
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// What transition `t` needs to be enabled: `(place, tokens)` for every place it consumes from
/// or reads, the larger of the two weights (as `NetSystem` tests it), sorted by place.
pub fn needs(net: &Net, t: TransIdx) -> Vec<(PlaceIdx, u64)> {
    let tr = &net.transitions[t as usize];
    let mut out: Vec<(PlaceIdx, u64)> = tr
        .pre
        .iter()
        .chain(&tr.reads)
        .map(|a| (a.place, a.weight as u64))
        .collect();
    out.sort_unstable();
    // A place both consumed and read: the larger weight (sorted, so the last of its run).
    out.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 = earlier.1.max(later.1);
        }
        same
    });
    out
}

/// The transitions that can never fire, given some known never to fire (`known`, indexed by
/// transition; shorter means the rest are not known).
///
/// The least fixpoint of "may be marked": a place may be marked if it is initially marked or
/// some transition that may fire puts tokens on it; a transition may fire if it is not known
/// dead and every place it consumes from or reads may be marked. *Soundness*: by induction on
/// a firing sequence, every place marked along it may be marked and every transition fired
/// may fire (it was enabled, so its places were marked, and it is not known dead, which the
/// caller vouches for). So a transition outside the fixpoint is never fired.
pub fn never_fire(net: &Net, known: &[bool]) -> Vec<bool> {
    never_fire_from(net, |p| net.places[p as usize].initial > 0, known)
}

/// [`never_fire`] from another marking than the initial one: the places `marked` says hold
/// tokens. The transitions it finds never fire in any firing sequence from that marking.
pub fn never_fire_from(net: &Net, marked: impl Fn(PlaceIdx) -> bool, known: &[bool]) -> Vec<bool> {
    let places = net.places.len();
    let transitions = net.transitions.len();
    // For each place, the transitions that need it; for each transition, how many places it
    // needs that are not yet known to be markable.
    let mut needed_by: Vec<Vec<TransIdx>> = vec![Vec::new(); places];
    let mut missing = vec![0u32; transitions];
    for t in 0..transitions as TransIdx {
        for (p, _) in needs(net, t) {
            needed_by[p as usize].push(t);
            missing[t as usize] += 1;
        }
    }
    let mut markable = vec![false; places];
    let mut fires = vec![false; transitions];
    let mut queue: Vec<TransIdx> = Vec::new();
    let is_known = |t: TransIdx| known.get(t as usize).copied().unwrap_or(false);
    let mut mark = |p: PlaceIdx, queue: &mut Vec<TransIdx>, missing: &mut [u32]| {
        if std::mem::replace(&mut markable[p as usize], true) {
            return;
        }
        for &t in &needed_by[p as usize] {
            missing[t as usize] -= 1;
            if missing[t as usize] == 0 {
                queue.push(t);
            }
        }
    };
    for t in 0..transitions as TransIdx {
        if missing[t as usize] == 0 {
            queue.push(t);
        }
    }
    for p in 0..places as PlaceIdx {
        if marked(p) {
            mark(p, &mut queue, &mut missing);
        }
    }
    while let Some(t) = queue.pop() {
        if is_known(t) || std::mem::replace(&mut fires[t as usize], true) {
            continue;
        }
        for a in &net.transitions[t as usize].post {
            mark(a.place, &mut queue, &mut missing);
        }
    }
    fires.into_iter().map(|f| !f).collect()
}

/// The places whose marking never changes: every transition that may fire (not in `dead`)
/// consumes from them as many tokens as it produces. *Soundness*: a marking changes only by
/// firings, each adding `post − pre` on every place, which is 0 on such a place for every
/// transition that fires.
pub fn constant_places(net: &Net, dead: &[bool]) -> Vec<bool> {
    let mut constant = vec![true; net.places.len()];
    for t in 0..net.transitions.len() as TransIdx {
        if !dead.get(t as usize).copied().unwrap_or(false) {
            for (p, _) in effect(net, t) {
                constant[p as usize] = false;
            }
        }
    }
    constant
}
