//! LTL-X on the net unfolding (`check::ltl::unfolding`) against the explicit LTL checker,
//! with and without stubborn sets, on random safe nets (one-token state machines sharing a
//! lock) and random formulas without next; every counterexample is replayed on the net by
//! the firing rule and the formula evaluated on the lasso, position by position, by an
//! evaluator written here. Where the engine refuses a net as not safe, the net must have a
//! reachable marking with two tokens on a place.

use crate::common;

use std::time::Duration;

use proptest::prelude::*;
use unfold::check::ltl::unfolding;
use unfold::check::ltl::{self, Deadlocks, Lasso, LtlOptions, LtlQuestion};
use unfold::explore::limits::Limits;
use unfold::model::net::{ArcKind, Net, NetBuilder, PlaceIdx};
use unfold::property::syntax::ResolvedFormula;
use unfold::property::{Cmp, Form, IntExpr};

/// The markings along the lasso (the cycle's return left out) and where the cycle starts;
/// `None` when a transition is not enabled, the cycle does not close, or an empty cycle
/// does not end at a deadlock.
fn replay(net: &Net, lasso: &Lasso) -> Option<(Vec<Vec<u64>>, usize)> {
    let mut m: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
    let mut states = vec![m.clone()];
    for &t in &lasso.prefix {
        if !common::enabled(net, &m, t) {
            return None;
        }
        m = common::fire(net, &m, t);
        states.push(m.clone());
    }
    let back = states.len() - 1;
    if lasso.cycle.is_empty() {
        let dead = (0..net.transitions.len() as u32).all(|t| !common::enabled(net, &m, t));
        return dead.then_some((states, back));
    }
    let start = m.clone();
    for &t in &lasso.cycle {
        if !common::enabled(net, &m, t) {
            return None;
        }
        m = common::fire(net, &m, t);
        states.push(m.clone());
    }
    states.pop();
    (m == start).then_some((states, back))
}

fn sum(e: &IntExpr<PlaceIdx>, m: &[u64]) -> u64 {
    match e {
        IntExpr::Const(k) => *k,
        IntExpr::Tokens(ps) => ps.iter().map(|&p| m[p as usize]).sum(),
        IntExpr::Sum(es) => es.iter().map(|e| sum(e, m)).sum(),
    }
}

/// The value of path formula `f` at every position of the lasso of `states` whose last
/// position is followed by `back`.
fn values(net: &Net, f: &ResolvedFormula, states: &[Vec<u64>], back: usize) -> Vec<bool> {
    let len = states.len();
    let succ = |i: usize| if i + 1 < len { i + 1 } else { back };
    let map = |v: Vec<bool>, g: &dyn Fn(bool) -> bool| v.into_iter().map(g).collect::<Vec<_>>();
    match f {
        Form::Bool(b) => vec![*b; len],
        Form::Deadlock => states
            .iter()
            .map(|m| (0..net.transitions.len() as u32).all(|t| !common::enabled(net, m, t)))
            .collect(),
        Form::Fireable(ts) => states
            .iter()
            .map(|m| ts.iter().any(|&t| common::enabled(net, m, t)))
            .collect(),
        Form::Compare(a, c, b) => states
            .iter()
            .map(|m| c.holds(sum(a, m), sum(b, m)))
            .collect(),
        Form::Not(g) => map(values(net, g, states, back), &|b| !b),
        Form::And(gs) | Form::Or(gs) => {
            let vs: Vec<Vec<bool>> = gs.iter().map(|g| values(net, g, states, back)).collect();
            let and = matches!(f, Form::And(_));
            (0..len)
                .map(|i| {
                    if and {
                        vs.iter().all(|v| v[i])
                    } else {
                        vs.iter().any(|v| v[i])
                    }
                })
                .collect()
        }
        Form::Next(g) => {
            let v = values(net, g, states, back);
            (0..len).map(|i| v[succ(i)]).collect()
        }
        Form::Finally(g) => values(
            net,
            &Form::Until(Box::new(Form::Bool(true)), g.clone()),
            states,
            back,
        ),
        Form::Globally(g) => {
            let fg = Form::Finally(Box::new(Form::Not(g.clone())));
            map(values(net, &fg, states, back), &|b| !b)
        }
        Form::Until(a, b) => {
            let (va, vb) = (values(net, a, states, back), values(net, b, states, back));
            let mut u = vec![false; len];
            // A least fixed point over the lasso: `2 len` sweeps reach it.
            for _ in 0..=2 * len {
                for i in (0..len).rev() {
                    u[i] = vb[i] || (va[i] && u[succ(i)]);
                }
            }
            u
        }
        Form::Exists(_) | Form::All(_) => panic!("a path formula has no quantifier"),
    }
}

