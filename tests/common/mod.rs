//! Helpers shared by the integration tests: where ../shared is, and its oracle table.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `../shared/nets` beside the checkout. Panics (the test fails, never skips) when missing.
pub fn shared_nets() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    assert!(
        dir.join("ORACLES.tsv").is_file(),
        "{} is missing: the oracle tests need ../shared beside the checkout",
        dir.display()
    );
    dir
}

/// `../shared/mcc` beside the checkout (the contest's instances and `oracle.tsv`). Panics
/// (the test fails, never skips) when missing.
pub fn shared_mcc() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/mcc");
    assert!(
        dir.join("oracle.tsv").is_file(),
        "{} is missing: these tests need ../shared beside the checkout",
        dir.display()
    );
    dir
}

/// The rows of ORACLES.tsv: file (relative to shared/nets) → property → value.
pub fn oracles() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(shared_nets().join("ORACLES.tsv")).unwrap();
    let mut map: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        map.entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), cols[2].to_string());
    }
    map
}

/// Every net file under shared/nets (relative paths), sorted.
pub fn shared_net_files() -> Vec<String> {
    let root = shared_nets();
    let mut out = Vec::new();
    for sub in ["pnml", "pnml/col", "pep", "pep/cont"] {
        for entry in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                out.push(format!(
                    "{sub}/{}",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

/// The `unfold` binary built for this test run.
pub fn unfold() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("unfold").unwrap()
}

/// Writes `content` to a fresh file named `name`, runs `unfold info` on it, and checks the
/// exit code (2) and the one-line message: `<file>:<line>:<col>:` and every word of `words`.
pub fn info_rejects(name: &str, content: &[u8], line: usize, col: usize, words: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    let out = unfold().arg("info").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "not one line: {stderr}"
    );
    let at = format!("{}:{line}:{col}:", path.display());
    assert!(stderr.contains(&at), "no '{at}' in: {stderr}");
    for w in words {
        assert!(stderr.contains(w), "no '{w}' in: {stderr}");
    }
}

/// The number of random cases of a heavy property test: all of them in release builds (the
/// README's test command, CI), an eighth in debug builds, where each case is about ten times
/// slower, so that `cargo test` stays within minutes.
pub fn cases(release: u32) -> u32 {
    if cfg!(debug_assertions) {
        (release / 8).max(8)
    } else {
        release
    }
}

/// The promise of `System::fire_in_place` for a system that says where its resources lie: at
/// `state`, the enabled transition `t` reads and writes only the words
/// `unfold::unfolding::parts::TransitionWords` gives it. With every other word scrambled,
/// `is_enabled` answers as before, and `fire_in_place` writes the successor's values into
/// those words and leaves the others alone. Returns what went wrong.
pub fn check_local_firing<S: unfold::system::System>(
    sys: &S,
    words_of: &unfold::unfolding::parts::TransitionWords,
    state: &[u64],
    t: unfold::system::Transition,
) -> Result<(), String> {
    let mine = words_of.of(t);
    let mut scrambled: Vec<u64> = state
        .iter()
        .enumerate()
        .map(|(w, &v)| {
            if mine.contains(&(w as u32)) {
                v
            } else {
                !v ^ (w as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            }
        })
        .collect();
    let garbage = scrambled.clone();
    if !sys.is_enabled(&scrambled, t) {
        return Err(format!(
            "t{t} reads words outside {mine:?} to decide it is enabled"
        ));
    }
    let mut next = vec![0; state.len()];
    let fired = sys.fire(state, t, &mut next);
    let in_place = sys.fire_in_place(&mut scrambled, t);
    if fired.is_err() || in_place.is_err() {
        return if fired.is_err() == in_place.is_err() {
            Ok(())
        } else {
            Err(format!("t{t} overflows in one firing and not the other"))
        };
    }
    for w in 0..state.len() {
        let want = if mine.contains(&(w as u32)) {
            next[w]
        } else {
            if next[w] != state[w] {
                return Err(format!("t{t} changes word {w}, outside {mine:?}"));
            }
            garbage[w]
        };
        if scrambled[w] != want {
            return Err(format!(
                "t{t} fired in place gives word {w} = {:#x}, not {want:#x}",
                scrambled[w]
            ));
        }
    }
    Ok(())
}

/// A transition of [`machines_net`]: the machines it moves (`(machine, from, to)`, machines
/// taken modulo the count; a machine named twice moves once, and a move to the same state
/// is left out), a state of another machine it tests, and whether it takes (0) or gives (1)
/// the shared place's token.
pub type MachineStep = (Vec<(usize, usize, usize)>, Option<(usize, usize)>, u8);

/// A net of `k` state machines of `len` states (one token each, in state 0) and a shared
/// place marked once, with the transitions `steps`: a net with one-token components.
pub fn machines_net(k: usize, len: usize, steps: Vec<MachineStep>) -> unfold::model::net::Net {
    use unfold::model::net::{ArcKind, NetBuilder};
    let mut b = NetBuilder::new("machines");
    let state: Vec<Vec<u32>> = (0..k)
        .map(|m| {
            (0..len)
                .map(|s| {
                    b.add_place(format!("m{m}s{s}"), None, u32::from(s == 0))
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let shared = b.add_place("shared", None, 1).unwrap();
    for (i, (moves, test, lock)) in steps.into_iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut moved = Vec::new();
        for (m, from, to) in moves {
            let m = m % k;
            if moved.contains(&m) || from == to {
                continue;
            }
            moved.push(m);
            b.add_arc(state[m][from], t, ArcKind::Input, 1).unwrap();
            b.add_arc(state[m][to], t, ArcKind::Output, 1).unwrap();
        }
        if let Some((m, s)) = test
            && !moved.contains(&(m % k))
        {
            b.add_arc(state[m % k][s], t, ArcKind::Read, 1).unwrap();
        }
        match lock {
            0 => b.add_arc(shared, t, ArcKind::Input, 1).unwrap(),
            1 => b.add_arc(shared, t, ArcKind::Output, 1).unwrap(),
            _ => {}
        }
    }
    b.finish()
}

/// The records of a CSV file's text, header included, read with the `csv` crate (not with the
/// binary's own reader): the batch's output must be standard CSV.
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| {
            r.expect("well-formed CSV")
                .iter()
                .map(String::from)
                .collect()
        })
        .collect()
}

/// The header line of `unfold batch --csv`: a stable interface (README, "Batch runs").
pub const BATCH_HEADER: &str = "net,mode,status,exit_code,wall_s,peak_mb,states,edges,deadlocks,\
    assertion_failures,events,cutoffs,conditions,histories,maximal_configurations,executions,complete,file,message";

/// Arcs of a random transition: `(place, weight)`, places taken modulo the net's.
pub type Arcs = Vec<(usize, u32)>;

/// A random net: initial marking and transitions `(pre, post, reads)`.
#[derive(Clone, Debug)]
pub struct NetSpec {
    /// Initial tokens per place.
    pub initial: Vec<u32>,
    /// Input, output and read arcs of each transition.
    pub transitions: Vec<(Arcs, Arcs, Arcs)>,
}

/// The net of `spec` (repeated arcs merged, weights added).
pub fn net_of_spec(spec: &NetSpec) -> unfold::model::net::Net {
    use unfold::model::net::{ArcKind, NetBuilder, PlaceIdx};
    let n = spec.initial.len();
    let mut b = NetBuilder::new("random");
    for (i, &m) in spec.initial.iter().enumerate() {
        b.add_place(format!("p{i}"), None, m).unwrap();
    }
    for (i, (pre, post, reads)) in spec.transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        for (arcs, kind) in [
            (pre, ArcKind::Input),
            (post, ArcKind::Output),
            (reads, ArcKind::Read),
        ] {
            let mut merged = std::collections::BTreeMap::new();
            for &(p, w) in arcs {
                *merged.entry(p % n).or_insert(0) += w;
            }
            for (p, w) in merged {
                b.add_arc(p as PlaceIdx, t, kind, w).unwrap();
            }
        }
    }
    b.finish()
}

/// Whether `t` is enabled at the marking `m` (token counts), by the firing rule alone.
pub fn enabled(net: &unfold::model::net::Net, m: &[u64], t: u32) -> bool {
    let tr = &net.transitions[t as usize];
    tr.pre
        .iter()
        .chain(&tr.reads)
        .all(|a| m[a.place as usize] >= a.weight as u64)
}

/// The marking after firing `t` (enabled) at `m`.
pub fn fire(net: &unfold::model::net::Net, m: &[u64], t: u32) -> Vec<u64> {
    let tr = &net.transitions[t as usize];
    let mut next = m.to_vec();
    for a in &tr.pre {
        next[a.place as usize] -= a.weight as u64;
    }
    for a in &tr.post {
        next[a.place as usize] += a.weight as u64;
    }
    next
}

/// A marking as plain token counts, for the naive oracles of the property tests: arcs read
/// straight from the `Net` ([`enabled`]).
pub struct Plain<'a> {
    pub net: &'a unfold::model::net::Net,
    pub m: &'a [u64],
}

impl unfold::property::Marking for Plain<'_> {
    fn tokens(&self, p: unfold::model::net::PlaceIdx) -> u64 {
        self.m[p as usize]
    }
    fn enabled(&self, t: unfold::model::net::TransIdx) -> bool {
        enabled(self.net, self.m, t)
    }
    fn dead(&self) -> bool {
        (0..self.net.transitions.len() as u32).all(|t| !enabled(self.net, self.m, t))
    }
}

/// Every reachable marking of `net`, breadth-first by the firing rule alone, or `None` past
/// `cap` of them.
pub fn markings(net: &unfold::model::net::Net, cap: usize) -> Option<Vec<Vec<u64>>> {
    use std::collections::{HashSet, VecDeque};
    let m0: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut seen = HashSet::from([m0.clone()]);
    let mut queue = VecDeque::from([m0.clone()]);
    let mut all = vec![m0];
    while let Some(m) = queue.pop_front() {
        for t in 0..net.transitions.len() as u32 {
            if enabled(net, &m, t) {
                let n = fire(net, &m, t);
                if seen.insert(n.clone()) {
                    if all.len() >= cap {
                        return None;
                    }
                    all.push(n.clone());
                    queue.push_back(n);
                }
            }
        }
    }
    Some(all)
}

/// The marking `run` reaches from the initial one, or `None` if a step is not enabled when it
/// fires.
pub fn replay(
    net: &unfold::model::net::Net,
    run: &[unfold::model::net::TransIdx],
) -> Option<Vec<u64>> {
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    for &t in run {
        if !enabled(net, &m, t) {
            return None;
        }
        m = fire(net, &m, t);
    }
    Some(m)
}

/// Random sums of token counts over places `0..np`: a constant (mostly 0) and up to `k` terms
/// of weight below `k`.
pub fn arb_linear(
    np: u32,
    k: u64,
) -> impl proptest::strategy::Strategy<Value = unfold::property::Linear> {
    use proptest::prelude::*;
    (
        prop_oneof![3 => Just(0u64), 1 => 0u64..4],
        proptest::collection::btree_map(
            0..np,
            prop_oneof![3 => Just(1u64), 1 => 1u64..k],
            0..=k as usize,
        ),
    )
        .prop_map(|(constant, terms)| unfold::property::Linear {
            constant,
            terms: terms.into_iter().collect(),
        })
}

/// Random predicates over places `0..np` and transitions `0..nt`: every kind of atom
/// (constants, deadlock, fireability, comparisons of [`arb_linear`] sums with `k`) and
/// connective, nested up to three deep.
pub fn arb_predicate(
    np: u32,
    nt: u32,
    k: u64,
) -> proptest::strategy::BoxedStrategy<unfold::property::Predicate> {
    use proptest::prelude::*;
    use unfold::property::{Cmp, Predicate};
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Predicate::Bool),
        1 => Just(Predicate::Deadlock),
        2 => proptest::collection::btree_set(0..nt, 1..=3)
            .prop_map(|ts| Predicate::Fireable(ts.into_iter().collect())),
        5 => (arb_linear(np, k), proptest::sample::select(Cmp::ALL.to_vec()), arb_linear(np, k))
            .prop_map(|(a, c, b)| Predicate::Compare(a, c, b)),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|p| Predicate::Not(Box::new(p))),
            proptest::collection::vec(inner.clone(), 0..=3).prop_map(Predicate::And),
            proptest::collection::vec(inner, 0..=3).prop_map(Predicate::Or),
        ]
    })
    .boxed()
}
