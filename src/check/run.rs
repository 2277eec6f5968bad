//! Checking a set of properties on one net: each property becomes a target (a reachability
//! formula) or a bound, the chosen engines run in turn on what is still undecided, and every
//! answer says which engine gave it. LTL formulas go to the LTL engine ([`super::ltl`]), CTL
//! formulas to the CTL engine ([`super::ctl`]). The contest judges the two logics differently
//! at deadlocks (LTL: a deadlock repeats forever; CTL: a maximal path ends there, so `AX φ`
//! holds and `EX φ` fails at a deadlock), so a formula that is both (`A X φ`) is read as LTL by
//! [`check`] and as CTL by [`check_ctl`], which the CTL examinations use.

use std::time::{Duration, Instant};

use super::climb;
use super::ctl::{self, Checker, CtlError, CtlOptions};
use super::dpor;
use super::equation::Equation;
use super::explicit::{self, BoundQuery, NetMarking};
use super::ltl::{self, LtlOptions, LtlQuestion};
use super::prefix_sat::{self, ReadArcs};
use super::seek;
use super::shortcuts::{Shortcuts, Truth};
use super::walk::{self, WalkOptions};
use super::{Bound, Search};
use crate::explore::limits::{Limits, StopReason};
use crate::model::net::{Net, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::syntax::{Ask, ReachKind, ResolvedFormula};
use crate::property::{Linear, Predicate, ResolvedQuery};
use crate::structural::Budget;
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
    /// The unfolding DPOR with cutoffs only.
    Dpor,
    /// LTL-X on the net unfolding only (safe nets, LTL formulas without next).
    Unfolding,
}

impl EngineChoice {
    /// Whether the LTL and CTL engines run under this choice (the prefix and the DPOR
    /// decide reachability and bounds only).
    fn runs_temporal(self) -> bool {
        matches!(self, EngineChoice::Auto | EngineChoice::Explicit)
    }
}

/// How the engines run, besides which ones: the LTL engine's options and how the prefix
/// engine unfolds read arcs. An [`LtlOptions`] alone is these with the prefix engine's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// The LTL engine's options.
    pub ltl: LtlOptions,
    /// How the prefix engine unfolds read arcs (contextually by default).
    pub read_arcs: ReadArcs,
}

impl From<LtlOptions> for CheckOptions {
    fn from(ltl: LtlOptions) -> Self {
        CheckOptions {
            ltl,
            ..CheckOptions::default()
        }
    }
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
    /// The unfolding DPOR with cutoffs.
    Dpor,
    /// The LTL engine on the full state space (product with a Büchi automaton).
    Ltl,
    /// The LTL engine on the stubborn-set reduced state space.
    LtlStubborn,
    /// The CTL engine (local, on the fly).
    Ctl,
    /// LTL-X on the net unfolding (visible steps over invisible prefixes).
    LtlUnfolding,
}

impl Engine {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Structural => "structural",
            Engine::Explicit => "explicit",
            Engine::Prefix => "prefix",
            Engine::Dpor => "dpor",
            Engine::Ltl => "ltl",
            Engine::LtlStubborn => "ltl+stubborn",
            Engine::Ctl => "ctl",
            Engine::LtlUnfolding => "ltl+unfolding",
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
    /// `AG` formula, or reaching the bound; for an LTL formula the prefix of the lasso that
    /// violates `A φ` (or satisfies `E φ`).
    pub witness: Option<Vec<TransIdx>>,
    /// For an LTL formula decided by a lasso: the cycle repeated after the witness (empty:
    /// the run ends in a deadlock, which repeats forever).
    pub cycle: Option<Vec<TransIdx>>,
    /// Product states the LTL engine visited (LTL formulas only).
    pub explored: Option<u64>,
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
    /// An LTL formula.
    Ltl(Box<LtlQuestion>),
    /// A CTL formula.
    Ctl(Box<ResolvedFormula>),
    /// Not for these engines.
    Other(String),
}

/// How a temporal formula that is both LTL and CTL is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Logic {
    Ltl,
    Ctl,
}

