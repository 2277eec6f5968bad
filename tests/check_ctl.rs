//! The CTL engine (`unfold::check::ctl`) against the textbook: an oracle written apart from
//! it, which enumerates every reachable marking (plain vectors of counts, arcs read from the
//! `Net`), builds the whole state graph and labels it with each subformula bottom-up, every
//! operator (`EX`, `AX`, `EF`, `AF`, `EG`, `AG`, `EU`, `AU`) by its own fixed point, with no
//! rewriting into other operators. Random small nets and random CTL formulas (proptest); the
//! verdicts agree under both rules for deadlocks, and every witness or counterexample the
//! engine gives replays and shows what it claims.
//!
//! The contest's rule for finite maximal paths is pinned by hand-made nets with deadlocks.

use crate::common;

use std::collections::HashMap;

use proptest::prelude::*;
use unfold::check::ctl::{self, CtlOptions, DeadlockRule, Trace};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::property::{Cmp, Form, IntExpr, ResolvedFormula};

// ---------------------------------------------------------------- the oracle's state graph

fn is_enabled(net: &Net, m: &[u64], t: usize) -> bool {
    let tr = &net.transitions[t];
    let pre_ok = tr
        .pre
        .iter()
        .all(|a| m[a.place as usize] >= a.weight as u64);
    pre_ok
        && tr
            .reads
            .iter()
            .all(|a| m[a.place as usize] >= a.weight as u64)
}

fn fired(net: &Net, m: &[u64], t: usize) -> Vec<u64> {
    let mut out = m.to_vec();
    let tr = &net.transitions[t];
    tr.pre
        .iter()
        .for_each(|a| out[a.place as usize] -= a.weight as u64);
    tr.post
        .iter()
        .for_each(|a| out[a.place as usize] += a.weight as u64);
    out
}

/// The reachability graph: markings (the initial one first) and successor lists.
struct Graph {
    markings: Vec<Vec<u64>>,
    succ: Vec<Vec<usize>>,
    index: HashMap<Vec<u64>, usize>,
}

impl Graph {
    /// The graph of `net`, or `None` past `cap` markings.
    fn of(net: &Net, cap: usize) -> Option<Graph> {
        let m0: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
        let mut g = Graph {
            markings: vec![m0.clone()],
            succ: Vec::new(),
            index: HashMap::from([(m0, 0)]),
        };
        let mut i = 0;
        while i < g.markings.len() {
            let mut out = Vec::new();
            for t in 0..net.transitions.len() {
                if !is_enabled(net, &g.markings[i], t) {
                    continue;
                }
                let next = fired(net, &g.markings[i], t);
                let id = match g.index.get(&next) {
                    Some(&id) => id,
                    None => {
                        if g.markings.len() >= cap {
                            return None;
                        }
                        g.markings.push(next.clone());
                        g.index.insert(next, g.markings.len() - 1);
                        g.markings.len() - 1
                    }
                };
                out.push(id);
            }
            g.succ.push(out);
            i += 1;
        }
        Some(g)
    }

    fn dead(&self, s: usize) -> bool {
        self.succ[s].is_empty()
    }
}

// ---------------------------------------------------------------- the labelling

fn int(e: &IntExpr<PlaceIdx>, m: &[u64]) -> u64 {
    match e {
        IntExpr::Const(k) => *k,
        IntExpr::Tokens(ps) => ps.iter().map(|&p| m[p as usize]).sum(),
        IntExpr::Sum(es) => es.iter().map(|e| int(e, m)).sum(),
    }
}

/// The labelling oracle: the set of states satisfying each formula.
struct Oracle<'g> {
    net: &'g Net,
    g: &'g Graph,
    /// A deadlock's next state is itself (the stutter rule) rather than none.
    stutter: bool,
}

