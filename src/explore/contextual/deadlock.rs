//! Deadlock detection on a complete contextual prefix.
//!
//! Every reachable marking is the marking of a configuration `C` of the prefix all of whose
//! events have a history in `C` that is not a cutoff, so `C` is reached by the token game of the
//! occurrence net restricted to events with a kept history: an event fires when its preset and
//! its context are in the cut; it removes its preset and adds its postset. The search walks
//! that token game breadth-first over cuts (each configuration once) and stops at the first
//! cut whose marking enables no transition of the net: a deadlock, with the events fired to
//! reach it. Any configuration of the occurrence net is a run of the net, so the answer is
//! sound; and every reachable marking is met, so "no deadlock" is too.
//!
//! The token game visits configurations, not markings: it may meet one marking many times.
//! That is the price of exactness on contextual prefixes (two configurations with one marking
//! may extend differently inside the prefix).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::ContextualPrefix;
use crate::explore::limits::Limits;
use crate::explore::prefix::DeadlockAnswer;
use crate::model::net::Net;

/// Searches the token game of `prefix` for a dead marking of `net`.
pub fn search(net: &Net, prefix: &ContextualPrefix, limits: &Limits) -> DeadlockAnswer {
    let nc = prefix.conditions.len();
    let words = nc.div_ceil(64).max(1);
    let usable: Vec<bool> = prefix.events.iter().map(|e| !e.cutoff).collect();
    // Transitions by their tested places (consumed or read), for the dead-marking test.
    let live: Vec<Vec<u32>> = net
        .transitions
        .iter()
        .filter(|t| t.pre.iter().chain(&t.reads).all(|a| a.weight == 1))
        .map(|t| t.pre.iter().chain(&t.reads).map(|a| a.place).collect())
        .collect();
    let mut cut0 = vec![0u64; words];
    for c in 0..prefix.initial as usize {
        cut0[c / 64] |= 1 << (c % 64);
    }
    let has = |cut: &[u64], c: u32| cut[c as usize / 64] >> (c % 64) & 1 == 1;
    // States: cut, parent, event fired from the parent; `seen` indexes them by cut (each cut
    // is held once, in `states`).
    let hasher = FxBuildHasher;
    let mut seen: HashTable<u32> = HashTable::new();
    seen.insert_unique(hasher.hash_one(&cut0), 0, |_| {
        unreachable!("the table is empty")
    });
    let mut states: Vec<(Vec<u64>, u32, u32)> = vec![(cut0, u32::MAX, u32::MAX)];
    let mut next = 0usize;
    let mut marked = vec![false; net.places.len()];
    while next < states.len() {
        if next.is_multiple_of(1024) {
            let bytes = (states.len() * (words * 8 + 48)) as u64;
            if let Err(r) = limits.check_time().and_then(|_| limits.check_memory(bytes)) {
                return DeadlockAnswer::Unknown(r);
            }
        }
        let cut = states[next].0.clone();
        // The marking, and whether it enables some transition.
        let conds: Vec<u32> = cut
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| {
                (0..64u32)
                    .filter(move |b| bits >> b & 1 == 1)
                    .map(move |b| w as u32 * 64 + b)
            })
            .collect();
        for &c in &conds {
            marked[prefix.conditions[c as usize].place as usize] = true;
        }
        let dead = !live
            .iter()
            .any(|places| places.iter().all(|&p| marked[p as usize]));
        for &c in &conds {
            marked[prefix.conditions[c as usize].place as usize] = false;
        }
        if dead {
            let mut run = Vec::new();
            let mut s = next;
            while states[s].1 != u32::MAX {
                run.push(states[s].2);
                s = states[s].1 as usize;
            }
            run.reverse();
            return DeadlockAnswer::Found(run);
        }
        let mut enabled: Vec<u32> = conds
            .iter()
            .flat_map(|&c| {
                let cond = &prefix.conditions[c as usize];
                cond.consumers.iter().chain(&cond.readers).copied()
            })
            .filter(|&e| usable[e as usize])
            .collect();
        enabled.sort_unstable();
        enabled.dedup();
        for e in enabled {
            let ev = &prefix.events[e as usize];
            if !ev.preset.iter().chain(&ev.context).all(|&c| has(&cut, c)) {
                continue;
            }
            let mut after = cut.clone();
            for &c in &ev.preset {
                after[c as usize / 64] &= !(1 << (c % 64));
            }
            for &c in &ev.postset {
                after[c as usize / 64] |= 1 << (c % 64);
            }
            let hash = hasher.hash_one(&after);
            if seen
                .find(hash, |&i| states[i as usize].0 == after)
                .is_none()
            {
                let id = states.len() as u32;
                seen.insert_unique(hash, id, |&i| hasher.hash_one(&states[i as usize].0));
                states.push((after, next as u32, e));
            }
        }
        next += 1;
    }
    DeadlockAnswer::Free
}
