//! The LTL engine against an oracle written apart from it: the textbook construction of
//! Vardi and Wolper (a state of the automaton is a truth assignment to the formula's `X` and
//! `U` subformulas, consistent with the marking), its product with the explicit state graph
//! built here (markings as vectors of counts, arcs read straight from the `Net`), and a fair
//! strongly connected component looked for by brute force. Counterexamples are replayed on
//! the net and the formula evaluated on the lasso position by position.
//!
//! The contest's rule for finite maximal paths, pinned by hand-made nets: a path that ends in
//! a deadlock is continued by repeating the deadlock forever (so `X φ` at a deadlock is `φ`
//! there); `SEMANTICS.md` has the evidence from the contest's answers.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use proptest::prelude::*;
use unfold::check::ltl::{self, Deadlocks, Lasso, LassoShape, LtlOptions};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx, TransIdx};
use unfold::property::syntax::ResolvedFormula;
use unfold::property::{Ask, Cmp, Form, IntExpr, Names, parse_formula};

// ---------------------------------------------------------------------------------------------
// The explicit graph.

/// The marking after firing `t` at `m`, or `None` when `t` is not enabled (a token short on
/// an input or read place).
fn step(net: &Net, m: &[u64], t: usize) -> Option<Vec<u64>> {
    let tr = &net.transitions[t];
    let mut next = m.to_vec();
    for a in &tr.reads {
        (next[a.place as usize] >= a.weight as u64).then_some(())?;
    }
    for a in &tr.pre {
        let left = next[a.place as usize].checked_sub(a.weight as u64)?;
        next[a.place as usize] = left;
    }
    for a in &tr.post {
        next[a.place as usize] += a.weight as u64;
    }
    Some(next)
}

fn enabled(net: &Net, m: &[u64], t: usize) -> bool {
    step(net, m, t).is_some()
}

/// Reachable markings and their successors (a deadlock: itself).
struct Graph {
    states: Vec<Vec<u64>>,
    succ: Vec<Vec<usize>>,
}

fn graph(net: &Net, cap: usize) -> Option<Graph> {
    let m0: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut index = HashMap::from([(m0.clone(), 0usize)]);
    let mut states = vec![m0];
    let mut succ = Vec::new();
    let mut k = 0;
    while k < states.len() {
        let m = states[k].clone();
        let mut out = Vec::new();
        for t in 0..net.transitions.len() {
            if let Some(n) = step(net, &m, t) {
                let next = states.len();
                let id = *index.entry(n.clone()).or_insert(next);
                if id == next {
                    if states.len() >= cap {
                        return None;
                    }
                    states.push(n);
                }
                out.push(id);
            }
        }
        if out.is_empty() {
            out.push(k);
        }
        succ.push(out);
        k += 1;
    }
    Some(Graph { states, succ })
}

// ---------------------------------------------------------------------------------------------
// The oracle's formulas and their evaluation.

/// A path formula of the oracle: `F a` is `true U a`, `G a` is `¬(true U ¬a)`.
#[derive(Clone, Debug, PartialEq)]
enum O {
    True,
    Atom(usize),
    Not(Box<O>),
    And(Vec<O>),
    Or(Vec<O>),
    X(Box<O>),
    U(Box<O>, Box<O>),
}

/// The oracle's reading of a path formula, its state subformulas collected in `atoms`.
fn oracle_formula(f: &ResolvedFormula, atoms: &mut Vec<ResolvedFormula>) -> O {
    if f.is_state() {
        atoms.push(f.clone());
        return O::Atom(atoms.len() - 1);
    }
    let mut b = |g: &ResolvedFormula| Box::new(oracle_formula(g, atoms));
    match f {
        Form::Not(g) => O::Not(b(g)),
        Form::And(gs) => O::And(gs.iter().map(|g| oracle_formula(g, atoms)).collect()),
        Form::Or(gs) => O::Or(gs.iter().map(|g| oracle_formula(g, atoms)).collect()),
        Form::Next(g) => O::X(b(g)),
        Form::Finally(g) => O::U(Box::new(O::True), b(g)),
        Form::Globally(g) => O::Not(Box::new(O::U(Box::new(O::True), Box::new(O::Not(b(g)))))),
        Form::Until(g, h) => O::U(b(g), b(h)),
        _ => panic!("not an LTL path formula: {f:?}"),
    }
}