impl Goal {
    fn of(q: &ResolvedQuery, logic: Logic) -> Goal {
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
                None if f.is_state() => {
                    Goal::Initial(Predicate::compile(f).expect("a state formula compiles"))
                }
                None if logic == Logic::Ctl && ctl::is_ctl(f) => Goal::Ctl(Box::new(f.clone())),
                None => match LtlQuestion::of(f, ltl::Deadlocks::Stutter) {
                    Ok(q) => Goal::Ltl(Box::new(q)),
                    Err(_) if ctl::is_ctl(f) => Goal::Ctl(Box::new(f.clone())),
                    Err(_) => Goal::Other("neither an LTL nor a CTL formula".into()),
                },
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
/// `Auto` runs, on what is still undecided: the structural shortcuts (the initial marking,
/// invariants, dead transitions, bounds), the explicit engine for a tenth of the time (small
/// state spaces end there), the DPOR on a bare `deadlock` then, on nets that look 1-safe, the
/// complete prefix by SAT, each for a twentieth of the rest (at most 5 s: small unfoldings end
/// there), random walks for a tenth of what is left (witnesses deep in large state spaces),
/// best-first climbs towards the open bounds for a fifth of the rest, best-first searches
/// towards the open targets for a third of the rest, on nets that look 1-safe the complete
/// prefix by SAT with half of what is left, then the explicit engine again with the rest.
///
/// The error is a counter overflow at 64 bits.
pub fn check(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
) -> Result<Vec<Answer>, Overflow> {
    check_with(net, queries, choice, limits, LtlOptions::default())
}

/// [`check`], the engines run with `options` (an [`LtlOptions`] or a [`CheckOptions`]). LTL
/// formulas get half the time when other properties are open too (all of it else), shared
/// between them in two rounds: half of each one's share first, the rest to those still open;
/// what the other engines leave goes to the LTL formulas still open.
pub fn check_with(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
    options: impl Into<CheckOptions>,
) -> Result<Vec<Answer>, Overflow> {
    let goals: Vec<Goal> = queries.iter().map(|q| Goal::of(q, Logic::Ltl)).collect();
    check_goals(net, queries, &goals, choice, limits, options.into())
}

/// [`check_with`], reading every formula that is CTL as CTL (the CTL examinations: `A X φ`
/// there is CTL's, see the module's documentation); `options` apply to the other engines
/// (the prefix engine's reading of read arcs, the LTL engine's on formulas that are not CTL).
pub fn check_ctl(
    net: &Net,
    queries: &[ResolvedQuery],
    choice: EngineChoice,
    limits: &Limits,
    options: impl Into<CheckOptions>,
) -> Result<Vec<Answer>, Overflow> {
    let goals: Vec<Goal> = queries.iter().map(|q| Goal::of(q, Logic::Ctl)).collect();
    check_goals(net, queries, &goals, choice, limits, options.into())
}

fn check_goals(
    net: &Net,
    queries: &[ResolvedQuery],
    goals: &[Goal],
    choice: EngineChoice,
    limits: &Limits,
    options: CheckOptions,
) -> Result<Vec<Answer>, Overflow> {
    let mut work = Work::new(net, queries, goals);
    work.read_arcs = options.read_arcs;
    work.initial();
    if work.open().is_empty() {
        return Ok(work.answers);
    }
    if choice.runs_temporal() && work.open_ctl().next().is_some() {
        let others = work
            .open()
            .iter()
            .any(|&i| !matches!(work.goals[i], Goal::Ctl(_)));
        let share = if others {
            limits.phase(limits.remaining().map(|r| r / 2))
        } else {
            limits.phase(limits.remaining())
        };
        work.ctl(&share)?;
        if work.open().is_empty() || !others {
            return Ok(work.finish());
        }
    }
    if choice == EngineChoice::Unfolding {
        // The unfolding decides LTL-X formulas only; the rest stays open.
        work.ltl(limits, options.ltl, true)?;
        return Ok(work.finish());
    }
    if choice.runs_temporal() && work.open_ltl().next().is_some() {
        let others = work
            .open()
            .iter()
            .any(|&i| !matches!(work.goals[i], Goal::Ltl(_)));
        let share = if others {
            limits.phase(limits.remaining().map(|r| r / 2))
        } else {
            limits.phase(limits.remaining())
        };
        work.ltl(&share, options.ltl, false)?;
        if work.open().is_empty() {
            return Ok(work.finish());
        }
        if !others {
            return Ok(work.finish());
        }
    }
    match choice {
        EngineChoice::Explicit => work.explicit(limits)?,
        EngineChoice::Auto => {
            work.shortcuts(limits);
            if work.open().is_empty() {
                return Ok(work.finish());
            }
            work.explicit(&limits.phase(limits.remaining().map(|r| r / 10)))?;
            // Quick tries of the unfoldings before the searches take their shares, where the
            // state space is far too large but the unfolding small (buffers, rings of
            // independent cells): the DPOR on a bare `deadlock` (it stops at the first dead
            // configuration), then the complete prefix, which decides every target at once.
            if !work.open().is_empty() && limits.check_time().is_ok() {
                work.dpor_deadlocks(&limits.phase(Some(quick_share(limits))))?;
            }
            if !work.open().is_empty() && net.looks_safe() && limits.check_time().is_ok() {
                work.prefix(&limits.phase(Some(quick_share(limits))));
            }
            if !work.open().is_empty() && limits.check_time().is_ok() {
                let budget = walk::budget(limits, 0.1, Duration::from_secs(30));
                work.walk(budget, limits)?;
            }
            if limits.check_time().is_ok() {
                work.climb(limits)?;
            }
            if !work.open().is_empty() && limits.check_time().is_ok() {
                work.seek(&limits.phase(limits.remaining().map(|r| r / 3)))?;
            }
            if !work.open().is_empty() && net.looks_safe() && limits.check_time().is_ok() {
                work.prefix(&limits.phase(limits.remaining().map(|r| r / 2)));
            }
            if !work.open().is_empty() && limits.check_time().is_ok() {
                work.explicit(limits)?;
            }
        }
        EngineChoice::Prefix => work.prefix(limits),
        EngineChoice::Dpor => work.dpor(limits)?,
        EngineChoice::Unfolding => unreachable!("answered above"),
    }
    // The other engines may have left time: the CTL and LTL formulas still open get it.
    if choice.runs_temporal() && work.open_ctl().next().is_some() && limits.check_time().is_ok() {
        work.ctl(limits)?;
    }
    if choice.runs_temporal() && work.open_ltl().next().is_some() && limits.check_time().is_ok() {
        work.ltl(limits, options.ltl, false)?;
    }
    Ok(work.finish())
}

/// The most a first, quick try of the prefix or DPOR engine takes (`Auto`).
const QUICK_TRY: Duration = Duration::from_secs(5);

/// The time of a quick try: a twentieth of what is left, at most [`QUICK_TRY`].
fn quick_share(limits: &Limits) -> Duration {
    limits
        .remaining()
        .map_or(QUICK_TRY, |r| (r / 20).min(QUICK_TRY))
}

/// Open reachability goals: their index and their target.
type Targets = Vec<(usize, Predicate)>;
/// Open bounds: their index and their sum.
type Sums = Vec<(usize, Linear)>;

/// The answers so far, and what the engines learnt of the undecided bounds.
struct Work<'a> {
    net: &'a Net,
    goals: &'a [Goal],
    answers: Vec<Answer>,
    /// The best value reached by a known run, per goal (bounds only).
    lower: Vec<Option<(u64, Vec<TransIdx>)>>,
    /// A proved upper bound, per goal (bounds only).
    upper: Vec<Option<u64>>,
    start: Instant,
    /// How the prefix engine unfolds read arcs.
    read_arcs: ReadArcs,
}

impl<'a> Work<'a> {
    fn new(net: &'a Net, queries: &[ResolvedQuery], goals: &'a [Goal]) -> Self {
        let answers = queries
            .iter()
            .zip(goals)
            .map(|(q, g)| Answer {
                id: q.id.clone(),
                value: None,
                engine: None,
                witness: None,
                cycle: None,
                explored: None,
                time: Duration::ZERO,
                unknown: match g {
                    Goal::Other(why) => Some(Unknown::Unsupported(why.clone())),
                    _ => None,
                },
            })
            .collect();
        Work {
            net,
            goals,
            answers,
            lower: vec![None; goals.len()],
            upper: vec![None; goals.len()],
            start: Instant::now(),
            read_arcs: ReadArcs::default(),
        }
    }