impl Oracle<'_> {
    /// Successors, with the stutter rule's self-loop on deadlocks.
    fn next(&self, s: usize) -> Vec<usize> {
        if self.stutter && self.g.dead(s) {
            vec![s]
        } else {
            self.g.succ[s].clone()
        }
    }

    fn ends(&self, s: usize) -> bool {
        self.next(s).is_empty()
    }

    /// `Z = base ∪ (step ∩ pre(Z))` from below; `pre` is ∃ or ∀ over the successors, and
    /// a state without successors never enters through `pre` under ∀ (its only path is
    /// finite: it has reached nothing).
    fn least(&self, base: &[bool], step: &[bool], all: bool) -> Vec<bool> {
        let mut z = base.to_vec();
        loop {
            let mut changed = false;
            for s in 0..z.len() {
                if z[s] || !step[s] {
                    continue;
                }
                let n = self.next(s);
                let pre = if all {
                    !n.is_empty() && n.iter().all(|&w| z[w])
                } else {
                    n.iter().any(|&w| z[w])
                };
                if pre {
                    z[s] = true;
                    changed = true;
                }
            }
            if !changed {
                return z;
            }
        }
    }

    /// `Z = keep ∩ (pre(Z) ∪ end)` from above: `EG` (∃) and `AG` (∀); a path may end at a
    /// state without successors.
    fn greatest(&self, keep: &[bool], all: bool) -> Vec<bool> {
        let mut z = keep.to_vec();
        loop {
            let mut changed = false;
            for s in 0..z.len() {
                if !z[s] || self.ends(s) {
                    continue;
                }
                let n = self.next(s);
                let pre = if all {
                    n.iter().all(|&w| z[w])
                } else {
                    n.iter().any(|&w| z[w])
                };
                if !pre {
                    z[s] = false;
                    changed = true;
                }
            }
            if !changed {
                return z;
            }
        }
    }

    fn sat(&self, f: &ResolvedFormula) -> Vec<bool> {
        let n = self.g.markings.len();
        let every = |p: &dyn Fn(usize) -> bool| (0..n).map(p).collect::<Vec<bool>>();
        let ms = &self.g.markings;
        match f {
            Form::Bool(b) => vec![*b; n],
            Form::Deadlock => every(&|s| self.g.dead(s)),
            Form::Fireable(ts) => {
                every(&|s| ts.iter().any(|&t| is_enabled(self.net, &ms[s], t as usize)))
            }
            Form::Compare(a, c, b) => every(&|s| c.holds(int(a, &ms[s]), int(b, &ms[s]))),
            Form::Not(g) => self.sat(g).into_iter().map(|v| !v).collect(),
            Form::And(gs) => gs.iter().fold(vec![true; n], |acc, g| {
                acc.iter().zip(self.sat(g)).map(|(a, b)| *a && b).collect()
            }),
            Form::Or(gs) => gs.iter().fold(vec![false; n], |acc, g| {
                acc.iter().zip(self.sat(g)).map(|(a, b)| *a || b).collect()
            }),
            Form::Exists(p) | Form::All(p) => {
                let all = matches!(f, Form::All(_));
                let t = vec![true; n];
                match p.as_ref() {
                    Form::Next(g) => {
                        let z = self.sat(g);
                        every(&|s| {
                            let next = self.next(s);
                            if all {
                                next.iter().all(|&w| z[w])
                            } else {
                                next.iter().any(|&w| z[w])
                            }
                        })
                    }
                    Form::Finally(g) => self.least(&self.sat(g), &t, all),
                    Form::Until(a, b) => self.least(&self.sat(b), &self.sat(a), all),
                    Form::Globally(g) => self.greatest(&self.sat(g), all),
                    _ => panic!("the generator makes only CTL"),
                }
            }
            _ => panic!("the generator makes only CTL"),
        }
    }
}

// ---------------------------------------------------------------- random nets and formulas

const PLACES: usize = 3;
const TRANSITIONS: usize = 4;

/// A transition as input arcs, output arcs, read arcs: `(place, weight)`.
type Arcs = Vec<(usize, u32, ArcKind)>;