/// Whether state formula `f` holds at marking `m` (by the contest's definitions).
fn state_holds(net: &Net, f: &ResolvedFormula, m: &[u64]) -> bool {
    let int = |e: &IntExpr<PlaceIdx>| -> u64 {
        fn v(e: &IntExpr<PlaceIdx>, m: &[u64]) -> u64 {
            match e {
                IntExpr::Const(k) => *k,
                IntExpr::Tokens(ps) => ps.iter().map(|&p| m[p as usize]).sum(),
                IntExpr::Sum(es) => es.iter().map(|e| v(e, m)).sum(),
            }
        }
        v(e, m)
    };
    match f {
        Form::Bool(b) => *b,
        Form::Deadlock => (0..net.transitions.len()).all(|t| !enabled(net, m, t)),
        Form::Fireable(ts) => ts.iter().any(|&t| enabled(net, m, t as usize)),
        Form::Compare(a, c, b) => c.holds(int(a), int(b)),
        Form::Not(g) => !state_holds(net, g, m),
        Form::And(gs) => gs.iter().all(|g| state_holds(net, g, m)),
        Form::Or(gs) => gs.iter().any(|g| state_holds(net, g, m)),
        _ => panic!("not a state formula"),
    }
}

/// The temporal subformulas (`X`, `U`) of `f`, each once.
fn elementary(f: &O, out: &mut Vec<O>) {
    match f {
        O::True | O::Atom(_) => {}
        O::Not(g) => elementary(g, out),
        O::And(gs) | O::Or(gs) => gs.iter().for_each(|g| elementary(g, out)),
        O::X(g) => {
            elementary(g, out);
            if !out.contains(f) {
                out.push(f.clone());
            }
        }
        O::U(a, b) => {
            elementary(a, out);
            elementary(b, out);
            if !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
}

/// The value of `f` given the atoms' values and the assignment to the elementary formulas.
fn value(f: &O, atoms: &[bool], elem: &[O], assign: u32) -> bool {
    match f {
        O::True => true,
        O::Atom(i) => atoms[*i],
        O::Not(g) => !value(g, atoms, elem, assign),
        O::And(gs) => gs.iter().all(|g| value(g, atoms, elem, assign)),
        O::Or(gs) => gs.iter().any(|g| value(g, atoms, elem, assign)),
        O::X(_) | O::U(..) => {
            let k = elem.iter().position(|e| e == f).expect("elementary");
            assign >> k & 1 == 1
        }
    }
}

/// Whether some infinite path of `g` (deadlocks repeating) satisfies `f`: the Vardi–Wolper
/// product, its reachable part, and a nontrivial strongly connected component meeting every
/// `U`'s fairness set.
fn oracle_exists(g: &Graph, atom_values: &[Vec<bool>], f: &O) -> Option<bool> {
    let mut elem = Vec::new();
    elementary(f, &mut elem);
    let k = elem.len();
    if k > 8 {
        return None;
    }
    let consistent = |s: usize, a: u32| {
        elem.iter().enumerate().all(|(i, e)| match e {
            O::U(x, y) => {
                let bit = a >> i & 1 == 1;
                let (vx, vy) = (
                    value(x, &atom_values[s], &elem, a),
                    value(y, &atom_values[s], &elem, a),
                );
                (!vy || bit) && (vx || vy || !bit)
            }
            _ => true,
        })
    };
    let step = |s: usize, a: u32, t: usize, b: u32| {
        elem.iter().enumerate().all(|(i, e)| {
            let bit = a >> i & 1 == 1;
            match e {
                O::X(x) => bit == value(x, &atom_values[t], &elem, b),
                O::U(x, y) => {
                    bit == (value(y, &atom_values[s], &elem, a)
                        || (value(x, &atom_values[s], &elem, a) && b >> i & 1 == 1))
                }
                _ => true,
            }
        })
    };
    let n = g.states.len() << k;
    let id = |s: usize, a: u32| (s << k) | a as usize;
    // Reachable product states.
    let mut reach = vec![false; n];
    let mut queue = VecDeque::new();
    for a in 0..1u32 << k {
        if consistent(0, a) && value(f, &atom_values[0], &elem, a) {
            reach[id(0, a)] = true;
            queue.push_back((0, a));
        }
    }
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    while let Some((s, a)) = queue.pop_front() {
        for &t in &g.succ[s] {
            for b in 0..1u32 << k {
                if consistent(t, b) && step(s, a, t, b) {
                    edges[id(s, a)].push(id(t, b));
                    if !reach[id(t, b)] {
                        reach[id(t, b)] = true;
                        queue.push_back((t, b));
                    }
                }
            }
        }
    }
    if reach.iter().filter(|&&r| r).count() > 1500 {
        return None;
    }
    // Reachability closure from every state (tiny graphs).
    let reaches = |from: usize| {
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = edges[from].clone();
        while let Some(x) = stack.pop() {
            if !seen[x] {
                seen[x] = true;
                stack.extend(&edges[x]);
            }
        }
        seen
    };
    let closure: Vec<Vec<bool>> = (0..n)
        .map(|x| if reach[x] { reaches(x) } else { Vec::new() })
        .collect();
    let fair = |x: usize, i: usize| {
        let (s, a) = (x >> k, (x & ((1 << k) - 1)) as u32);
        match &elem[i] {
            O::U(_, y) => a >> i & 1 == 0 || value(y, &atom_values[s], &elem, a),
            _ => true,
        }
    };
    let found = (0..n).filter(|&x| reach[x] && closure[x][x]).any(|x| {
        // The component of x: states y with x →+ y →+ x.
        (0..elem.len()).all(|i| (0..n).any(|y| closure[x][y] && closure[y][x] && fair(y, i)))
    });
    Some(found)
}

/// Evaluates `f` at position 0 of the lasso of `states` whose last position goes back to
/// `back`.
fn lasso_holds(f: &O, atoms: &[Vec<bool>], back: usize) -> bool {
    let len = atoms.len();
    let succ = |i: usize| if i + 1 < len { i + 1 } else { back };
    fn all(f: &O, atoms: &[Vec<bool>], succ: &dyn Fn(usize) -> usize) -> Vec<bool> {
        let len = atoms.len();
        match f {
            O::True => vec![true; len],
            O::Atom(a) => atoms.iter().map(|v| v[*a]).collect(),
            O::Not(g) => all(g, atoms, succ).into_iter().map(|b| !b).collect(),
            O::And(gs) | O::Or(gs) => {
                let vs: Vec<Vec<bool>> = gs.iter().map(|g| all(g, atoms, succ)).collect();
                (0..len)
                    .map(|i| {
                        if matches!(f, O::And(_)) {
                            vs.iter().all(|v| v[i])
                        } else {
                            vs.iter().any(|v| v[i])
                        }
                    })
                    .collect()
            }
            O::X(g) => {
                let v = all(g, atoms, succ);
                (0..len).map(|i| v[succ(i)]).collect()
            }
            O::U(a, b) => {
                let (va, vb) = (all(a, atoms, succ), all(b, atoms, succ));
                let mut u = vec![false; len];
                for _ in 0..=2 * len {
                    for i in (0..len).rev() {
                        u[i] = vb[i] || (va[i] && u[succ(i)]);
                    }
                }
                u
            }
        }
    }
    all(f, atoms, &succ)[0]
}

/// The markings along a lasso replayed on the net (`None`: a transition not enabled, a cycle
/// that does not close, or an empty cycle not at a deadlock), and where the cycle starts.
fn replay(net: &Net, lasso: &Lasso) -> Option<(Vec<Vec<u64>>, usize)> {
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut states = vec![m.clone()];
    for &t in &lasso.prefix {
        m = step(net, &m, t as usize)?;
        states.push(m.clone());
    }
    let back = states.len() - 1;
    if lasso.cycle.is_empty() {
        return (0..net.transitions.len())
            .all(|t| !enabled(net, &m, t))
            .then_some((states, back));
    }
    let start = m.clone();
    for &t in &lasso.cycle {
        m = step(net, &m, t as usize)?;
        states.push(m.clone());
    }
    // The last position is the cycle's start again: drop it and loop back.
    states.pop();
    (m == start).then_some((states, back))
}

// ---------------------------------------------------------------------------------------------
// Random nets and formulas.

type Arcs = Vec<(usize, usize)>;

/// A net of `initial.len()` places; each transition moves one token from its first input
/// place to its output (so the state space stays small), sometimes reading or taking a
/// second token, sometimes dropping its output (deadlocks).
fn build(initial: &[u32], transitions: &[(Arcs, Option<usize>)]) -> Net {
    let mut b = NetBuilder::new("random");
    let n = initial.len();
    let places: Vec<PlaceIdx> = initial
        .iter()
        .enumerate()
        .map(|(i, &k)| b.add_place(format!("p{i}"), None, k).unwrap())
        .collect();
    for (i, (pre, post)) in transitions.iter().enumerate() {
        let t = b.add_transition(format!("t{i}"), None).unwrap();
        let mut used = Vec::new();
        for (j, &(p, kind)) in pre.iter().enumerate() {
            let p = p % n;
            if used.contains(&p) {
                continue;
            }
            used.push(p);
            let kind = if j > 0 && kind == 1 {
                ArcKind::Read
            } else {
                ArcKind::Input
            };
            b.add_arc(places[p], t, kind, 1).unwrap();
        }
        if let Some(q) = post {
            b.add_arc(places[q % n], t, ArcKind::Output, 1).unwrap();
        }
    }
    b.finish()
}

fn arb_net() -> impl Strategy<Value = Net> {
    let transition = (
        prop::collection::vec((0usize..5, 0usize..2), 1..3),
        prop::option::weighted(0.85, 0usize..5),
    );
    (
        prop::collection::vec(prop::sample::select(vec![0u32, 0, 1, 1, 2]), 2..5),
        prop::collection::vec(transition, 2..6),
    )
        .prop_map(|(initial, transitions)| build(&initial, &transitions))
}

/// A net of [`arb_net`] with one more transition, somewhere among the others, that has no
/// arcs at all: always enabled, it changes nothing (every marking has a self-loop), and it
/// is invisible to every atom but its own `fireable`.
fn arb_net_with_idle() -> impl Strategy<Value = Net> {
    let transition = (
        prop::collection::vec((0usize..5, 0usize..2), 1..3),
        prop::option::weighted(0.85, 0usize..5),
    );
    (
        prop::collection::vec(prop::sample::select(vec![0u32, 0, 1, 1, 2]), 2..5),
        prop::collection::vec(transition, 1..5),
        0usize..5,
    )
        .prop_map(|(initial, mut transitions, at)| {
            transitions.insert(at % (transitions.len() + 1), (Vec::new(), None));
            build(&initial, &transitions)
        })
}

fn arb_atom() -> impl Strategy<Value = ResolvedFormula> {
    prop_oneof![
        (
            0u32..5,
            0u64..3,
            prop::sample::select(vec![Cmp::Ge, Cmp::Le, Cmp::Eq])
        )
            .prop_map(|(p, k, c)| Form::Compare(
                IntExpr::Tokens(vec![p]),
                c,
                IntExpr::Const(k)
            )),
        (0u32..6).prop_map(|t| Form::Fireable(vec![t])),
        Just(Form::Deadlock),
    ]
}

fn arb_path() -> impl Strategy<Value = ResolvedFormula> {
    arb_atom().prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| Form::Not(Box::new(f))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Form::And(vec![a, b])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Form::Or(vec![a, b])),
            inner.clone().prop_map(|f| Form::Next(Box::new(f))),
            inner.clone().prop_map(|f| Form::Finally(Box::new(f))),
            inner.clone().prop_map(|f| Form::Globally(Box::new(f))),
            (inner.clone(), inner).prop_map(|(a, b)| Form::Until(Box::new(a), Box::new(b))),
        ]
    })
}