/// Whether some reachable marking has two tokens on a place: more markings than a safe net
/// of its places can have, or one of them with two tokens somewhere.
fn unsafe_net(net: &Net) -> bool {
    match common::markings(net, 1 << net.places.len()) {
        None => true,
        Some(all) => all.iter().any(|m| m.iter().any(|&k| k > 1)),
    }
}

/// The unfolding's answer to `A body` (or `E body`) against the explicit checker's.
fn agree(net: &Net, body: &ResolvedFormula, existential: bool) -> Option<bool> {
    let f = if existential {
        Form::Exists(Box::new(body.clone()))
    } else {
        Form::All(Box::new(body.clone()))
    };
    let limits = Limits::new(Some(Duration::from_secs(20)), None);
    let q = LtlQuestion::of(&f, Deadlocks::Stutter).unwrap();
    let (out, _) = unfolding::check_question(net, &q, &limits, Deadlocks::Stutter);
    if std::env::var_os("LTLX_TRACE").is_some() {
        eprintln!("TRACE {:?} {:?}", out.verdict, out.unsupported);
    }
    let Some(verdict) = out.verdict else {
        let why = out
            .unsupported
            .expect("no limit is reached on nets this small");
        if why.contains("not safe") {
            assert!(unsafe_net(net), "refused as unsafe: {net:?}");
        } else {
            assert!(why.contains("next"), "refused for {why}: {f:?}");
        }
        return None;
    };
    for stubborn in [false, true] {
        let options = LtlOptions {
            stubborn,
            ..LtlOptions::default()
        };
        let want = ltl::check(net, &f, &limits, options).unwrap().verdict;
        assert_eq!(Some(verdict), want, "stubborn {stubborn}: {f:?} on {net:?}");
    }
    match &out.counterexample {
        Some(lasso) => {
            let (states, back) = replay(net, lasso).expect("the lasso replays");
            // A counterexample of `A φ` violates φ; a witness of `E φ` satisfies it.
            assert_eq!(
                values(net, body, &states, back)[0],
                existential,
                "{lasso:?} for {f:?} on {net:?}"
            );
        }
        None => assert_eq!(
            verdict, !existential,
            "a violation found comes with its lasso"
        ),
    }
    Some(verdict)
}

fn arb_atom(places: u32, transitions: u32) -> impl Strategy<Value = ResolvedFormula> {
    prop_oneof![
        4 => (0..places, 0u64..2, prop::sample::select(vec![Cmp::Ge, Cmp::Le, Cmp::Eq]))
            .prop_map(|(p, k, c)| Form::Compare(IntExpr::Tokens(vec![p]), c, IntExpr::Const(k))),
        3 => (0..transitions).prop_map(|t| Form::Fireable(vec![t])),
        1 => Just(Form::Deadlock),
    ]
}

/// Path formulas without next, nested up to three deep.
fn arb_path(places: u32, transitions: u32) -> impl Strategy<Value = ResolvedFormula> {
    let b = |f: ResolvedFormula| Box::new(f);
    arb_atom(places, transitions).prop_recursive(3, 10, 2, move |inner| {
        prop_oneof![
            inner.clone().prop_map(move |f| Form::Not(b(f))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Form::And(vec![x, y])),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Form::Or(vec![x, y])),
            inner.clone().prop_map(move |f| Form::Finally(b(f))),
            inner.clone().prop_map(move |f| Form::Globally(b(f))),
            (inner.clone(), inner).prop_map(move |(x, y)| Form::Until(b(x), b(y))),
        ]
    })
}

