//! Checking properties on the net reduced for them: the places and transitions the formulas
//! observe are kept, the structural reductions ([`crate::structural::reduce`]) shrink the
//! rest, the engines of [`super::run`] decide on the smaller net, and the witnesses are lifted
//! back to runs of the given net.
//!
//! *Which class.* A reachability formula (`EF φ`, `AG φ`), a state formula and a place bound
//! depend on the reachable markings projected on the observed places and on the fireability
//! of the observed transitions: [`Preserve::Reachability`] keeps both. An LTL formula without
//! `next` depends on the maximal runs up to stuttering: [`Preserve::LtlX`]. Formulas with
//! `next` (not stutter-invariant), with the `deadlock` atom (self-loop removals change which
//! markings are dead) or with nested path quantifiers (CTL: stutter-equivalent traces do not
//! preserve branching) are checked on the given net.

use std::time::Duration;

use super::ltl::is_ltl;
use super::run::{self, Answer, EngineChoice};
use crate::explore::limits::Limits;
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::property::syntax::{Ask, Form, IntExpr, ResolvedFormula, ResolvedQuery};
use crate::structural::Budget;
use crate::structural::reduce::{Preserve, Reduction, reduce};
use crate::system::Overflow;

/// The answers of [`check`], with which were found on a reduced net.
#[derive(Clone, Debug)]
pub struct Checked {
    /// One answer per query, in their order; witnesses are runs of the given net.
    pub answers: Vec<Answer>,
    /// Whether each answer was decided on a reduced net.
    pub reduced: Vec<bool>,
    /// What the reduction did, one sentence each (empty when nothing was reduced).
    pub notes: Vec<String>,
}

/// The longest the reduction may take (facts and rules), and at most this share of the time
/// left.
const REDUCTION_CAP: Duration = Duration::from_secs(2);
const REDUCTION_SHARE: u32 = 20;

/// Checks `queries` on `net` as [`run::check_with`] does, those a reduction may answer (see
/// the module's documentation) on the net reduced for all of them together, the others on
/// `net`; the time is split between the two groups by their numbers of queries. The
/// reduction takes a twentieth of the time left (at most 2 s); when it removes nothing every
/// query is checked on `net`.
///
/// The error is a counter overflow at 64 bits.
pub fn check(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
    ltl_options: super::ltl::LtlOptions,
) -> Result<Checked, Overflow> {
    let unreduced = |notes: Vec<String>| -> Result<Checked, Overflow> {
        Ok(Checked {
            answers: run::check_with(net, queries, choice, limits, ltl_options)?,
            reduced: vec![false; queries.len()],
            notes,
        })
    };
    let seen: Vec<Option<Observed>> = queries.iter().map(observed).collect();
    if seen.iter().all(Option::is_none) {
        return unreduced(Vec::new());
    }
    let mut places = Vec::new();
    let mut transitions = Vec::new();
    let mut traces = false;
    for o in seen.iter().flatten() {
        places.extend(&o.places);
        transitions.extend(&o.transitions);
        traces |= o.traces;
    }
    places.sort_unstable();
    places.dedup();
    transitions.sort_unstable();
    transitions.dedup();
    let preserve = if traces {
        Preserve::LtlX {
            places,
            transitions,
        }
    } else {
        Preserve::Reachability {
            places,
            transitions,
        }
    };
    let time = limits
        .remaining()
        .map_or(REDUCTION_CAP, |r| (r / REDUCTION_SHARE).min(REDUCTION_CAP));
    let reduction = reduce(
        net,
        &preserve,
        &Budget {
            time,
            ..Budget::default()
        },
    );
    if reduction.after.places == reduction.before.places
        && reduction.after.transitions == reduction.before.transitions
    {
        return unreduced(Vec::new());
    }
    let notes = vec![summary(&reduction, &preserve)];
    // The queries on the reduced net (their indices), the others on the given one.
    let mut on_reduced = Vec::new();
    let mut mapped = Vec::new();
    let mut on_net = Vec::new();
    for (i, (q, o)) in queries.iter().zip(&seen).enumerate() {
        match o.as_ref().and_then(|_| map_query(q, &reduction)) {
            Some(m) => {
                on_reduced.push(i);
                mapped.push(m);
            }
            None => on_net.push(i),
        }
    }
    if on_reduced.is_empty() {
        return unreduced(notes);
    }
    let share = if on_net.is_empty() {
        limits.phase(limits.remaining())
    } else {
        let part = on_reduced.len() as u32;
        let whole = queries.len() as u32;
        limits.phase(limits.remaining().map(|r| r * part / whole))
    };
    let found = run::check_with(&reduction.net, &mapped, choice, &share, ltl_options)?;
    let mut answers: Vec<Option<Answer>> = vec![None; queries.len()];
    let mut reduced = vec![false; queries.len()];
    for (&i, a) in on_reduced.iter().zip(found) {
        answers[i] = Some(lift(a, net, &reduction));
        reduced[i] = true;
    }
    if !on_net.is_empty() {
        let rest: Vec<ResolvedQuery> = on_net.iter().map(|&i| queries[i].clone()).collect();
        let found = run::check_with(net, &rest, choice, limits, ltl_options)?;
        for (&i, a) in on_net.iter().zip(found) {
            answers[i] = Some(a);
        }
    }
    Ok(Checked {
        answers: answers.into_iter().flatten().collect(),
        reduced,
        notes,
    })
}