/// Place and transition indices folded into the net's.
fn fit(f: &ResolvedFormula, net: &Net) -> ResolvedFormula {
    let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
    let fi = |e: &IntExpr<PlaceIdx>| match e {
        IntExpr::Tokens(ps) => IntExpr::Tokens(ps.iter().map(|p| p % np).collect()),
        other => other.clone(),
    };
    let b = |g: &ResolvedFormula| Box::new(fit(g, net));
    match f {
        Form::Compare(a, c, k) => Form::Compare(fi(a), *c, fi(k)),
        Form::Fireable(ts) => Form::Fireable(ts.iter().map(|t| t % nt).collect()),
        Form::Not(g) => Form::Not(b(g)),
        Form::And(gs) => Form::And(gs.iter().map(|g| fit(g, net)).collect()),
        Form::Or(gs) => Form::Or(gs.iter().map(|g| fit(g, net)).collect()),
        Form::Next(g) => Form::Next(b(g)),
        Form::Finally(g) => Form::Finally(b(g)),
        Form::Globally(g) => Form::Globally(b(g)),
        Form::Until(g, h) => Form::Until(b(g), b(h)),
        other => other.clone(),
    }
}

/// The oracle's answer to `A body` (or `E body`), with the atoms' values per state.
fn oracle(net: &Net, g: &Graph, body: &ResolvedFormula, existential: bool) -> Option<bool> {
    let mut atoms = Vec::new();
    let o = oracle_formula(body, &mut atoms);
    let values: Vec<Vec<bool>> = g
        .states
        .iter()
        .map(|m| atoms.iter().map(|a| state_holds(net, a, m)).collect())
        .collect();
    if existential {
        oracle_exists(g, &values, &o)
    } else {
        oracle_exists(g, &values, &O::Not(Box::new(o))).map(|e| !e)
    }
}

