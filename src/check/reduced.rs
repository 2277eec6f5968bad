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
use super::run::{self, Answer, CheckOptions, EngineChoice};
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

/// Checks `queries` on `net` as [`run::check_with`] does (with `options`, an
/// [`LtlOptions`](super::ltl::LtlOptions) or a [`CheckOptions`]): those a reduction may answer
/// (see the module's documentation) on reduced nets, the others on `net`, the time split
/// between the two groups by their numbers of queries. The reducible ones are checked first
/// on the net reduced for all of them together (half of their time when there are several),
/// then each one still open on the net reduced for it alone (the rest of their time, shared);
/// a query no reduction shrank the net for is checked on `net`. Each reduction takes a
/// twentieth of the time left (at most 2 s).
///
/// The error is a counter overflow at 64 bits.
pub fn check(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
    options: impl Into<CheckOptions>,
) -> Result<Checked, Overflow> {
    let options: CheckOptions = options.into();
    let seen: Vec<Option<Observed>> = queries.iter().map(observed).collect();
    let reducible: Vec<usize> = (0..queries.len()).filter(|&i| seen[i].is_some()).collect();
    let mut answers: Vec<Option<Answer>> = vec![None; queries.len()];
    let mut reduced = vec![false; queries.len()];
    let mut notes = Vec::new();
    if !reducible.is_empty() {
        let part = reducible.len() as u32;
        let whole = queries.len() as u32;
        let group = limits.phase(limits.remaining().map(|r| r * part / whole));
        let mut on = |indices: &[usize], limits: &Limits, answers: &mut Vec<Option<Answer>>| {
            let asked: Vec<(usize, &ResolvedQuery, &Observed)> = indices
                .iter()
                .filter_map(|&i| Some((i, &queries[i], seen[i].as_ref()?)))
                .collect();
            let found = on_reduction(net, &asked, choice, limits, options)?;
            if let Some((found, note)) = found {
                notes.push(note);
                for (i, a) in found {
                    answers[i] = Some(a);
                    reduced[i] = true;
                }
            }
            Ok::<(), Overflow>(())
        };
        let first = if reducible.len() > 1 {
            group.phase(group.remaining().map(|r| r / 2))
        } else {
            group.clone()
        };
        on(&reducible, &first, &mut answers)?;
        let open: Vec<usize> = reducible
            .iter()
            .copied()
            .filter(|&i| answers[i].as_ref().is_none_or(|a| a.value.is_none()))
            .collect();
        if reducible.len() > 1 {
            for (k, &i) in open.iter().enumerate() {
                if group.check_time().is_err() {
                    break;
                }
                let left = (open.len() - k) as u32;
                let share = group.phase(group.remaining().map(|r| r / left));
                on(&[i], &share, &mut answers)?;
            }
        }
    }
    // What no reduction shrank the net for, on the net as given.
    let rest: Vec<usize> = (0..queries.len())
        .filter(|&i| answers[i].is_none())
        .collect();
    if !rest.is_empty() {
        let asked: Vec<ResolvedQuery> = rest.iter().map(|&i| queries[i].clone()).collect();
        let found = run::check_with(net, &asked, choice, limits, options)?;
        for (&i, a) in rest.iter().zip(found) {
            answers[i] = Some(a);
        }
    }
    Ok(Checked {
        answers: answers.into_iter().flatten().collect(),
        reduced,
        notes,
    })
}

/// Answers by the index of their query, lifted to the given net, and a sentence on the
/// reduction.
type Lifted = (Vec<(usize, Answer)>, String);

/// The answers to `asked` (index, query, what it observes) on `net` reduced for all of them
/// within `limits`, their runs lifted to `net`, with a sentence on the reduction; `None`
/// when the reduction removes nothing (or a query does not map onto the reduced net).
fn on_reduction(
    net: &Net,
    asked: &[(usize, &ResolvedQuery, &Observed)],
    choice: EngineChoice,
    limits: &Limits,
    options: CheckOptions,
) -> Result<Option<Lifted>, Overflow> {
    let mut places = Vec::new();
    let mut transitions = Vec::new();
    let mut traces = false;
    for (_, _, o) in asked {
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
        return Ok(None);
    }
    let Some(mapped) = asked
        .iter()
        .map(|(_, q, _)| map_query(q, &reduction))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let found = run::check_with(&reduction.net, &mapped, choice, limits, options)?;
    let lifted = asked
        .iter()
        .zip(found)
        .map(|((i, _, _), a)| (*i, lift(a, net, &reduction)))
        .collect();
    Ok(Some((lifted, summary(&reduction, &preserve))))
}

/// One sentence on what `r` did, for `preserve`.
fn summary(r: &Reduction, preserve: &Preserve) -> String {
    let class = match preserve {
        Preserve::Deadlock => "deadlocks",
        Preserve::Reachability { .. } => "the observed markings",
        Preserve::LtlX { .. } => "LTL without next on the observed nodes",
        Preserve::Liveness => "liveness",
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
        spans: q.spans.clone(),
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