/// One sentence on what `r` did, for `preserve`.
fn summary(r: &Reduction, preserve: &Preserve) -> String {
    let class = match preserve {
        Preserve::Deadlock => "deadlocks",
        Preserve::Reachability { .. } => "the observed markings",
        Preserve::LtlX { .. } => "LTL without next on the observed nodes",
    };
    let rules: Vec<String> = r.rules.iter().map(|(n, k)| format!("{n} ×{k}")).collect();
    format!(
        "reduced, preserving {class}, to {} places and {} transitions (from {} and {}): {}",
        r.after.places,
        r.after.transitions,
        r.before.places,
        r.before.transitions,
        rules.join(", ")
    )
}

/// `a`, an answer on the reduced net of `r`, with its runs lifted to runs of `net`: a lasso
/// ending in a deadlock (empty cycle) to a run of `net` ending in a deadlock
/// ([`Reduction::lift_dead_run`]; the LTL queries are reduced under [`Preserve::LtlX`]), every
/// other run transition by transition ([`Reduction::lift_run`]).
fn lift(mut a: Answer, net: &Net, r: &Reduction) -> Answer {
    let dead_end = a.cycle.as_ref().is_some_and(Vec::is_empty);
    if let Some(w) = &a.witness {
        a.witness = Some(if dead_end {
            r.lift_dead_run(net, w)
        } else {
            r.lift_run(w)
        });
    }
    if let Some(c) = &a.cycle {
        a.cycle = Some(r.lift_run(c));
    }
    a
}

/// What a query observes, and whether it needs its traces (LTL) or its markings only.
struct Observed {
    places: Vec<PlaceIdx>,
    transitions: Vec<TransIdx>,
    traces: bool,
}

/// What `q` observes, if a reduction may answer it (see the module's documentation).
fn observed(q: &ResolvedQuery) -> Option<Observed> {
    let mut seen = Observed {
        places: Vec::new(),
        transitions: Vec::new(),
        traces: false,
    };
    match &q.ask {
        Ask::Bound(places) => seen.places.extend(places),
        Ask::Holds(f) => {
            if !collect(f, &mut seen) {
                return None;
            }
            if f.as_reachability().is_none() && !f.is_state() {
                if !is_ltl(f) {
                    return None;
                }
                seen.traces = true;
            }
        }
    }
    Some(seen)
}

/// Adds the places and transitions `f` names to `seen`; false when `f` has an atom or an
/// operator no reduction preserves (`deadlock`, `next`).
fn collect(f: &ResolvedFormula, seen: &mut Observed) -> bool {
    match f {
        Form::Bool(_) => true,
        Form::Deadlock | Form::Next(_) => false,
        Form::Fireable(ts) => {
            seen.transitions.extend(ts);
            true
        }
        Form::Compare(a, _, b) => {
            collect_places(a, &mut seen.places);
            collect_places(b, &mut seen.places);
            true
        }
        Form::Not(g) | Form::Exists(g) | Form::All(g) | Form::Finally(g) | Form::Globally(g) => {
            collect(g, seen)
        }
        Form::And(gs) | Form::Or(gs) => gs.iter().all(|g| collect(g, seen)),
        Form::Until(a, b) => collect(a, seen) && collect(b, seen),
    }
}

fn collect_places(e: &IntExpr<PlaceIdx>, into: &mut Vec<PlaceIdx>) {
    match e {
        IntExpr::Const(_) => {}
        IntExpr::Tokens(ps) => into.extend(ps),
        IntExpr::Sum(es) => es.iter().for_each(|e| collect_places(e, into)),
    }
}

/// `q` over the reduced net's nodes; `None` when a node it names did not survive (kept
/// nodes always do: this only guards against a mistake).
fn map_query(q: &ResolvedQuery, r: &Reduction) -> Option<ResolvedQuery> {
    let ask = match &q.ask {
        Ask::Bound(ps) => Ask::Bound(map_places(ps, r)?),
        Ask::Holds(f) => Ask::Holds(map_form(f, r)?),
    };
    Some(ResolvedQuery {
        id: q.id.clone(),
        ask,
    })
}

fn map_places(ps: &[PlaceIdx], r: &Reduction) -> Option<Vec<PlaceIdx>> {
    ps.iter().map(|&p| r.place_of(p)).collect()
}

fn map_expr(e: &IntExpr<PlaceIdx>, r: &Reduction) -> Option<IntExpr<PlaceIdx>> {
    Some(match e {
        IntExpr::Const(c) => IntExpr::Const(*c),
        IntExpr::Tokens(ps) => IntExpr::Tokens(map_places(ps, r)?),
        IntExpr::Sum(es) => IntExpr::Sum(es.iter().map(|e| map_expr(e, r)).collect::<Option<_>>()?),
    })
}

fn map_form(f: &ResolvedFormula, r: &Reduction) -> Option<ResolvedFormula> {
    let sub = |g: &ResolvedFormula| map_form(g, r).map(Box::new);
    let all = |gs: &[ResolvedFormula]| gs.iter().map(|g| map_form(g, r)).collect::<Option<_>>();
    Some(match f {
        Form::Bool(b) => Form::Bool(*b),
        Form::Deadlock => Form::Deadlock,
        Form::Fireable(ts) => Form::Fireable(
            ts.iter()
                .map(|&t| r.transition_of(t))
                .collect::<Option<_>>()?,
        ),
        Form::Compare(a, c, b) => Form::Compare(map_expr(a, r)?, *c, map_expr(b, r)?),
        Form::Not(g) => Form::Not(sub(g)?),
        Form::And(gs) => Form::And(all(gs)?),
        Form::Or(gs) => Form::Or(all(gs)?),
        Form::Exists(g) => Form::Exists(sub(g)?),
        Form::All(g) => Form::All(sub(g)?),
        Form::Next(g) => Form::Next(sub(g)?),
        Form::Finally(g) => Form::Finally(sub(g)?),
        Form::Globally(g) => Form::Globally(sub(g)?),
        Form::Until(a, b) => Form::Until(sub(a)?, sub(b)?),
    })
}