fn net_of(initial: &[u32], transitions: &[Arcs]) -> Net {
    let mut b = NetBuilder::new("random");
    let ps: Vec<PlaceIdx> = (0..PLACES)
        .map(|i| b.add_place(format!("p{i}"), None, initial[i]).unwrap())
        .collect();
    for (i, arcs) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut taken: Vec<(usize, bool)> = Vec::new();
        for &(p, w, kind) in arcs {
            // One arc per place and side (a read arc counts as an input).
            let input = kind != ArcKind::Output;
            if taken.contains(&(p, input)) || (kind == ArcKind::Read && taken.contains(&(p, false)))
            {
                continue;
            }
            taken.push((p, input));
            b.add_arc(ps[p], t, kind, w).unwrap();
        }
    }
    b.finish()
}

/// Small nets over three places: most transitions move their tokens (so that the state
/// space stays small), some only consume them (deadlocks), a few create one more (some of
/// those nets grow past the oracle's cap and are left out); read arcs test without taking.
fn arb_net() -> impl Strategy<Value = Net> {
    let weight = || prop::sample::select(vec![1u32, 1, 2]);
    let transition = (
        0..PLACES,
        0..PLACES,
        weight(),
        prop::option::of((0..PLACES, weight())),
        0u8..8,
    )
        .prop_map(|(from, to, w, read, shape)| {
            let mut arcs = vec![(from, w, ArcKind::Input)];
            match shape {
                0 | 1 => {}
                2 => {
                    arcs.push((to, w, ArcKind::Output));
                    arcs.push(((to + 1) % PLACES, 1, ArcKind::Output));
                }
                _ => arcs.push((to, w, ArcKind::Output)),
            }
            arcs.extend(read.map(|(p, w)| (p, w, ArcKind::Read)));
            arcs
        });
    (
        prop::collection::vec(0u32..4, PLACES),
        prop::collection::vec(transition, TRANSITIONS),
    )
        .prop_map(|(initial, ts)| net_of(&initial, &ts))
}

fn arb_atom() -> impl Strategy<Value = ResolvedFormula> {
    let tokens = prop::collection::vec(0..PLACES as PlaceIdx, 1..3).prop_map(IntExpr::Tokens);
    prop_oneof![
        1 => any::<bool>().prop_map(Form::Bool),
        1 => Just(Form::Deadlock),
        3 => prop::collection::vec(0..TRANSITIONS as TransIdx, 1..3).prop_map(Form::Fireable),
        4 => (tokens, prop::sample::select(Cmp::ALL.to_vec()), 0u64..3)
            .prop_map(|(a, c, k)| Form::Compare(a, c, IntExpr::Const(k))),
    ]
}

/// CTL formulas: a quantifier directly over each temporal operator.
fn arb_ctl() -> impl Strategy<Value = ResolvedFormula> {
    arb_atom().prop_recursive(4, 16, 2, |inner| {
        let b = |f: ResolvedFormula| Box::new(f);
        prop_oneof![
            inner.clone().prop_map(move |f| Form::Not(b(f))),
            prop::collection::vec(inner.clone(), 2).prop_map(Form::And),
            prop::collection::vec(inner.clone(), 2).prop_map(Form::Or),
            (any::<bool>(), 0u8..3, inner.clone()).prop_map(move |(e, op, f)| {
                let path = match op {
                    0 => Form::Next(b(f)),
                    1 => Form::Finally(b(f)),
                    _ => Form::Globally(b(f)),
                };
                if e {
                    Form::Exists(b(path))
                } else {
                    Form::All(b(path))
                }
            }),
            (any::<bool>(), inner.clone(), inner).prop_map(move |(e, l, r)| {
                let path = Form::Until(b(l), b(r));
                if e {
                    Form::Exists(b(path))
                } else {
                    Form::All(b(path))
                }
            }),
        ]
    })
}

// ---------------------------------------------------------------- traces