/// Checks the engine's outcome against the oracle; the lasso must replay and decide.
fn agree(net: &Net, body: &ResolvedFormula, existential: bool, stubborn: bool) {
    let Some(g) = graph(net, 40) else { return };
    let Some(want) = oracle(net, &g, body, existential) else {
        return;
    };
    let f = if existential {
        Form::Exists(Box::new(body.clone()))
    } else {
        Form::All(Box::new(body.clone()))
    };
    let limits = Limits::new(Some(Duration::from_secs(20)), None);
    // The lasso rebuilt short, and the one the search found: both replay and decide, and the
    // short one (its cycle exact on nets this small) is never longer.
    let mut lengths = Vec::new();
    for lasso_shape in [LassoShape::Shortest, LassoShape::AsFound] {
        let options = LtlOptions {
            stubborn,
            deadlocks: Deadlocks::Stutter,
            lasso: lasso_shape,
        };
        let out = ltl::check(net, &f, &limits, options).unwrap();
        assert_eq!(out.verdict, Some(want), "{f:?} on {net:?}");
        if let Some(lasso) = &out.counterexample {
            let (states, back) = replay(net, lasso).expect("the lasso replays");
            let mut atoms = Vec::new();
            let o = oracle_formula(body, &mut atoms);
            let values: Vec<Vec<bool>> = states
                .iter()
                .map(|m| atoms.iter().map(|a| state_holds(net, a, m)).collect())
                .collect();
            // A counterexample of `A φ` violates φ; a witness of `E φ` satisfies it.
            assert_eq!(lasso_holds(&o, &values, back), existential, "{lasso:?}");
            lengths.push(lasso.prefix.len() + lasso.cycle.len());
        } else {
            // A violation is decided by a lasso, or by the formula alone (its negation folds
            // to `true`: nothing explored, and every run is a counterexample).
            assert!(
                want != existential || out.states == 0,
                "a decided violation comes with its lasso"
            );
        }
    }
    if let [short, found] = lengths[..] {
        assert!(short <= found, "{short} > {found}: {f:?} on {net:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The engine, with and without stubborn sets, agrees with the oracle; every lasso
    /// replays and violates (or, for `E`, satisfies) the formula.
    #[test]
    fn ltl_agrees_with_the_oracle(
        net in arb_net(),
        body in arb_path(),
        existential in prop::bool::weighted(0.2),
    ) {
        let body = fit(&body, &net);
        agree(&net, &body, existential, false);
        agree(&net, &body, existential, true);
    }

    /// Formulas without next, where the stubborn sets reduce.
    #[test]
    fn stubborn_sets_keep_next_free_answers(
        net in arb_net(),
        a in arb_atom(),
        b in arb_atom(),
        shape in 0usize..4,
    ) {
        let (a, b) = (fit(&a, &net), fit(&b, &net));
        let body = ltl_x_shape(shape, a, b);
        agree(&net, &body, false, true);
    }

    /// Nets with a transition that has no arcs: every marking has a self-loop, which the
    /// stubborn sets must not keep the search spinning on.
    #[test]
    fn arc_less_transitions_are_decided(
        net in arb_net_with_idle(),
        body in arb_path(),
        existential in prop::bool::weighted(0.2),
    ) {
        let body = fit(&body, &net);
        agree(&net, &body, existential, false);
        agree(&net, &body, existential, true);
    }
}

// ---------------------------------------------------------------------------------------------
// The contest's reading of finite maximal paths, on hand-made nets.

/// `p0 → t → p1`, then a deadlock.
fn one_step() -> Net {
    let mut b = NetBuilder::new("one-step");
    let p0 = b.add_place("p0", None, 1).unwrap();
    let p1 = b.add_place("p1", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p0, t, ArcKind::Input, 1).unwrap();
    b.add_arc(p1, t, ArcKind::Output, 1).unwrap();
    b.finish()
}

fn verdict(net: &Net, text: &str, deadlocks: Deadlocks) -> Option<bool> {
    let q = parse_formula(text).unwrap();
    let r = Names::of(net).resolve(&q).unwrap();
    let Ask::Holds(f) = &r.ask else {
        panic!("a formula")
    };
    let limits = Limits::new(Some(Duration::from_secs(10)), None);
    let options = LtlOptions {
        stubborn: false,
        deadlocks,
        ..LtlOptions::default()
    };
    ltl::check(net, f, &limits, options).unwrap().verdict
}

/// The rule, as the contest's answers confirm it (`SEMANTICS.md`): "a maximal path that ends
/// in a deadlock is extended by repeating the deadlock forever", so `X φ` at a deadlock is `φ`
/// at the deadlock, and `G X true` holds. Finite-path LTL (a strong `X` false at the last
/// state) answers otherwise on these nets.
#[test]
fn deadlocks_repeat_forever() {
    let net = one_step();
    let stutter = |t: &str| verdict(&net, t, Deadlocks::Stutter);
    let finite = |t: &str| verdict(&net, t, Deadlocks::Finite);
    // p0, p1, p1, p1, …
    assert_eq!(stutter("A X X tokens(p1) == 1"), Some(true));
    assert_eq!(finite("A X X tokens(p1) == 1"), Some(false));
    assert_eq!(stutter("A G X true"), Some(true));
    assert_eq!(finite("A G X true"), Some(false));
    assert_eq!(stutter("A F G deadlock"), Some(true));
    assert_eq!(stutter("A X G tokens(p1) == 1"), Some(true));
    assert_eq!(stutter("A G (deadlock || X !deadlock)"), Some(false));
    // Without `X` both readings agree.
    for t in [
        "A F tokens(p1) == 1",
        "A G tokens(p0) == 1",
        "A (tokens(p0) == 1 U deadlock)",
    ] {
        assert_eq!(stutter(t), finite(t), "{t}");
    }
}

/// A net dead from the start: the one maximal path is the initial marking, repeated.
#[test]
fn an_initial_deadlock_is_a_path_of_its_own() {
    let mut b = NetBuilder::new("dead");
    let p = b.add_place("p", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p, t, ArcKind::Input, 1).unwrap();
    let net = b.finish();
    assert_eq!(
        verdict(&net, "A X deadlock", Deadlocks::Stutter),
        Some(true)
    );
    assert_eq!(
        verdict(&net, "A G F deadlock", Deadlocks::Stutter),
        Some(true)
    );
    assert_eq!(
        verdict(&net, "E X !deadlock", Deadlocks::Stutter),
        Some(false)
    );
    assert_eq!(
        verdict(&net, "A X deadlock", Deadlocks::Finite),
        Some(false)
    );
}

/// A transition without arcs is always enabled and changes nothing: the run that fires it
/// forever stays at the initial marking, so `A F tokens(p1) == 1` fails on `one_step` with
/// such a transition added, and `A G F fireable(t)` too (the run never fires `t`).
#[test]
fn an_arc_less_transition_loops_forever() {
    let mut b = NetBuilder::new("one-step-idle");
    let p0 = b.add_place("p0", None, 1).unwrap();
    let p1 = b.add_place("p1", None, 0).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(p0, t, ArcKind::Input, 1).unwrap();
    b.add_arc(p1, t, ArcKind::Output, 1).unwrap();
    b.add_transition("idle", None).unwrap();
    let net = b.finish();
    for deadlocks in [Deadlocks::Stutter, Deadlocks::Finite] {
        let v = |text: &str| verdict(&net, text, deadlocks);
        assert_eq!(v("A F tokens(p1) == 1"), Some(false));
        assert_eq!(v("A F tokens(p1) >= 1"), Some(false));
        assert_eq!(v("A G F fireable(t)"), Some(false));
        assert_eq!(v("E G tokens(p0) == 1"), Some(true));
        assert_eq!(v("A G !deadlock"), Some(true));
        assert_eq!(v("A F G fireable(idle)"), Some(true));
    }
}

/// An unbounded net whose first transition `grow` puts one more token on `g` each time, and
/// an arc-less `idle`: the run `idle` forever violates `A F tokens(a) == 0` at the initial
/// marking, while a search that tries `grow` first (as the transitions come) dives down the
/// markings without end; the steps that stay at the marking are tried first, so the lasso is
/// found at once (the search timed out before).
#[test]
fn a_self_loop_is_tried_before_an_unbounded_dive() {
    let mut b = NetBuilder::new("grow-idle");
    let a = b.add_place("a", None, 1).unwrap();
    let g = b.add_place("g", None, 0).unwrap();
    let grow = b.add_transition("grow", None).unwrap();
    b.add_arc(a, grow, ArcKind::Input, 1).unwrap();
    b.add_arc(a, grow, ArcKind::Output, 1).unwrap();
    b.add_arc(g, grow, ArcKind::Output, 1).unwrap();
    b.add_transition("idle", None).unwrap();
    let net = b.finish();
    for deadlocks in [Deadlocks::Stutter, Deadlocks::Finite] {
        assert_eq!(verdict(&net, "A F tokens(a) == 0", deadlocks), Some(false));
        assert_eq!(
            verdict(&net, "A G F tokens(g) >= 1", deadlocks),
            Some(false)
        );
        assert_eq!(verdict(&net, "E G tokens(g) == 0", deadlocks), Some(true));
    }
}

/// A counterexample is a lasso: a run, then a cycle through the accepting states.
#[test]
fn lassos_replay() {
    // Two places exchanging one token: p0 ⇄ p1; `A F G tokens(p0) == 1` fails on the cycle.
    let mut b = NetBuilder::new("ring");
    let p0 = b.add_place("p0", None, 1).unwrap();
    let p1 = b.add_place("p1", None, 0).unwrap();
    let a = b.add_transition("a", None).unwrap();
    let c = b.add_transition("c", None).unwrap();
    b.add_arc(p0, a, ArcKind::Input, 1).unwrap();
    b.add_arc(p1, a, ArcKind::Output, 1).unwrap();
    b.add_arc(p1, c, ArcKind::Input, 1).unwrap();
    b.add_arc(p0, c, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let body: ResolvedFormula = Form::Finally(Box::new(Form::Globally(Box::new(Form::Compare(
        IntExpr::Tokens(vec![0]),
        Cmp::Eq,
        IntExpr::Const(1),
    )))));
    let limits = Limits::new(None, None);
    let out = ltl::check(
        &net,
        &Form::All(Box::new(body)),
        &limits,
        LtlOptions::default(),
    )
    .unwrap();
    assert_eq!(out.verdict, Some(false));
    let lasso = out.counterexample.unwrap();
    assert!(!lasso.cycle.is_empty());
    let (states, _) = replay(&net, &lasso).unwrap();
    assert!(states.iter().any(|m| m[1] == 1));
    let _: &[TransIdx] = &lasso.prefix;
}

/// The lasso is rebuilt short: a net where the first transition the search tries leads to the
/// violation by a chain of `K` steps and the second in one step; the shortest lasso is the
/// one step and the self-loop (two transitions), the lasso as found goes down the chain.
#[test]
fn lassos_are_rebuilt_short() {
    const K: usize = 10;
    let mut b = NetBuilder::new("detour");
    let start = b.add_place("start", None, 1).unwrap();
    let chain: Vec<_> = (0..K)
        .map(|i| b.add_place(format!("c{i}"), None, 0).unwrap())
        .collect();
    let goal = b.add_place("goal", None, 0).unwrap();
    // The long way first: the search tries transitions in their order.
    let mut from = start;
    for (i, &c) in chain.iter().enumerate() {
        let t = b.add_transition(format!("long{i}"), None).unwrap();
        b.add_arc(from, t, ArcKind::Input, 1).unwrap();
        b.add_arc(c, t, ArcKind::Output, 1).unwrap();
        from = c;
    }
    let last = b.add_transition("enter", None).unwrap();
    b.add_arc(from, last, ArcKind::Input, 1).unwrap();
    b.add_arc(goal, last, ArcKind::Output, 1).unwrap();
    let short = b.add_transition("short", None).unwrap();
    b.add_arc(start, short, ArcKind::Input, 1).unwrap();
    b.add_arc(goal, short, ArcKind::Output, 1).unwrap();
    let spin = b.add_transition("spin", None).unwrap();
    b.add_arc(goal, spin, ArcKind::Input, 1).unwrap();
    b.add_arc(goal, spin, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    // `A G tokens(goal) == 0`: violated by every run that reaches `goal`.
    let f = Form::All(Box::new(Form::Globally(Box::new(Form::Compare(
        IntExpr::Tokens(vec![goal]),
        Cmp::Eq,
        IntExpr::Const(0),
    )))));
    let limits = Limits::new(None, None);
    let lasso = |lasso, stubborn| {
        let options = LtlOptions {
            lasso,
            stubborn,
            ..LtlOptions::default()
        };
        let out = ltl::check(&net, &f, &limits, options).unwrap();
        assert_eq!(out.verdict, Some(false));
        let l = out.counterexample.unwrap();
        replay(&net, &l).expect("the lasso replays");
        l
    };
    for stubborn in [false, true] {
        let found = lasso(LassoShape::AsFound, stubborn);
        assert!(found.prefix.len() > K, "{found:?}");
        let short = lasso(LassoShape::Shortest, stubborn);
        assert_eq!(short.prefix.len() + short.cycle.len(), 2, "{short:?}");
    }
}

/// One of four LTL-X shapes over atoms `a` and `b`: `G F a`, `F G a`, `a U b`, `G (a → F b)`
/// (`shape` modulo 4; shared with `ltl_unfolding`).
pub(crate) fn ltl_x_shape(shape: usize, a: ResolvedFormula, b: ResolvedFormula) -> ResolvedFormula {
    let bx = |f: ResolvedFormula| Box::new(f);
    match shape % 4 {
        0 => Form::Globally(bx(Form::Finally(bx(a)))),
        1 => Form::Finally(bx(Form::Globally(bx(a)))),
        2 => Form::Until(bx(a), bx(b)),
        _ => Form::Globally(bx(Form::Or(vec![Form::Not(bx(a)), Form::Finally(bx(b))]))),
    }
}