    /// The goals still undecided that some engine here may decide.
    fn open(&self) -> Vec<usize> {
        (0..self.goals.len())
            .filter(|&i| {
                self.answers[i].value.is_none() && !matches!(self.goals[i], Goal::Other(_))
            })
            .collect()
    }

    /// State formulas without a path quantifier: their value on the initial marking.
    fn initial(&mut self) {
        let sys = NetSystem::new(self.net);
        let mut state = vec![0; sys.state_words()];
        sys.initial_state(&mut state);
        let m = NetMarking {
            sys: &sys,
            state: &state,
        };
        for (answer, goal) in self.answers.iter_mut().zip(self.goals) {
            if let Goal::Initial(p) = goal {
                answer.value = Some(Value::Bool(p.holds(&m)));
                answer.engine = Some(Engine::Structural);
            }
        }
    }

    /// The open targets and the open bounds, with their indices.
    fn split_open(&self) -> (Targets, Sums) {
        let mut targets = Vec::new();
        let mut sums = Vec::new();
        for i in self.open() {
            match &self.goals[i] {
                Goal::Reach { target, .. } => targets.push((i, target.clone())),
                Goal::Bound(sum) => sums.push((i, sum.clone())),
                Goal::Initial(_) | Goal::Other(_) | Goal::Ltl(_) | Goal::Ctl(_) => {}
            }
        }
        (targets, sums)
    }

