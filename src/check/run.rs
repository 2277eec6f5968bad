//! Checking a set of properties on one net: each property becomes a target (a reachability
//! formula) or a bound, the chosen engines run in turn on what is still undecided, and every
//! answer says which engine gave it. Properties that are not reachability or bound questions
//! (LTL, CTL) are left unknown here.

use std::time::{Duration, Instant};

use super::explicit::{self, BoundQuery, NetMarking};
use super::{Bound, Search};
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::{Net, TransIdx};
use crate::property::syntax::{Ask, ReachKind};
use crate::property::{Linear, Predicate, ResolvedQuery};
use crate::model::net_system::NetSystem;
use crate::system::{Overflow, System};

/// Which engines may decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// What suits the net and the property, within the time left.
    #[default]
    Auto,
    /// Explicit reachability only.
    Explicit,
    /// The complete prefix only (1-safe nets).
    Prefix,
}

/// The engine that gave an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Structural facts: the initial marking, invariants, dead transitions, bounds.
    Structural,
    /// Explicit reachability.
    Explicit,
    /// The complete finite prefix, by SAT.
    Prefix,
}

impl Engine {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Structural => "structural",
            Engine::Explicit => "explicit",
            Engine::Prefix => "prefix",
        }
    }
}

/// The value of a property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A formula's truth value.
    Bool(bool),
    /// A bound.
    Bound(u64),
}

/// The answer to one property.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The property's id.
    pub id: String,
    /// Its value; `None` when undecided.
    pub value: Option<Value>,
    /// Who decided it.
    pub engine: Option<Engine>,
    /// A run from the initial marking: to a marking satisfying an `EF` target, violating an
    /// `AG` formula, or reaching the bound.
    pub witness: Option<Vec<TransIdx>>,
    /// Time from the start of the check to the answer.
    pub time: Duration,
    /// Why it is undecided (a limit, or what no engine here decides).
    pub unknown: Option<Unknown>,
}

/// Why a property is undecided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// A limit stopped the engines.
    Stopped(StopReason),
    /// No engine chosen decides this kind of property (the reason).
    Unsupported(String),
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unknown::Stopped(r) => write!(f, "{r}"),
            Unknown::Unsupported(why) => f.write_str(why),
        }
    }
}

/// What a property asks, compiled.
enum Goal {
    /// Is `target` reachable? Then `answer(reachable)` is the formula's value.
    Reach {
        target: Predicate,
        kind: ReachKind,
        negated: bool,
    },
    /// A state formula without a path quantifier: its value on the initial marking.
    Initial(Predicate),
    /// The largest value of `sum`.
    Bound(Linear),
    /// Not for these engines.
    Other(String),
}

impl Goal {
    fn of(q: &ResolvedQuery) -> Goal {
        match &q.ask {
            Ask::Bound(places) => Goal::Bound(Linear::of(&crate::property::IntExpr::Tokens(
                places.clone(),
            ))),
            Ask::Holds(f) => match f.as_reachability() {
                Some(r) => {
                    let p = Predicate::compile(r.predicate).expect("a reachability predicate");
                    let target = if r.target_is_negation() {
                        p.negated()
                    } else {
                        p
                    };
                    Goal::Reach {
                        target,
                        kind: r.kind,
                        negated: r.negated,
                    }
                }
                None if f.is_state() => Goal::Initial(
                    Predicate::compile(f).expect("a state formula compiles"),
                ),
                None => Goal::Other("LTL and CTL formulas are not checked yet".into()),
            },
        }
    }

    fn value(&self, reachable: bool) -> Value {
        match self {
            Goal::Reach { kind, negated, .. } => {
                let holds = match kind {
                    ReachKind::Possibly => reachable,
                    ReachKind::Invariantly => !reachable,
                };
                Value::Bool(holds != *negated)
            }
            _ => unreachable!("only reachability goals have a truth value"),
        }
    }
}