/// A random net of `k` machines of three states and a lock, as `common::machines_net`
/// makes them: safe unless a transition gives the lock back while it is free.
fn arb_machines() -> impl Strategy<Value = Net> {
    let step = (
        prop::collection::vec((0usize..3, 0usize..3, 0usize..3), 1..3),
        prop::option::weighted(0.2, (0usize..3, 0usize..3)),
        prop::sample::select(vec![0u8, 1, 2, 2, 2]),
    );
    // A transition without arcs (every move of it left out) is kept out: on the unbounded
    // nets among these, the explicit checker can still give no verdict where the unfolding
    // gives one (a lasso deeper than a stutter), so there would be nothing to compare with.
    (2usize..4, prop::collection::vec(step, 2..7))
        .prop_map(|(k, steps)| common::machines_net(k, 3, steps))
        .prop_filter("a transition without arcs", |net| {
            net.transitions
                .iter()
                .all(|t| !(t.pre.is_empty() && t.post.is_empty()))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(300), ..ProptestConfig::default() })]

    /// Agreement with the explicit checker whenever the unfolding answers.
    #[test]
    fn unfolding_agrees_with_the_explicit_checker(
        (net, body) in arb_machines().prop_flat_map(|net| {
            let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
            (Just(net), arb_path(np, nt))
        }),
        existential in prop::bool::weighted(0.2),
    ) {
        agree(&net, &body, existential);
    }

    /// The shapes of the contest's formulas: `G F a`, `F G a`, `a U b`, `G (a → F b)`.
    #[test]
    fn unfolding_agrees_on_response_shapes(
        (net, a, b) in arb_machines().prop_flat_map(|net| {
            let (np, nt) = (net.places.len() as u32, net.transitions.len() as u32);
            (Just(net), arb_atom(np, nt), arb_atom(np, nt))
        }),
        shape in 0usize..4,
    ) {
        let body = crate::check_ltl::ltl_x_shape(shape, a, b);
        agree(&net, &body, false);
    }
}

/// Two concurrent loops `a` (visible: it moves the token of `p`) and `b` (invisible):
/// `p` forever toggling is accepted, and `F G (p = 0)` fails through the livelock of `b`
/// with `p` empty only if the run can park there; here `a` is always enabled again, so the
/// run that stops firing `a` is the livelock of `b` with `p` at 0 or 1.
fn two_loops() -> Net {
    let mut b = NetBuilder::new("two loops");
    let p = b.add_place("p", None, 1).unwrap();
    let q = b.add_place("q", None, 0).unwrap();
    let r = b.add_place("r", None, 1).unwrap();
    let s = b.add_place("s", None, 0).unwrap();
    for (name, from, to) in [("a", p, q), ("a2", q, p), ("b", r, s), ("b2", s, r)] {
        let t = b.add_transition(name, None).unwrap();
        b.add_arc(from, t, ArcKind::Input, 1).unwrap();
        b.add_arc(to, t, ArcKind::Output, 1).unwrap();
    }
    b.finish()
}

#[test]
fn livelocks_of_invisible_transitions_are_runs() {
    let net = two_loops();
    let p = || IntExpr::Tokens(vec![0]);
    let bx = |f: ResolvedFormula| Box::new(f);
    let p_is = |k| Form::Compare(p(), Cmp::Eq, IntExpr::Const(k));
    // `G F (p = 0)` fails: the run that stays with `p = 1` while `b` loops.
    assert_eq!(
        agree(&net, &Form::Globally(bx(Form::Finally(bx(p_is(0))))), false),
        Some(false)
    );
    // `G (p = 1 → F p = 0)` fails the same way; `G (p ≤ 1)` holds.
    let response = Form::Globally(bx(Form::Or(vec![
        Form::Not(bx(p_is(1))),
        Form::Finally(bx(p_is(0))),
    ])));
    assert_eq!(agree(&net, &response, false), Some(false));
    let bounded = Form::Globally(bx(Form::Compare(p(), Cmp::Le, IntExpr::Const(1))));
    assert_eq!(agree(&net, &bounded, false), Some(true));
}

#[test]
fn deadlocks_behind_invisible_transitions_repeat_forever() {
    // `p → a → q` (visible for `q`), and `r → b → s` (invisible), then nothing is enabled.
    let mut b = NetBuilder::new("deadlock");
    let places: Vec<PlaceIdx> = ["p", "q", "r", "s"]
        .iter()
        .map(|n| {
            b.add_place(*n, None, u32::from(*n == "p" || *n == "r"))
                .unwrap()
        })
        .collect();
    for (name, from, to) in [("a", 0, 1), ("b", 2, 3)] {
        let t = b.add_transition(name, None).unwrap();
        b.add_arc(places[from], t, ArcKind::Input, 1).unwrap();
        b.add_arc(places[to], t, ArcKind::Output, 1).unwrap();
    }
    let net = b.finish();
    let q_is = |k| Form::Compare(IntExpr::Tokens(vec![1]), Cmp::Eq, IntExpr::Const(k));
    let bx = |f: ResolvedFormula| Box::new(f);
    // Every maximal run ends in the deadlock with `q` marked: `F G q = 1` holds.
    assert_eq!(
        agree(&net, &Form::Finally(bx(Form::Globally(bx(q_is(1))))), false),
        Some(true)
    );
    // `G F q = 0` fails at that deadlock, repeated forever.
    assert_eq!(
        agree(&net, &Form::Globally(bx(Form::Finally(bx(q_is(0))))), false),
        Some(false)
    );
}

