//! Answering one examination on one net: which engine, how the time is split between engines,
//! and which answer line. Nothing is printed: the answer lines and the notes on how they were
//! found come back as an [`Answer`].

use std::time::{Duration, Instant};

use super::answer::{
    CANNOT_COMPUTE, Examination, StateSpaceAnswer, Technique, formula_line, property_line,
    state_space_lines,
};
use crate::check;
use crate::check::global::{Early, Method};
use crate::check::ltl::{LassoShape, LtlOptions};
use crate::check::run::{Engine, EngineChoice, Unknown, Value};
use crate::explore::global::{self, GlobalOptions, GlobalRun, Property};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::prefix::{self, DeadlockAnswer, PrefixOptions};
use crate::explore::reach::explore_net;
use crate::explore::udpor::{self, UdporOptions};
use crate::model::net::Net;
use crate::model::net_system::NetSystem;
use crate::property::{Names, Query, refusal};
use crate::structural::reduce::{Preserve, reduce_with};
use crate::structural::{self, Facts};
use crate::system::Overflow;
use crate::unfolding::order::Order;

/// How ReachabilityDeadlock is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeadlockMethod {
    /// The complete prefix on nets that look 1-safe (half the time budget), else or then the
    /// explicit state space.
    #[default]
    Auto,
    /// Explicit state space (stops at the first deadlock).
    Reach,
    /// The complete finite prefix (1-safe nets; others fall back to `Reach`).
    Prefix,
    /// The unfolding DPOR with cutoffs (ERV order).
    Dpor,
}

/// The answer to an examination.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The contest's answer lines (standard output).
    pub lines: Vec<String>,
    /// How they were found, one sentence each (standard error).
    pub notes: Vec<String>,
    /// What stopped the engines without a verdict (the lines then say `CANNOT_COMPUTE`).
    pub stopped: Option<StopReason>,
}

impl Answer {
    fn line(&mut self, line: String) {
        self.lines.push(line);
    }

    fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }
}

const EXPLICIT: &[Technique] = &[Technique::Explicit, Technique::SequentialProcessing];
const UNFOLDING: &[Technique] = &[Technique::NetUnfolding, Technique::SequentialProcessing];
const STRUCTURAL: &[Technique] = &[Technique::Topological, Technique::SequentialProcessing];
const TRAPS: &[Technique] = &[
    Technique::Topological,
    Technique::SatSmt,
    Technique::SequentialProcessing,
];

/// The most time the structural facts and the trap argument take, and at most this share of
/// the budget.
const STRUCTURAL_CAP: Duration = Duration::from_secs(2);
const STRUCTURAL_SHARE: f64 = 0.1;

/// The most time the random walks take, and at most this share of what is left.
const WALK_CAP: Duration = Duration::from_secs(10);
const WALK_SHARE: f64 = 0.1;

/// The share of the budget the deadlock-preserving reduction may take (at most
/// [`STRUCTURAL_CAP`]).
const REDUCTION_SHARE: f64 = 0.02;

/// How `unfold mcc` answers, beyond the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// How ReachabilityDeadlock is decided.
    pub method: DeadlockMethod,
    /// Whether the engines run on the net reduced by the rules that preserve the question
    /// (when it is sound for it; answers found so say `STRUCTURAL_REDUCTION`).
    pub reduce: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: DeadlockMethod::Auto,
            reduce: true,
        }
    }
}