/// The markings a trace passes through (the initial one first), or `None` if some
/// transition is not enabled where it fires.
fn replay(net: &Net, transitions: &[TransIdx]) -> Option<Vec<Vec<u64>>> {
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut seen = vec![m.clone()];
    for &t in transitions {
        if !is_enabled(net, &m, t as usize) {
            return None;
        }
        m = fired(net, &m, t as usize);
        seen.push(m.clone());
    }
    Some(seen)
}

/// Checks that `trace` shows the top operator of `f` (value `verdict`): a witness of `E`, a
/// counterexample of `A`. Panics with the reason when it does not.
fn check_trace(net: &Net, g: &Graph, o: &Oracle, f: &ResolvedFormula, verdict: bool, tr: &Trace) {
    let all: Vec<TransIdx> = tr.prefix.iter().chain(&tr.cycle).copied().collect();
    let path = replay(net, &all).expect("the trace fires");
    let id = |m: &Vec<u64>| g.index[m];
    let ids: Vec<usize> = path.iter().map(id).collect();
    let last = *ids.last().unwrap();
    let lasso_closes = tr.cycle.is_empty() || ids[tr.prefix.len()] == last;
    assert!(lasso_closes, "the cycle does not return");
    // (exists?, operator, operands) of the formula whose witness the trace is.
    let (quantifier, p) = match f {
        // A negated formula: the trace shows the value of the formula under the negation.
        Form::Not(h) => return check_trace(net, g, o, h, !verdict, tr),
        Form::Exists(p) => (true, p.as_ref()),
        Form::All(p) => (false, p.as_ref()),
        _ => panic!("a trace for a formula without a top operator"),
    };
    assert_eq!(quantifier, verdict, "a witness of E, a counterexample of A");
    // Operands that are formulas of their own may simplify into another operator (E[false U
    // EF φ] is EF φ): the trace is then one of what is left, and only its replay is checked.
    let operands_are_states = match p {
        Form::Next(h) | Form::Finally(h) | Form::Globally(h) => h.is_state(),
        Form::Until(a, h) => a.is_state() && h.is_state(),
        _ => false,
    };
    if !operands_are_states {
        return;
    }
    let holds = |h: &ResolvedFormula, s: usize, want: bool| o.sat(h)[s] == want;
    match p {
        Form::Next(h) => {
            assert_eq!((tr.prefix.len(), tr.cycle.len()), (1, 0));
            assert!(holds(h, ids[1], verdict), "the next state");
        }
        Form::Finally(h) if verdict => {
            assert!(tr.cycle.is_empty());
            assert!(holds(h, last, true), "the goal");
        }
        Form::Until(a, h) if verdict => {
            assert!(tr.cycle.is_empty());
            assert!(holds(h, last, true), "the goal");
            let before = &ids[..ids.len() - 1];
            assert!(before.iter().all(|&s| holds(a, s, true)), "φ before");
        }
        // A counterexample of AG: a path to a state violating it.
        Form::Globally(h) if !verdict => {
            assert!(tr.cycle.is_empty());
            assert!(holds(h, last, false), "the violation");
        }
        // EG, or a counterexample of AF: a lasso or a path to a deadlock, all of whose
        // states satisfy (violate) the operand.
        Form::Globally(h) | Form::Finally(h) => {
            assert!(ids.iter().all(|&s| holds(h, s, verdict)), "along the path");
            assert!(!tr.cycle.is_empty() || g.dead(last), "a maximal path");
        }
        _ => panic!("no trace expected for {p:?}"),
    }
}