#[test]
fn next_and_unsafe_nets_are_refused() {
    let net = two_loops();
    let next = Form::All(Box::new(Form::Next(Box::new(Form::Deadlock))));
    let q = LtlQuestion::of(&next, Deadlocks::Stutter).unwrap();
    let limits = Limits::new(Some(Duration::from_secs(5)), None);
    let (out, _) = unfolding::check_question(&net, &q, &limits, Deadlocks::Stutter);
    assert_eq!(out.verdict, None);
    assert!(out.unsupported.unwrap().contains("next"));
    // `t` puts a second token on `p`.
    let mut b = NetBuilder::new("unsafe");
    let p = b.add_place("p", None, 1).unwrap();
    let r = b.add_place("r", None, 1).unwrap();
    let t = b.add_transition("t", None).unwrap();
    b.add_arc(r, t, ArcKind::Input, 1).unwrap();
    b.add_arc(p, t, ArcKind::Output, 1).unwrap();
    let net = b.finish();
    let f = Form::All(Box::new(Form::Globally(Box::new(Form::Compare(
        IntExpr::Tokens(vec![p]),
        Cmp::Le,
        IntExpr::Const(1),
    )))));
    let q = LtlQuestion::of(&f, Deadlocks::Stutter).unwrap();
    let (out, _) = unfolding::check_question(&net, &q, &limits, Deadlocks::Stutter);
    assert_eq!(out.verdict, None);
    assert!(out.unsupported.unwrap().contains("not safe"));
}

// ---------------------------------------------------------------------------------------------
// The contest's instances and the PEP nets: both engines, the same limits, one run.

/// One formula decided (or not) by both engines.
struct Row {
    id: String,
    unfolding: (Option<bool>, Duration, String),
    explicit: (Option<bool>, Duration),
    known: Option<bool>,
}

/// Both engines on `f` within `secs` each: the unfolding, then the explicit product with
/// stubborn sets (the LTL engine's default).
fn both(net: &Net, id: String, f: &ResolvedFormula, secs: u64, known: Option<bool>) -> Row {
    let q = LtlQuestion::of(f, Deadlocks::Stutter).unwrap();
    let limits = Limits::new(Some(Duration::from_secs(secs)), None);
    let start = std::time::Instant::now();
    let (u, counts) = unfolding::check_question(net, &q, &limits, Deadlocks::Stutter);
    let tu = start.elapsed();
    let note = match (&u.stopped, &u.unsupported) {
        (Some(r), _) => format!("{r}"),
        (None, Some(why)) => why.clone(),
        (None, None) => format!("{} nodes, {} events", counts.nodes, counts.events),
    };
    // Outside the unfolding's scope (next, nets not safe) the explicit checker is not run:
    // there is nothing to compare.
    let outside = u.verdict.is_none() && u.stopped.is_none();
    let limits = Limits::new(Some(Duration::from_secs(secs)), None);
    let start = std::time::Instant::now();
    let e = if outside {
        None
    } else {
        ltl::check_question(net, &q, &limits, LtlOptions::default())
            .map(|o| o.verdict)
            .unwrap_or(None)
    };
    let row = Row {
        id,
        unfolding: (u.verdict, tu, note),
        explicit: (e, start.elapsed()),
        known,
    };
    if std::env::var_os("LTLX_SECS").is_some() {
        println!("{}", line(&row));
    }
    row
}

fn line(r: &Row) -> String {
    format!(
        "{}\tunfolding {:?} {:.3}s ({})\texplicit+stubborn {:?} {:.3}s\tknown {:?}",
        r.id,
        r.unfolding.0,
        r.unfolding.1.as_secs_f64(),
        r.unfolding.2,
        r.explicit.0,
        r.explicit.1.as_secs_f64(),
        r.known
    )
}