    /// The structural shortcuts on the open goals, within a twentieth of the time left (at
    /// most the semiflow budget's default), then the state equation.
    fn shortcuts(&mut self, limits: &Limits) {
        let mut budget = Budget::default();
        if let Some(r) = limits.remaining() {
            budget.time = budget.time.min(r / 20);
        }
        let s = Shortcuts::of(self.net, &budget);
        let (targets, sums) = self.split_open();
        for (i, target) in targets {
            if let Some(search) = s.decide(&target) {
                self.search(i, search, Engine::Structural);
            }
        }
        for (i, sum) in &sums {
            self.bound(*i, s.bound(sum), Engine::Structural);
        }
        // The state equation, on what the invariants left open: a tenth of the time left (at
        // most 10 s), at most a second per linear program.
        let total = limits.remaining().map_or(Duration::from_secs(10), |r| {
            (r / 10).min(Duration::from_secs(10))
        });
        let (targets, sums) = self.split_open();
        if targets.is_empty() && sums.is_empty() {
            return;
        }
        let eq = Equation::new(self.net, Duration::from_secs(1).min(total), total);
        let mut rest = Vec::new();
        for (i, target) in targets {
            if eq.refutes(&target) {
                self.search(i, Search::Absent, Engine::Structural);
            } else {
                rest.push((i, target));
            }
        }
        // Then each target as a whole, on what the atoms alone left.
        for (i, target) in rest {
            if eq.refutes_together(&target) {
                self.search(i, Search::Absent, Engine::Structural);
            }
        }
        for (i, sum) in sums {
            if let Some(upper) = eq.upper_bound(&sum) {
                let known = Bound {
                    upper: Some(upper),
                    ..Bound::default()
                };
                self.bound(i, known, Engine::Structural);
            }
        }
    }

    /// The answers, with a reason for every property left undecided.
    fn finish(mut self) -> Vec<Answer> {
        for i in self.open() {
            self.answers[i]
                .unknown
                .get_or_insert(Unknown::Unsupported("no engine chosen decided it".into()));
        }
        self.answers
    }

    /// The open CTL goals.
    fn open_ctl(&self) -> impl Iterator<Item = usize> + '_ {
        self.open()
            .into_iter()
            .filter(|&i| matches!(self.goals[i], Goal::Ctl(_)))
    }