/// Checks `queries` on `net` with the chosen engines within `limits`.
///
/// The error is a counter overflow at 64 bits.
pub fn check(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
) -> Result<Vec<Answer>, Overflow> {
    let start = Instant::now();
    let goals: Vec<Goal> = queries.iter().map(Goal::of).collect();
    let mut answers: Vec<Answer> = queries
        .iter()
        .zip(&goals)
        .map(|(q, g)| Answer {
            id: q.id.clone(),
            value: None,
            engine: None,
            witness: None,
            time: Duration::ZERO,
            unknown: match g {
                Goal::Other(why) => Some(Unknown::Unsupported(why.clone())),
                _ => None,
            },
        })
        .collect();
    let open = |answers: &[Answer]| -> Vec<usize> {
        (0..answers.len())
            .filter(|&i| answers[i].value.is_none() && !matches!(goals[i], Goal::Other(_)))
            .collect()
    };
    let initial = initial_marking(net);
    for (answer, goal) in answers.iter_mut().zip(&goals) {
        if let Goal::Initial(p) = goal {
            let sys = NetSystem::new(net);
            answer.value = Some(Value::Bool(p.holds(&NetMarking {
                sys: &sys,
                state: &initial,
            })));
            answer.engine = Some(Engine::Structural);
        }
    }
    let todo = open(&answers);
    if todo.is_empty() {
        return Ok(answers);
    }
    match choice {
        EngineChoice::Explicit | EngineChoice::Auto => {
            run_explicit(net, &goals, &todo, &mut answers, limits, start)?;
        }
        EngineChoice::Prefix => {
            for &i in &todo {
                answers[i].unknown = Some(Unknown::Unsupported(
                    "the prefix engine is not available yet".into(),
                ));
            }
        }
    }
    Ok(answers)
}

fn initial_marking(net: &Net) -> Vec<u64> {
    let sys = NetSystem::new(net);
    let mut m = vec![0; sys.state_words()];
    sys.initial_state(&mut m);
    m
}

/// Runs the explicit engine on the goals `todo` and records what it decides.
fn run_explicit(
    net: &Net,
    goals: &[Goal],
    todo: &[usize],
    answers: &mut [Answer],
    limits: &Limits,
    start: Instant,
) -> Result<(), Overflow> {
    let mut targets = Vec::new();
    let mut bounds = Vec::new();
    for &i in todo {
        match &goals[i] {
            Goal::Reach { target, .. } => targets.push((i, target.clone())),
            Goal::Bound(sum) => bounds.push((
                i,
                BoundQuery {
                    sum: sum.clone(),
                    known_upper: None,
                },
            )),
            Goal::Initial(_) | Goal::Other(_) => {}
        }
    }
    let preds: Vec<Predicate> = targets.iter().map(|(_, p)| p.clone()).collect();
    let queries: Vec<BoundQuery> = bounds.iter().map(|(_, q)| q.clone()).collect();
    let run = explicit::check(net, &preds, &queries, limits, &mut |_| {})?;
    let now = start.elapsed();
    for ((i, _), search) in targets.iter().zip(run.searches) {
        record_search(&mut answers[*i], &goals[*i], search, Engine::Explicit, now);
    }
    for ((i, _), bound) in bounds.iter().zip(run.bounds) {
        record_bound(&mut answers[*i], bound, Engine::Explicit, now);
    }
    Ok(())
}

/// Records an engine's search on a reachability goal.
fn record_search(answer: &mut Answer, goal: &Goal, search: Search, engine: Engine, time: Duration) {
    match search {
        Search::Found(run) => {
            answer.value = Some(goal.value(true));
            answer.witness = Some(run);
        }
        Search::Absent => answer.value = Some(goal.value(false)),
        Search::Unknown(reason) => {
            answer.unknown = Some(match reason {
                Some(r) => Unknown::Stopped(r),
                None => Unknown::Unsupported(format!("the {} engine cannot decide it", engine.name())),
            });
            return;
        }
    }
    answer.engine = Some(engine);
    answer.time = time;
    answer.unknown = None;
}

/// Records an engine's bound.
fn record_bound(answer: &mut Answer, bound: Bound, engine: Engine, time: Duration) {
    match bound.exact() {
        Some(b) => {
            answer.value = Some(Value::Bound(b));
            answer.witness = bound.witness;
            answer.engine = Some(engine);
            answer.time = time;
            answer.unknown = None;
        }
        None => {
            answer.unknown = Some(Unknown::Stopped(
                bound.stopped.unwrap_or(StopReason::Interrupted),
            ))
        }
    }
}