/// The LTL formulas of the P/T instances of ../shared/mcc, with the contest's answers.
fn mcc_rows(only: Option<&[&str]>, secs: u64) -> Vec<Row> {
    use unfold::property::{Ask, Names, parse_xml};
    let mcc = common::shared_mcc();
    let table = std::fs::read_to_string(mcc.join("oracle.tsv")).expect("../shared/mcc/oracle.tsv");
    let truth: std::collections::BTreeMap<&str, bool> = table
        .lines()
        .filter_map(|row| match row.split('\t').collect::<Vec<_>>()[..] {
            [_, exam, id, answer] if exam.starts_with("LTL") && answer != "?" => {
                Some((id, answer == "TRUE"))
            }
            _ => None,
        })
        .collect();
    let mut folders: Vec<_> = std::fs::read_dir(&mcc)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("iscolored").is_file())
        .collect();
    folders.sort();
    let mut rows = Vec::new();
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        if only.is_some_and(|o| !o.contains(&name.as_str())) {
            continue;
        }
        let coloured = std::fs::read_to_string(folder.join("iscolored")).unwrap();
        if coloured.trim() != "FALSE" {
            continue;
        }
        let (net, _) = unfold::formats::read_net(&folder.join("model.pnml")).unwrap();
        for exam in ["LTLCardinality", "LTLFireability"] {
            let xml = std::fs::read_to_string(folder.join(format!("{exam}.xml"))).unwrap();
            for query in parse_xml(&xml).unwrap() {
                let resolved = Names::of(&net).resolve(&query).unwrap();
                let Ask::Holds(f) = &resolved.ask else {
                    panic!("{} is a formula", query.id)
                };
                let known = truth.get(query.id.as_str()).copied();
                rows.push(both(&net, query.id.clone(), f, secs, known));
            }
        }
    }
    rows
}

/// Formulas of the contest's shapes over a net's places and transitions, drawn by a fixed
/// linear congruential sequence (the same formulas every run).
fn generated(net: &Net, count: usize) -> Vec<ResolvedFormula> {
    let mut seed = 0x2545_f491_4f6c_dd1du64 ^ net.places.len() as u64;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n.max(1)
    };
    let (np, nt) = (net.places.len(), net.transitions.len());
    let mut atom = move || -> ResolvedFormula {
        if next(2) == 0 {
            Form::Fireable(vec![next(nt) as u32])
        } else {
            let k = next(2) as u64;
            Form::Compare(
                IntExpr::Tokens(vec![next(np) as u32]),
                Cmp::Eq,
                IntExpr::Const(k),
            )
        }
    };
    let bx = |f: ResolvedFormula| Box::new(f);
    (0..count)
        .map(|i| {
            let (a, b) = (atom(), atom());
            let body = match i % 8 {
                0 => Form::Globally(bx(Form::Finally(bx(a)))),
                1 => Form::Finally(bx(Form::Globally(bx(a)))),
                2 => Form::Globally(bx(Form::Or(vec![Form::Not(bx(a)), Form::Finally(bx(b))]))),
                3 => Form::Until(bx(a), bx(b)),
                4 => Form::Globally(bx(a)),
                5 => Form::Finally(bx(a)),
                6 => Form::Or(vec![
                    Form::Globally(bx(Form::Finally(bx(a)))),
                    Form::Finally(bx(Form::Globally(bx(b)))),
                ]),
                _ => Form::Finally(bx(Form::And(vec![a, Form::Globally(bx(b))]))),
            };
            Form::All(bx(body))
        })
        .collect()
}

/// Generated formulas on the PEP nets of ../shared/nets (no known answers: the engines must
/// agree).
fn pep_rows(secs: u64) -> Vec<Row> {
    let dir = common::shared_nets().join("pep");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("../shared/nets/pep")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll_net"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for file in files {
        let (net, _) = unfold::formats::read_net(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        for (k, f) in generated(&net, 16).iter().enumerate() {
            rows.push(both(&net, format!("{name}-{k:02}"), f, secs, None));
        }
    }
    rows
}

/// Wrong answers: against the contest's, or the two engines apart.
fn errors(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        for (engine, v) in [("unfolding", r.unfolding.0), ("explicit", r.explicit.0)] {
            if let (Some(v), Some(k)) = (v, r.known)
                && v != k
            {
                out.push(format!("{}: {engine} says {v}, the contest {k}", r.id));
            }
        }
        if let (Some(a), Some(b)) = (r.unfolding.0, r.explicit.0)
            && a != b
        {
            out.push(format!("{}: unfolding {a}, explicit {b}", r.id));
        }
    }
    out
}