/// Checks each formula of `fs` on `net` with one checker (each formula reuses the markings
/// of the ones before) and with the oracle, under `rule`.
fn agree(net: &Net, g: &Graph, fs: &[ResolvedFormula], rule: DeadlockRule) -> Result<(), String> {
    let o = Oracle {
        net,
        g,
        stutter: rule == DeadlockRule::Stutter,
    };
    let mut checker = ctl::Checker::new(net, CtlOptions { deadlock: rule }, None);
    for f in fs {
        let expected = o.sat(f)[0];
        let out = checker
            .check(f, &Limits::default())
            .map_err(|e| e.to_string())?;
        if out.verdict != Some(expected) {
            return Err(format!(
                "{rule:?}: engine {:?}, oracle {expected} on {f:?}",
                out.verdict
            ));
        }
        if let Some(tr) = &out.trace {
            check_trace(net, g, &o, f, expected, tr);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(600)))]

    #[test]
    fn engine_agrees_with_labelling(
        net in arb_net(),
        fs in prop::collection::vec(arb_ctl(), 1..4),
    ) {
        let Some(g) = Graph::of(&net, 300) else { return Ok(()) };
        for rule in [DeadlockRule::Maximal, DeadlockRule::Stutter] {
            if let Err(e) = agree(&net, &g, &fs, rule) {
                prop_assert!(false, "{e}\nnet {net:?}");
            }
        }
    }
}

// ---------------------------------------------------------------- the rule for deadlocks

/// `p0 →t0→ p1 →t1→ p2`, a deadlock at `p2` (one token, three states in a line).
fn line() -> Net {
    net_of(
        &[1, 0, 0],
        &[
            vec![(0, 1, ArcKind::Input), (1, 1, ArcKind::Output)],
            vec![(1, 1, ArcKind::Input), (2, 1, ArcKind::Output)],
        ],
    )
}

fn at(p: PlaceIdx) -> ResolvedFormula {
    Form::Compare(IntExpr::Tokens(vec![p]), Cmp::Ge, IntExpr::Const(1))
}

fn e(p: ResolvedFormula) -> ResolvedFormula {
    Form::Exists(Box::new(p))
}

fn a(p: ResolvedFormula) -> ResolvedFormula {
    Form::All(Box::new(p))
}

fn x(f: ResolvedFormula) -> ResolvedFormula {
    Form::Next(Box::new(f))
}

fn fin(f: ResolvedFormula) -> ResolvedFormula {
    Form::Finally(Box::new(f))
}

fn glob(f: ResolvedFormula) -> ResolvedFormula {
    Form::Globally(Box::new(f))
}

fn verdict(net: &Net, f: &ResolvedFormula) -> Option<bool> {
    ctl::check(net, f, &Limits::default()).unwrap().verdict
}

/// The contest: "formulas are judged on maximal paths, finite ones (ending in a deadlock)
/// included". At a deadlock there is no next state: `EX φ` is false and `AX φ` true,
/// whatever φ; a path that ends in a deadlock is a maximal path, so `EG φ` holds along one
/// whose states all satisfy φ, and `AF φ` fails on it when none does. (The answers of the
/// contest confirm it: `tests/mcc_ctl.rs`.)
#[test]
fn deadlocks_end_maximal_paths() {
    let net = line();
    // From p2 (the deadlock): EF p2 ∧ AG(p2 → ¬EX true ∧ AX false).
    let at_end = |f: ResolvedFormula| e(fin(Form::And(vec![at(2), f])));
    assert_eq!(verdict(&net, &at_end(e(x(Form::Bool(true))))), Some(false));
    assert_eq!(verdict(&net, &at_end(a(x(Form::Bool(false))))), Some(true));
    assert_eq!(verdict(&net, &at_end(e(x(at(2))))), Some(false));
    // EG (p0 ∨ p1 ∨ p2) holds along the one maximal path, which is finite.
    let any = Form::Or(vec![at(0), at(1), at(2)]);
    assert_eq!(verdict(&net, &e(glob(any.clone()))), Some(true));
    assert_eq!(verdict(&net, &a(glob(any))), Some(true));
    // AF p2: the only maximal path ends at p2. AF p1 too; AF (p0 ∧ p2) never.
    assert_eq!(verdict(&net, &a(fin(at(2)))), Some(true));
    assert_eq!(
        verdict(&net, &a(fin(Form::And(vec![at(0), at(2)])))),
        Some(false)
    );
    // EG ¬p2 needs an infinite path or a deadlock without p2: there is neither.
    let not_p2 = Form::Not(Box::new(at(2)));
    assert_eq!(verdict(&net, &e(glob(not_p2))), Some(false));
}