/// Answers `exam` on `net` within `limits`; `budget`
/// is the whole time budget, split between engines where one runs before another. The
/// formula examinations answer `formulas` (read from the examination's file of the instance
/// folder, [`Examination::formula_file`]); the others ignore it. Reductions are on
/// ([`examine_with`] chooses).
///
/// An engine that is not sure answers nothing: the line is then `CANNOT_COMPUTE` and
/// [`Answer::stopped`] says why. The error is a counter overflow at 64 bits.
pub fn examine(
    exam: Examination,
    net: &Net,
    formulas: &[Query],
    method: DeadlockMethod,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Answer, Overflow> {
    let options = Options {
        method,
        ..Options::default()
    };
    examine_with(exam, net, formulas, &options, limits, budget)
}

/// [`examine`] with the choices of `options`.
pub fn examine_with(
    exam: Examination,
    net: &Net,
    formulas: &[Query],
    options: &Options,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Answer, Overflow> {
    let mut answer = Answer::default();
    let property = match exam {
        Examination::StateSpace => {
            answer.stopped = state_space(&mut answer, net, limits)?;
            return Ok(answer);
        }
        Examination::ReachabilityDeadlock => {
            answer.stopped = deadlock(&mut answer, net, options, limits, budget)?;
            return Ok(answer);
        }
        Examination::OneSafe => Property::OneSafe,
        Examination::QuasiLiveness => Property::QuasiLiveness,
        Examination::StableMarking => Property::StableMarking,
        Examination::Liveness => Property::Liveness,
        Examination::ReachabilityCardinality
        | Examination::ReachabilityFireability
        | Examination::UpperBounds
        | Examination::LtlCardinality
        | Examination::LtlFireability => {
            let logic = Logic::Ltl {
                reduce: options.reduce,
            };
            answer.stopped = properties(&mut answer, exam, net, formulas, limits, logic)?;
            return Ok(answer);
        }
        Examination::CtlCardinality | Examination::CtlFireability => {
            answer.stopped = properties(&mut answer, exam, net, formulas, limits, Logic::Ctl)?;
            return Ok(answer);
        }
    };
    answer.stopped = global_property(&mut answer, exam, property, net, options, limits, budget)?;
    Ok(answer)
}

/// A verdict on a global property before the exhaustive engines: from the structural facts
/// (and the trap argument), then from random walks where they can settle it. Records the
/// line and returns true when one is found.
fn early_verdict(
    answer: &mut Answer,
    exam: Examination,
    property: Property,
    net: &Net,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<bool, Overflow> {
    let (facts, deadline) = structural_facts(net, limits, budget);
    Ok(
        structural_verdict(answer, exam, property, net, &facts, deadline)
            || walk_verdict(answer, exam, property, net, limits, budget)?
            || (property == Property::Liveness
                && (siphon_verdict(answer, exam, net, &facts, limits, budget)?
                    || equation_walk_verdict(answer, exam, net, &facts, limits, budget)?
                    || reversibility_verdict(answer, exam, net, &facts, limits, budget)?)),
    )
}

/// Liveness refuted by walks that empty a candidate siphon ([`check::global::by_siphons`]),
/// within the walks' share of what is left.
fn siphon_verdict(
    answer: &mut Answer,
    exam: Examination,
    net: &Net,
    facts: &Facts,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<bool, Overflow> {
    timed_verdict(answer, exam, limits, budget, EXPLICIT, |time| {
        check::global::by_siphons(net, facts, time, limits)
    })
}

/// Liveness refuted by walks to a marking from which the state equation shows a transition
/// never enabled again ([`check::global::by_equation_after_walks`]), within the walks' share
/// of what is left.
fn equation_walk_verdict(
    answer: &mut Answer,
    exam: Examination,
    net: &Net,
    facts: &Facts,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<bool, Overflow> {
    let by = &[
        Technique::Explicit,
        Technique::SatSmt,
        Technique::SequentialProcessing,
    ];
    timed_verdict(answer, exam, limits, budget, by, |time| {
        Ok(check::global::by_equation_after_walks(net, facts, time))
    })
}

/// Liveness proved from the initial marking being a home state
/// ([`check::global::by_reversibility`]), within the walks' share of what is left.
fn reversibility_verdict(
    answer: &mut Answer,
    exam: Examination,
    net: &Net,
    facts: &Facts,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<bool, Overflow> {
    timed_verdict(answer, exam, limits, budget, EXPLICIT, |time| {
        check::global::by_reversibility(net, facts, time, limits)
    })
}

/// Runs `verdict` with the walks' share of what `budget` leaves (nothing once the time is up)
/// and records what it finds, with the techniques `by`.
fn timed_verdict(
    answer: &mut Answer,
    exam: Examination,
    limits: &Limits,
    budget: Option<Duration>,
    by: &[Technique],
    verdict: impl FnOnce(Duration) -> Result<Option<Early>, Overflow>,
) -> Result<bool, Overflow> {
    if limits.check_time().is_err() {
        return Ok(false);
    }
    let time = share_of(budget, limits, WALK_SHARE, WALK_CAP);
    Ok(match verdict(time)? {
        Some(early) => {
            record_early(answer, exam, early, by);
            true
        }
        None => false,
    })
}

/// `share` of what `budget` leaves, at most `cap` (`cap` without a budget).
fn share_of(budget: Option<Duration>, limits: &Limits, share: f64, cap: Duration) -> Duration {
    budget.map_or(cap, |b| {
        b.saturating_sub(limits.elapsed()).mul_f64(share).min(cap)
    })
}

/// The structural facts of `net` within their share of the budget, and the deadline of the
/// structural verdicts that use them.
fn structural_facts(net: &Net, limits: &Limits, budget: Option<Duration>) -> (Facts, Instant) {
    let time = share_of(budget, limits, STRUCTURAL_SHARE, STRUCTURAL_CAP);
    let started = Instant::now();
    let facts = Facts::of(
        net,
        &structural::Budget {
            time: time / 2,
            ..structural::Budget::default()
        },
    );
    (facts, started + time)
}

/// The structural part of [`early_verdict`], on the net's `facts`, until `deadline`.
fn structural_verdict(
    answer: &mut Answer,
    exam: Examination,
    property: Property,
    net: &Net,
    facts: &Facts,
    deadline: Instant,
) -> bool {
    match check::global::structural(net, property, facts, deadline) {
        Some(early) => {
            let by = match early.method {
                Method::Traps | Method::StateEquation => TRAPS,
                Method::Structural | Method::Walk => STRUCTURAL,
            };
            record_early(answer, exam, early, by);
            true
        }
        None => false,
    }
}

/// The random-walk part of [`early_verdict`].
fn walk_verdict(
    answer: &mut Answer,
    exam: Examination,
    property: Property,
    net: &Net,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<bool, Overflow> {
    timed_verdict(answer, exam, limits, budget, EXPLICIT, |time| {
        check::global::by_walks(net, property, time, limits)
    })
}

fn record_early(answer: &mut Answer, exam: Examination, early: Early, by: &[Technique]) {
    answer.note(early.evidence);
    if let Some(run) = early.witness {
        answer.note(format!("a run of {} transitions shows it", run.len()));
    }
    answer.line(formula_line(exam, Some(early.verdict), by));
}

/// The techniques of an engine of the property checker.
fn techniques_of(engine: Engine) -> &'static [Technique] {
    match engine {
        Engine::Explicit => EXPLICIT,
        Engine::Prefix => &[
            Technique::NetUnfolding,
            Technique::SatSmt,
            Technique::SequentialProcessing,
        ],
        Engine::Dpor => &[Technique::NetUnfolding, Technique::SequentialProcessing],
        Engine::Structural => &[Technique::Topological, Technique::SequentialProcessing],
        Engine::Ltl | Engine::Ctl => EXPLICIT,
        Engine::LtlUnfolding => &[Technique::NetUnfolding, Technique::SequentialProcessing],
        Engine::LtlStubborn => &[
            Technique::Explicit,
            Technique::StubbornSets,
            Technique::SequentialProcessing,
        ],
    }
}

/// How a formula examination reads its formulas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Logic {
    /// As [`check::run::check`] does (reachability, bounds, LTL), on the net reduced for the
    /// formulas when `reduce` ([`check::reduced`]).
    Ltl { reduce: bool },
    /// Every formula that is CTL as CTL ([`check::run::check_ctl`]); not reduced (CTL is not
    /// preserved by the reductions).
    Ctl,
}

/// A formula examination: one line per formula, `CANNOT_COMPUTE` for the undecided ones, for
/// those whose names do not resolve against the net, and for those not written in the
/// examination's temporal logic (an LTL formula in a CTL examination: its answer would be
/// one of another question; the note says where and why).
fn properties(
    answer: &mut Answer,
    exam: Examination,
    net: &Net,
    formulas: &[Query],
    limits: &Limits,
    logic: Logic,
) -> Result<Option<StopReason>, Overflow> {
    let names = Names::of(net);
    let mut resolved = Vec::with_capacity(formulas.len());
    for q in formulas {
        if let Some(e) = exam.logic().and_then(|l| refusal(q, l)) {
            let file = exam.formula_file().unwrap_or_default();
            answer.note(format!("{}: {file}:{e}", q.id));
            continue;
        }
        match names.resolve(q) {
            Ok(r) => resolved.push(r),
            Err(e) => answer.note(format!("{}: {e}", q.id)),
        }
    }
    // The contest reads no counterexample: the lasso as the search found it, without the
    // breadth-first searches that make it short.
    let ltl = LtlOptions {
        lasso: LassoShape::AsFound,
        ..LtlOptions::default()
    };
    // The CTL examinations read `A X φ` as CTL does (see `check::run`).
    let (found, reduced) = match logic {
        Logic::Ctl => {
            let found = check::run::check_ctl(net, &resolved, EngineChoice::Auto, limits, ltl)?;
            let reduced = vec![false; found.len()];
            (found, reduced)
        }
        Logic::Ltl { reduce: false } => {
            let found = check::run::check_with(net, &resolved, EngineChoice::Auto, limits, ltl)?;
            let reduced = vec![false; found.len()];
            (found, reduced)
        }
        Logic::Ltl { reduce: true } => {
            let checked = check::reduced::check(net, &resolved, EngineChoice::Auto, limits, ltl)?;
            for n in checked.notes {
                answer.note(n);
            }
            (checked.answers, checked.reduced)
        }
    };
    let mut stopped = None;
    for q in formulas {
        let Some((a, on_reduced)) = found.iter().zip(&reduced).find(|(a, _)| a.id == q.id) else {
            answer.line(property_line(&q.id, None, &[]));
            continue;
        };
        let value = a.value.map(|v| match v {
            Value::Bool(true) => "TRUE".to_string(),
            Value::Bool(false) => "FALSE".to_string(),
            Value::Bound(b) => b.to_string(),
        });
        match (&a.engine, &a.unknown) {
            (Some(engine), _) => {
                answer.note(format!(
                    "{}: {}{} in {:.3} s",
                    a.id,
                    engine.name(),
                    if *on_reduced {
                        " on the reduced net"
                    } else {
                        ""
                    },
                    a.time.as_secs_f64()
                ));
                let mut line = property_line(&a.id, value.as_deref(), techniques_of(*engine));
                if *on_reduced {
                    mark_reduced(std::slice::from_mut(&mut line));
                }
                answer.line(line);
            }
            (None, why) => {
                if let Some(why) = why {
                    answer.note(format!("{}: {why}", a.id));
                    if let Unknown::Stopped(r) = why {
                        stopped.get_or_insert(*r);
                    }
                }
                answer.line(property_line(&a.id, None, &[]));
            }
        }
    }
    Ok(stopped)
}

/// StateSpace: the four figures of `unfold reach`, or `CANNOT_COMPUTE`.
fn state_space(
    answer: &mut Answer,
    net: &Net,
    limits: &Limits,
) -> Result<Option<StopReason>, Overflow> {
    let r = explore_net(net, limits, &mut |_| {})?;
    if let Some(reason) = r.stopped {
        answer.note(format!("{} markings found before the limit", r.states));
        answer.line(CANNOT_COMPUTE.to_string());
        return Ok(Some(reason));
    }
    let figures = StateSpaceAnswer {
        states: r.states,
        transitions: r.edges,
        max_token_in_place: r.max_tokens_in_place,
        max_token_per_marking: r.max_tokens_per_marking,
    };
    answer.lines.extend(state_space_lines(&figures, EXPLICIT));
    Ok(None)
}

/// Records the verdict of a global-property run; returns what stopped it without one.
fn report_global(
    answer: &mut Answer,
    exam: Examination,
    run: &GlobalRun,
    by: &[Technique],
) -> Option<StopReason> {
    if let Some(why) = &run.evidence {
        answer.note(why.clone());
    }
    answer.note(format!(
        "{} markings{}",
        run.states,
        if run.early { " (decided early)" } else { "" }
    ));
    answer.line(formula_line(exam, run.verdict, by));
    if run.verdict.is_none() {
        run.stopped.or(Some(StopReason::Interrupted))
    } else {
        None
    }
}

/// An examination decided early ([`early_verdict`]) or on the explicit reachability graph
/// (for Liveness, of the net reduced by the rules that preserve it, when `options.reduce`).
fn global_property(
    answer: &mut Answer,
    exam: Examination,
    property: Property,
    net: &Net,
    options: &Options,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Option<StopReason>, Overflow> {
    if early_verdict(answer, exam, property, net, limits, budget)? {
        return Ok(None);
    }
    if property == Property::Liveness && options.reduce {
        return liveness_reduced(answer, exam, net, limits, budget);
    }
    let run = global::explore(net, &GlobalOptions::new(property), limits, &mut |_| {})?;
    Ok(report_global(answer, exam, &run, EXPLICIT))
}

/// Liveness on the explicit reachability graph of the net reduced by the rules that preserve
/// it ([`Preserve::Liveness`]: the reduced net is live iff `net` is), the reduction within a
/// fiftieth of the time (at most 2 s).
fn liveness_reduced(
    answer: &mut Answer,
    exam: Examination,
    net: &Net,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Option<StopReason>, Overflow> {
    let reduction = structural::reduce::reduce(
        net,
        &Preserve::Liveness,
        &structural::Budget {
            time: share_of(budget, limits, REDUCTION_SHARE, STRUCTURAL_CAP),
            ..structural::Budget::default()
        },
    );
    let reduced = reduction.net.transitions.len() < net.transitions.len()
        || reduction.net.places.len() < net.places.len();
    if !reduced {
        let run = global::explore(
            net,
            &GlobalOptions::new(Property::Liveness),
            limits,
            &mut |_| {},
        )?;
        return Ok(report_global(answer, exam, &run, EXPLICIT));
    }
    answer.note(format!(
        "reduced to {} places and {} transitions (from {} and {}), preserving liveness",
        reduction.after.places,
        reduction.after.transitions,
        reduction.before.places,
        reduction.before.transitions
    ));
    // The structural verdicts first, on the reduced net (a fused net is often free-choice
    // when the original is not); each is sound there, and the reduced net is live iff `net` is.
    let lines = answer.lines.len();
    let (facts, deadline) = structural_facts(&reduction.net, limits, budget);
    if structural_verdict(
        answer,
        exam,
        Property::Liveness,
        &reduction.net,
        &facts,
        deadline,
    ) || reversibility_verdict(answer, exam, &reduction.net, &facts, limits, budget)?
    {
        mark_reduced(&mut answer.lines[lines..]);
        return Ok(None);
    }
    let run = global::explore(
        &reduction.net,
        &GlobalOptions::new(Property::Liveness),
        limits,
        &mut |_| {},
    )?;
    let stopped = report_global(answer, exam, &run, EXPLICIT);
    mark_reduced(&mut answer.lines[lines..]);
    Ok(stopped)
}

/// ReachabilityDeadlock, by the chosen method.
fn deadlock(
    answer: &mut Answer,
    net: &Net,
    options: &Options,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Option<StopReason>, Overflow> {
    let exam = Examination::ReachabilityDeadlock;
    let explicit = |answer: &mut Answer, limits: &Limits| deadlock_explicit(answer, net, limits);
    match options.method {
        DeadlockMethod::Reach => explicit(answer, limits),
        DeadlockMethod::Dpor => deadlock_dpor(answer, net, limits),
        DeadlockMethod::Prefix => match deadlock_prefix(answer, net, limits) {
            PrefixVerdict::Decided => Ok(None),
            PrefixVerdict::NotSafe(why) => {
                answer.note(format!("{why}; deciding on the explicit state space"));
                explicit(answer, limits)
            }
            PrefixVerdict::Stopped(reason) => {
                answer.line(formula_line(exam, None, UNFOLDING));
                Ok(Some(reason))
            }
        },
        DeadlockMethod::Auto => {
            let (facts, deadline) = structural_facts(net, limits, budget);
            if structural_verdict(answer, exam, Property::Deadlock, net, &facts, deadline) {
                return Ok(None);
            }
            if !options.reduce {
                return deadlock_auto(answer, net, limits, budget);
            }
            // The engines run on the net reduced by the rules that preserve deadlocks, within
            // a fiftieth of the time (at most 2 s); the verdict is the original net's.
            let reduction = reduce_with(
                net,
                &Preserve::Deadlock,
                &facts,
                &structural::Budget {
                    time: share_of(budget, limits, REDUCTION_SHARE, STRUCTURAL_CAP),
                    ..structural::Budget::default()
                },
            );
            let reduced = reduction.net.transitions.len() < net.transitions.len()
                || reduction.net.places.len() < net.places.len();
            if reduced {
                answer.note(format!(
                    "reduced to {} places and {} transitions (from {} and {})",
                    reduction.after.places,
                    reduction.after.transitions,
                    reduction.before.places,
                    reduction.before.transitions
                ));
            }
            let target = if reduced { &reduction.net } else { net };
            let lines = answer.lines.len();
            let stopped = deadlock_auto(answer, target, limits, budget);
            if reduced {
                mark_reduced(&mut answer.lines[lines..]);
            }
            stopped
        }
    }
}

/// Adds `STRUCTURAL_REDUCTION` to the techniques of the verdict lines among `lines`.
fn mark_reduced(lines: &mut [String]) {
    let keyword = Technique::StructuralReduction.keyword();
    for line in lines {
        if let Some(at) = line.find(" TECHNIQUES ") {
            let at = at + " TECHNIQUES ".len();
            line.insert_str(at, &format!("{keyword} "));
        }
    }
}

/// ReachabilityDeadlock's automatic method after the structural verdicts, on `net` (the
/// reduced net when the reduction removed something): on nets that look 1-safe the prefix
/// with half the time, then walks and the explicit state space.
fn deadlock_auto(
    answer: &mut Answer,
    net: &Net,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Option<StopReason>, Overflow> {
    let exam = Examination::ReachabilityDeadlock;
    let walks_then_explicit = |answer: &mut Answer| -> Result<_, Overflow> {
        if walk_verdict(answer, exam, Property::Deadlock, net, limits, budget)? {
            return Ok(None);
        }
        deadlock_explicit(answer, net, limits)
    };
    if !net.looks_safe() {
        return walks_then_explicit(answer);
    }
    // Half the remaining time for the prefix, then walks and the state space.
    let first = budget.map(|t| t.saturating_sub(limits.elapsed()) / 2);
    let prefix_limits = limits.phase(first);
    match deadlock_prefix(answer, net, &prefix_limits) {
        PrefixVerdict::Decided => Ok(None),
        PrefixVerdict::NotSafe(why) => {
            answer.note(format!("{why}; deciding on the explicit state space"));
            walks_then_explicit(answer)
        }
        PrefixVerdict::Stopped(StopReason::Interrupted) => {
            answer.line(formula_line(exam, None, UNFOLDING));
            Ok(Some(StopReason::Interrupted))
        }
        PrefixVerdict::Stopped(reason) => {
            answer.note(format!("prefix stopped ({reason}); trying the state space"));
            walks_then_explicit(answer)
        }
    }
}

/// ReachabilityDeadlock on the explicit state space (stops at the first deadlock).
fn deadlock_explicit(
    answer: &mut Answer,
    net: &Net,
    limits: &Limits,
) -> Result<Option<StopReason>, Overflow> {
    let options = GlobalOptions::new(Property::Deadlock);
    let run = global::explore(net, &options, limits, &mut |_| {})?;
    Ok(report_global(
        answer,
        Examination::ReachabilityDeadlock,
        &run,
        EXPLICIT,
    ))
}

/// What the prefix said about deadlocks.
enum PrefixVerdict {
    /// Answered (the line is recorded).
    Decided,
    /// The net is not 1-safe (the reason).
    NotSafe(String),
    /// A limit stopped it (nothing recorded).
    Stopped(StopReason),
}

fn deadlock_prefix(answer: &mut Answer, net: &Net, limits: &Limits) -> PrefixVerdict {
    let exam = Examination::ReachabilityDeadlock;
    let options = PrefixOptions {
        order: prefix::Order::Erv,
        deadlock: true,
    };
    let r = match prefix::explore(net, &options, limits, &mut |_| {}) {
        Ok(r) => r,
        Err(not_safe) => return PrefixVerdict::NotSafe(not_safe.to_string()),
    };
    let verdict = match r.deadlock {
        Some(DeadlockAnswer::Free) => false,
        Some(DeadlockAnswer::Found(config)) => {
            answer.note(format!(
                "a configuration of {} events ends in a deadlock",
                config.len()
            ));
            true
        }
        Some(DeadlockAnswer::Unknown(reason)) => return PrefixVerdict::Stopped(reason),
        None => unreachable!("the deadlock answer was asked for"),
    };
    answer.note(format!(
        "complete prefix: {} events, {} cutoffs",
        r.prefix.events.len(),
        r.prefix.cutoffs()
    ));
    answer.line(formula_line(exam, Some(verdict), UNFOLDING));
    PrefixVerdict::Decided
}

fn deadlock_dpor(
    answer: &mut Answer,
    net: &Net,
    limits: &Limits,
) -> Result<Option<StopReason>, Overflow> {
    let exam = Examination::ReachabilityDeadlock;
    let opts = UdporOptions {
        // Cutoffs make every run finite on a bounded net; the limits stop the others.
        max_depth: usize::MAX,
        cutoffs: Some(Order::Erv),
        ..UdporOptions::default()
    };
    let (stats, _) =
        NetSystem::new(net).retry_widened(|sys| udpor::explore(sys, &opts, limits, &mut |_| {}))?;
    answer.note(format!(
        "unfolding DPOR: {} maximal configurations, {} events, {} cutoffs",
        stats.maximal_configurations, stats.events, stats.cutoffs
    ));
    // A deadlock found is one, whether or not the exploration finished.
    let verdict = if stats.deadlocks > 0 {
        Some(true)
    } else if stats.complete() {
        Some(false)
    } else {
        None
    };
    answer.line(formula_line(exam, verdict, UNFOLDING));
    Ok(match verdict {
        Some(_) => None,
        None => Some(stats.stopped.unwrap_or(StopReason::DepthLimit)),
    })
}