fn report(title: &str, rows: &[Row]) {
    let decided = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    let secs = |f: &dyn Fn(&Row) -> Duration| rows.iter().map(f).sum::<Duration>().as_secs_f64();
    println!("== {title}: {} formulas", rows.len());
    if std::env::var_os("LTLX_SECS").is_none() {
        rows.iter().for_each(|r| println!("{}", line(r)));
    }
    let note = |w: &str| decided(&|r| r.unfolding.0.is_none() && r.unfolding.2.contains(w));
    println!(
        "unfolding undecided: {} with next, {} not safe nets, {} other refusals, {} stopped",
        note("next"),
        note("safe"),
        decided(&|r| {
            let n = &r.unfolding.2;
            r.unfolding.0.is_none()
                && !n.contains("next")
                && !n.contains("safe")
                && !n.contains("limit")
        }),
        note("limit"),
    );
    println!(
        "decided: unfolding {}, explicit+stubborn {}; only the unfolding {}, only explicit {}; \
         time: unfolding {:.1}s, explicit {:.1}s",
        decided(&|r| r.unfolding.0.is_some()),
        decided(&|r| r.explicit.0.is_some()),
        decided(&|r| r.unfolding.0.is_some() && r.explicit.0.is_none()),
        decided(&|r| r.unfolding.0.is_none() && r.explicit.0.is_some()),
        secs(&|r| r.unfolding.1),
        secs(&|r| r.explicit.1),
    );
}

/// A few small safe instances, every formula: no wrong answer, and the unfolding decides
/// some of them (an engine refusing everything would pass the first check alone).
#[test]
fn unfolding_is_never_wrong_on_the_contests_answers() {
    let take: &[&str] = if cfg!(debug_assertions) {
        &["Dekker-PT-010"]
    } else {
        &[
            "Dekker-PT-010",
            "Philosophers-PT-000005",
            "ShieldIIPs-PT-001A",
        ]
    };
    let rows = mcc_rows(Some(take), 10);
    let wrong = errors(&rows);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Most of the contest's LTL formulas have a next operator: the unfolding's scope is
    // the others.
    let in_scope = rows
        .iter()
        .filter(|r| !r.unfolding.2.contains("next"))
        .count();
    let decided = rows.iter().filter(|r| r.unfolding.0.is_some()).count();
    assert!(
        decided * 10 >= in_scope * 9,
        "{decided} of {in_scope} decided"
    );
}

/// The measurement: every P/T instance and the PEP nets, both engines with the same limit
/// (`LTLX_SECS`, default 5 s per formula and engine; the explicit checker only where the
/// unfolding does not refuse the formula or the net). `cargo test --release --test
/// ltl_unfolding measure -- --ignored --nocapture`, or `tools/bench_ltl_unfolding.sh`.
#[test]
#[ignore]
fn measure() {
    let secs = std::env::var("LTLX_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let mcc = mcc_rows(None, secs);
    report("MCC P/T instances, LTLCardinality and LTLFireability", &mcc);
    let pep = pep_rows(secs);
    report("PEP nets, generated formulas", &pep);
    let mut wrong = errors(&mcc);
    wrong.extend(errors(&pep));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `unfold check --engine unfolding`: the same verdicts as the default engines, named
/// `ltl+unfolding`, with a lasso; a formula with next is left unknown (exit 3).
#[test]
fn check_engine_unfolding_on_the_command_line() {
    let run = |engine: &str, formula: &str| {
        let out = common::unfold()
            .args(["check", "nets/philosophers-5.pnml", "--quiet", "--witness"])
            .args(["--engine", engine, "--formula", formula])
            .output()
            .unwrap();
        (String::from_utf8(out.stdout).unwrap(), out.status.code())
    };
    let verdict = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("f1"))
            .and_then(|l| l.split_whitespace().nth(1))
            .map(String::from)
    };
    for f in [
        "A G F fireable(takeLeft_0)",
        "A F G deadlock",
        "A G (fireable(takeLeft_0) || F fireable(release_0))",
        "A F deadlock",
    ] {
        let (u, _) = run("unfolding", f);
        let (a, _) = run("auto", f);
        assert_eq!(verdict(&u), verdict(&a), "{f}:\n{u}\n{a}");
        assert!(u.contains("ltl+unfolding"), "{u}");
        if verdict(&u).as_deref() == Some("FALSE") {
            assert!(u.contains("lasso:") && u.contains("then forever:"), "{u}");
        }
    }
    let (x, code) = run("unfolding", "A X deadlock");
    assert!(x.contains("unknown") && x.contains("next"), "{x}");
    assert_eq!(code, Some(3));
}