    /// The CTL engine on the open CTL goals, in two rounds within `limits` (half of each
    /// one's share first, the rest to those still open), one checker for all so that the
    /// markings found for one formula serve the next; atoms the structural facts (within a
    /// twentieth of the time) show constant are decided by them.
    fn ctl(&mut self, limits: &Limits) -> Result<(), Overflow> {
        let mut budget = Budget::default();
        if let Some(r) = limits.remaining() {
            budget.time = budget.time.min(r / 20);
        }
        let facts = Shortcuts::of(self.net, &budget);
        let mut checker = Checker::new(self.net, CtlOptions::default(), Some(&facts));
        for round in [2u32, 1] {
            let open: Vec<usize> = self.open_ctl().collect();
            for (k, &i) in open.iter().enumerate() {
                if limits.check_time().is_err() {
                    return Ok(());
                }
                let Goal::Ctl(f) = &self.goals[i] else {
                    continue;
                };
                let left = (open.len() - k) as u32;
                let share = limits.phase(limits.remaining().map(|r| r / (round * left)));
                let out = match checker.check(f, &share) {
                    Ok(out) => out,
                    Err(CtlError::Overflow(o)) => return Err(o),
                    Err(e @ CtlError::NotCtl { .. }) => {
                        self.answers[i].unknown = Some(Unknown::Unsupported(e.to_string()));
                        continue;
                    }
                };
                let answer = &mut self.answers[i];
                answer.explored = Some(out.states);
                match out.verdict {
                    Some(v) => {
                        answer.value = Some(Value::Bool(v));
                        answer.engine = Some(if out.structural {
                            Engine::Structural
                        } else {
                            Engine::Ctl
                        });
                        answer.time = self.start.elapsed();
                        answer.unknown = None;
                        if let Some(trace) = out.trace {
                            answer.witness = Some(trace.prefix);
                            answer.cycle = (!trace.cycle.is_empty()).then_some(trace.cycle);
                        }
                    }
                    None => {
                        answer.unknown = Some(Unknown::Stopped(
                            out.stopped.unwrap_or(StopReason::Interrupted),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The open LTL goals.
    fn open_ltl(&self) -> impl Iterator<Item = usize> + '_ {
        self.open()
            .into_iter()
            .filter(|&i| matches!(self.goals[i], Goal::Ltl(_)))
    }

    /// The LTL engine on the open LTL goals, in two rounds within `limits`; first the atoms
    /// that structural facts (within a twentieth of the time) show constant over the
    /// reachable markings are replaced by their value. With `unfolding`, the engine is LTL-X
    /// on the net unfolding ([`ltl::unfolding`]) instead of the explicit product.
    fn ltl(
        &mut self,
        limits: &Limits,
        options: LtlOptions,
        unfolding: bool,
    ) -> Result<(), Overflow> {
        let mut budget = Budget::default();
        if let Some(r) = limits.remaining() {
            budget.time = budget.time.min(r / 20);
        }
        let facts = Shortcuts::of(self.net, &budget);
        let questions: Vec<(usize, LtlQuestion)> = self
            .open_ltl()
            .filter_map(|i| match &self.goals[i] {
                Goal::Ltl(q) => {
                    let known: Vec<Option<bool>> = q
                        .atoms
                        .iter()
                        .map(|a| match facts.truth(a) {
                            Truth::Always => Some(true),
                            Truth::Never => Some(false),
                            Truth::Unknown => None,
                        })
                        .collect();
                    Some((i, q.with_constant_atoms(&known, options.deadlocks)))
                }
                _ => None,
            })
            .collect();
        for round in [2u32, 1] {
            let open: Vec<usize> = self.open_ltl().collect();
            for (k, &i) in open.iter().enumerate() {
                if limits.check_time().is_err() {
                    return Ok(());
                }
                let left = (open.len() - k) as u32;
                let share = limits.phase(limits.remaining().map(|r| r / (round * left)));
                let Some((_, q)) = questions.iter().find(|(j, _)| *j == i) else {
                    continue;
                };
                let (out, engine) = if unfolding {
                    let (out, _) =
                        ltl::unfolding::check_question(self.net, q, &share, options.deadlocks);
                    (out, Engine::LtlUnfolding)
                } else {
                    let out = ltl::check_question(self.net, q, &share, options)?;
                    let engine = if out.stubborn {
                        Engine::LtlStubborn
                    } else {
                        Engine::Ltl
                    };
                    (out, engine)
                };
                let answer = &mut self.answers[i];
                answer.explored = Some(answer.explored.unwrap_or(0) + out.states);
                match out.verdict {
                    Some(v) => {
                        answer.value = Some(Value::Bool(v));
                        answer.engine = Some(engine);
                        answer.time = self.start.elapsed();
                        answer.unknown = None;
                        if let Some(lasso) = out.counterexample {
                            answer.witness = Some(lasso.prefix);
                            answer.cycle = Some(lasso.cycle);
                        }
                    }
                    None => {
                        answer.unknown = Some(match (out.stopped, out.unsupported) {
                            (Some(r), _) => Unknown::Stopped(r),
                            (None, Some(why)) => Unknown::Unsupported(why),
                            (None, None) => {
                                Unknown::Unsupported("the LTL engine did not decide it".into())
                            }
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The open targets and bounds as an engine that answers both takes them: the predicates
    /// and the bound queries (with the upper bounds proved so far), beside their goals.
    fn open_questions(&self) -> (Targets, Sums, Vec<Predicate>, Vec<BoundQuery>) {
        let (targets, sums) = self.split_open();
        let preds = targets.iter().map(|(_, p)| p.clone()).collect();
        let queries = sums
            .iter()
            .map(|(i, sum)| BoundQuery {
                sum: sum.clone(),
                known_upper: self.upper[*i],
            })
            .collect();
        (targets, sums, preds, queries)
    }

    /// Records what `engine` answered to the [`open_questions`](Self::open_questions).
    fn record(
        &mut self,
        targets: &Targets,
        sums: &Sums,
        searches: Vec<Search>,
        bounds: Vec<Bound>,
        engine: Engine,
    ) {
        for ((i, _), search) in targets.iter().zip(searches) {
            self.search(*i, search, engine);
        }
        for ((i, _), bound) in sums.iter().zip(bounds) {
            self.bound(*i, bound, engine);
        }
    }

    /// Runs the explicit engine on the open goals.
    fn explicit(&mut self, limits: &Limits) -> Result<(), Overflow> {
        let (targets, sums, preds, queries) = self.open_questions();
        let run = explicit::check(self.net, &preds, &queries, limits, &mut |_| {})?;
        self.record(&targets, &sums, run.searches, run.bounds, Engine::Explicit);
        Ok(())
    }

    /// Best-first climbs towards the open bounds, a fifth of the time left shared between
    /// them (10 s each without a timeout).
    fn climb(&mut self, limits: &Limits) -> Result<(), Overflow> {
        let (_, sums) = self.split_open();
        if sums.is_empty() {
            return Ok(());
        }
        let share = limits
            .remaining()
            .map_or(Duration::from_secs(10), |r| r / 5 / sums.len() as u32);
        for (i, sum) in sums {
            let bound = climb::climb(self.net, &sum, self.upper[i], share, limits)?;
            self.bound(i, bound, Engine::Explicit);
        }
        Ok(())
    }

    /// Best-first searches towards each open target in turn ([`seek`]), `limits` shared
    /// between them (each one gets an equal share of what the previous ones left; 10 s each
    /// without a timeout).
    fn seek(&mut self, limits: &Limits) -> Result<(), Overflow> {
        let (targets, _) = self.split_open();
        for (k, (i, target)) in targets.iter().enumerate() {
            if limits.check_time().is_err() {
                break;
            }
            let share = limits
                .remaining()
                .map_or(Duration::from_secs(10), |r| r / (targets.len() - k) as u32);
            let search = seek::seek(self.net, target, share, limits)?;
            if search.decided() {
                self.search(*i, search, Engine::Explicit);
            }
        }
        Ok(())
    }

    /// The complete prefix, by SAT, on the open goals (1-safe nets; on others every open goal
    /// says why it stays open).
    fn prefix(&mut self, limits: &Limits) {
        let (targets, sums) = self.split_open();
        let preds: Vec<Predicate> = targets.iter().map(|(_, p)| p.clone()).collect();
        let lins: Vec<Linear> = sums.iter().map(|(_, l)| l.clone()).collect();
        match prefix_sat::check_net_with(self.net, &preds, &lins, self.read_arcs, limits) {
            Ok(found) => self.record(&targets, &sums, found.targets, found.bounds, Engine::Prefix),
            Err(not_safe) => {
                let open = targets.iter().map(|t| t.0).chain(sums.iter().map(|s| s.0));
                for i in open {
                    self.answers[i]
                        .unknown
                        .get_or_insert(Unknown::Unsupported(format!(
                            "the prefix engine needs a 1-safe net ({not_safe})"
                        )));
                }
            }
        }
    }

    /// The unfolding DPOR with cutoffs on the open targets and bounds; the LTL and CTL goals
    /// open say that it does not decide them.
    fn dpor(&mut self, limits: &Limits) -> Result<(), Overflow> {
        for i in self.open() {
            if matches!(self.goals[i], Goal::Ltl(_) | Goal::Ctl(_)) {
                self.answers[i].unknown = Some(Unknown::Unsupported(
                    "the dpor engine decides reachability and bound formulas only".into(),
                ));
            }
        }
        let (targets, sums, preds, queries) = self.open_questions();
        if targets.is_empty() && sums.is_empty() {
            return Ok(());
        }
        let run = dpor::check(self.net, &preds, &queries, limits, &mut |_| {})?;
        self.record(&targets, &sums, run.searches, run.bounds, Engine::Dpor);
        Ok(())
    }

    /// The DPOR on the open goals that are a bare `deadlock` (its own question, see
    /// [`dpor::check`]), the others left as they are.
    fn dpor_deadlocks(&mut self, limits: &Limits) -> Result<(), Overflow> {
        let (mut targets, _) = self.split_open();
        targets.retain(|(_, p)| *p == Predicate::Deadlock);
        if targets.is_empty() {
            return Ok(());
        }
        let run = dpor::check(self.net, &[Predicate::Deadlock], &[], limits, &mut |_| {})?;
        let found = run.searches.into_iter().next().expect("one target asked");
        for &(i, _) in &targets {
            self.search(i, found.clone(), Engine::Dpor);
        }
        Ok(())
    }

    /// Random walks on the open goals for `budget`.
    fn walk(&mut self, budget: Duration, limits: &Limits) -> Result<(), Overflow> {
        let (targets, sums) = self.split_open();
        let preds: Vec<Predicate> = targets.iter().map(|(_, p)| p.clone()).collect();
        let lins: Vec<Linear> = sums.iter().map(|(_, l)| l.clone()).collect();
        let run = walk::walk(
            self.net,
            &preds,
            &lins,
            WalkOptions::default(),
            budget,
            limits,
        )?;
        for ((i, _), search) in targets.iter().zip(run.searches) {
            if search.decided() {
                self.search(*i, search, Engine::Explicit);
            }
        }
        for ((i, _), bound) in sums.iter().zip(run.bounds) {
            self.bound(*i, bound, Engine::Explicit);
        }
        Ok(())
    }

    /// Records an engine's search on a reachability goal.
    fn search(&mut self, i: usize, search: Search, engine: Engine) {
        let answer = &mut self.answers[i];
        match search {
            Search::Found(run) => {
                answer.value = Some(self.goals[i].value(true));
                answer.witness = Some(run);
            }
            Search::Absent => answer.value = Some(self.goals[i].value(false)),
            Search::Unknown(reason) => {
                answer.unknown = Some(match reason {
                    Some(r) => Unknown::Stopped(r),
                    None => Unknown::Unsupported(format!(
                        "the {} engine cannot decide it",
                        engine.name()
                    )),
                });
                return;
            }
        }
        answer.engine = Some(engine);
        answer.time = self.start.elapsed();
        answer.unknown = None;
    }

    /// Records what an engine learnt of a bound; decides it once the lower and upper values
    /// meet.
    fn bound(&mut self, i: usize, bound: Bound, engine: Engine) {
        if self.lower[i].as_ref().is_none_or(|(v, _)| bound.lower > *v)
            && let Some(w) = bound.witness
        {
            self.lower[i] = Some((bound.lower, w));
        }
        if let Some(u) = bound.upper {
            self.upper[i] = Some(self.upper[i].map_or(u, |v| v.min(u)));
        }
        let answer = &mut self.answers[i];
        match (&self.lower[i], self.upper[i]) {
            (Some((lower, run)), Some(upper)) if *lower == upper => {
                answer.value = Some(Value::Bound(upper));
                answer.witness = Some(run.clone());
                answer.engine = Some(engine);
                answer.time = self.start.elapsed();
                answer.unknown = None;
            }
            _ => {
                if let Some(r) = bound.stopped {
                    answer.unknown = Some(Unknown::Stopped(r));
                }
            }
        }
    }
}