/// Under the other candidate rule (a deadlock repeats forever) `EX φ` at a deadlock is φ
/// there: the two rules differ exactly on `X` at deadlocks.
#[test]
fn stuttering_deadlocks_differ_only_on_next() {
    let net = line();
    let stutter = CtlOptions {
        deadlock: DeadlockRule::Stutter,
    };
    let run = |f: &ResolvedFormula| {
        ctl::check_with(&net, f, &stutter, None, &Limits::default())
            .unwrap()
            .verdict
    };
    let at_end = |f: ResolvedFormula| e(fin(Form::And(vec![at(2), f])));
    assert_eq!(run(&at_end(e(x(at(2))))), Some(true));
    assert_eq!(run(&at_end(a(x(Form::Bool(false))))), Some(false));
    let any = Form::Or(vec![at(0), at(1), at(2)]);
    assert_eq!(run(&e(glob(any))), Some(true));
    assert_eq!(run(&a(fin(at(2)))), Some(true));
}

/// Witnesses: a path for `EF`, a lasso for `EG`, a counterexample for `AG` and `AF`.
#[test]
fn traces_show_the_top_operator() {
    // A cycle p0 → p1 → p0 and an exit p1 → p2 (a deadlock).
    let net = net_of(
        &[1, 0, 0],
        &[
            vec![(0, 1, ArcKind::Input), (1, 1, ArcKind::Output)],
            vec![(1, 1, ArcKind::Input), (0, 1, ArcKind::Output)],
            vec![(1, 1, ArcKind::Input), (2, 1, ArcKind::Output)],
        ],
    );
    let out = ctl::check(&net, &e(fin(at(2))), &Limits::default()).unwrap();
    assert_eq!(out.verdict, Some(true));
    assert_eq!(
        out.trace,
        Some(Trace {
            prefix: vec![0, 2],
            cycle: vec![]
        })
    );
    let not_p2 = Form::Not(Box::new(at(2)));
    let out = ctl::check(&net, &e(glob(not_p2.clone())), &Limits::default()).unwrap();
    assert_eq!(out.verdict, Some(true));
    let tr = out.trace.expect("a lasso");
    assert_eq!((tr.prefix.len(), tr.cycle.len()), (0, 2));
    // AG ¬p2 fails: the path to p2. AF p2 fails: the lasso avoiding it.
    let out = ctl::check(&net, &a(glob(not_p2)), &Limits::default()).unwrap();
    assert_eq!(out.verdict, Some(false));
    assert_eq!(out.trace.map(|t| t.prefix), Some(vec![0, 2]));
    let out = ctl::check(&net, &a(fin(at(2))), &Limits::default()).unwrap();
    assert_eq!(out.verdict, Some(false));
    assert!(out.trace.is_some_and(|t| !t.cycle.is_empty()));
}

/// A limit gives no verdict: `AG ¬deadlock` on a counter that grows without bound is true,
/// but only every marking shows it.
#[test]
fn a_limit_gives_no_verdict() {
    let net = net_of(
        &[1, 0, 0],
        &[vec![(0, 1, ArcKind::Read), (1, 1, ArcKind::Output)]],
    );
    let f = a(glob(Form::Not(Box::new(Form::Deadlock))));
    let limits = Limits::new(Some(std::time::Duration::from_millis(200)), None);
    let out = ctl::check(&net, &f, &limits).unwrap();
    assert_eq!(out.verdict, None);
    assert!(out.stopped.is_some());
}

/// Not CTL: a temporal operator outside a quantifier, a Boolean combination of path formulas
/// under one.
#[test]
fn refuses_what_is_not_ctl() {
    let net = line();
    assert!(ctl::check(&net, &fin(at(0)), &Limits::default()).is_err());
    let both = e(Form::And(vec![fin(at(0)), glob(at(1))]));
    assert!(ctl::check(&net, &both, &Limits::default()).is_err());
    assert!(!ctl::is_ctl(&both) && ctl::is_ctl(&e(fin(at(0)))));
}
