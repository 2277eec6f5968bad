//! The prefix engine: reachability targets and place bounds of a safe net decided on its
//! complete finite prefix by SAT, without enumerating configurations.
//!
//! A marking is reachable iff it is the marking of some configuration of the prefix
//! ([`encode`] has the argument and the clauses). The clauses of the configurations are built
//! once per prefix ([`PrefixChecker::new`]); a target is translated to one literal (place
//! markings, enabledness, weighted sums of token counts by a totaliser, [`sum`]) and asked as an
//! assumption, so many targets share one solver and what it learnt. A place bound is found by
//! asking for configurations whose sum exceeds the best value found, until none does.
//!
//! A net with read arcs is unfolded contextually by default ([`ReadArcs`]): the contextual
//! prefix is often far smaller, and its configurations are those of the plain encoding
//! without cycles of asymmetric conflict ([`asymmetric`]); the rest of the encoding is the
//! same, read through [`occurrence::Occurrence`].
//!
//! Every witness is replayed on the net (a [`NetSystem`]) before it is returned, and the target
//! checked on the marking it reaches; a replay that fails is a bug, answered as unknown.
//! Limits are honoured inside the solver (its stop hook reads [`Limits::check_time`]).

mod asymmetric;
mod cnf;
mod encode;
mod occurrence;
mod sum;

use super::{Bound, Search};
use crate::explore::contextual::{self, ContextualPrefix};
use crate::explore::limits::{Limits, StopReason};
use crate::explore::prefix::{self, NotSafe, Order, Prefix, PrefixOptions};
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::model::net_system::NetSystem;
use crate::property::{Linear, Marking, Predicate};
use crate::system::System;
use cnf::Outcome;
use encode::Encoding;
use occurrence::Occurrence;

/// How the prefix engine unfolds the read arcs of a net.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadArcs {
    /// As read arcs: the contextual prefix (Cunf's), on nets that have read arcs.
    #[default]
    Contextual,
    /// As self-loops (consume and produce again): the plain prefix.
    SelfLoops,
}

/// Decides targets and bounds of one safe net on one complete prefix of it.
pub struct PrefixChecker<'a> {
    net: &'a Net,
    sys: NetSystem<'a>,
    encoding: Encoding<'a>,
}

/// The size of the clause set so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EncodingSize {
    /// Variables.
    pub variables: u64,
    /// Clauses added (learnt clauses not counted).
    pub clauses: u64,
    /// Cycles of asymmetric conflict forbidden so far (contextual prefixes; among `clauses`).
    pub cycles: u64,
}

/// A marking of the net's system, as the predicates see it.
struct StateMarking<'s, 'n> {
    sys: &'s NetSystem<'n>,
    state: &'s [u64],
}

impl Marking for StateMarking<'_, '_> {
    fn tokens(&self, p: PlaceIdx) -> u64 {
        self.sys.tokens(self.state, p)
    }
    fn enabled(&self, t: TransIdx) -> bool {
        self.sys.is_enabled(self.state, t)
    }
    fn dead(&self) -> bool {
        self.sys.is_deadlock(self.state)
    }
}

impl<'a> PrefixChecker<'a> {
    /// The checker of `net` on `prefix`, which must be a *complete* prefix of `net` (built by
    /// [`prefix::explore`] and not stopped by a limit): an answer `Absent` or an exact bound
    /// relies on it.
    pub fn new(net: &'a Net, prefix: &'a Prefix) -> Self {
        PrefixChecker {
            net,
            sys: NetSystem::new(net),
            encoding: Encoding::new(net, Occurrence::Plain(prefix)),
        }
    }

    /// The checker of `net` on `prefix`, which must be a *complete* contextual prefix of
    /// `net` (built by [`contextual::explore`] and not stopped by a limit).
    pub fn contextual(net: &'a Net, prefix: &'a ContextualPrefix) -> Self {
        PrefixChecker {
            net,
            sys: NetSystem::new(net),
            encoding: Encoding::new(net, Occurrence::Contextual(prefix)),
        }
    }

    /// The size of the clause set (it grows as targets add their literals).
    pub fn size(&self) -> EncodingSize {
        EncodingSize {
            variables: self.encoding.cnf.variables() as u64,
            clauses: self.encoding.cnf.clauses(),
            cycles: self.encoding.cycles,
        }
    }

    /// Whether some reachable marking satisfies `target`: a firing sequence to one, `Absent`,
    /// or unknown when a limit stopped the solver (the reason), or `None` when the target's sums
    /// are beyond the encoding or a transition reads a place it also consumes or produces.
    pub fn find(&mut self, target: &Predicate, limits: &Limits) -> Search {
        if !self.in_net(target) {
            return Search::Unknown(None);
        }
        let lit = match self.encoding.predicate(target) {
            Ok(l) => l,
            Err(_) => return Search::Unknown(None),
        };
        match self.encoding.solve(&[lit], limits) {
            Outcome::Sat => {
                let run = self.model_run();
                match self.replay(&run) {
                    Some(state) if target.holds(&self.marking(&state)) => Search::Found(run),
                    _ => {
                        debug_assert!(false, "the model's run {run:?} does not reach the target");
                        Search::Unknown(None)
                    }
                }
            }
            Outcome::Unsat => Search::Absent,
            Outcome::Stopped(r) => Search::Unknown(r),
        }
    }

    /// The largest value of `sum` over the reachable markings: asks for a configuration above
    /// the best value found (from the initial marking's) until there is none. The bound is exact
    /// unless a limit stopped the search (`stopped`), the sum is beyond the encoding (then
    /// `upper` is what the coefficients allow, or `None`), or a transition reads a place it
    /// also consumes or produces (the prefix unfolds such a net otherwise: `upper` is `None`).
    pub fn bound(&mut self, sum: &Linear, limits: &Limits) -> Bound {
        let initial = match self.replay(&[]) {
            Some(state) => sum.value(&self.marking(&state)),
            None => return Bound::default(),
        };
        let mut bound = Bound {
            lower: initial,
            witness: Some(Vec::new()),
            upper: None,
            stopped: None,
        };
        if sum.places().any(|p| p as usize >= self.net.places.len()) {
            return bound;
        }
        let Ok(terms) = self.encoding.linear_terms(sum) else {
            return bound;
        };
        let max = terms.base + terms.span() as i128;
        bound.upper = u64::try_from(max).ok();
        let Some(upper) = bound.upper else {
            return bound;
        };
        // The totaliser grows by doubling its cap, so that a run of improvements rebuilds it
        // only logarithmically often.
        let mut cap = 0u128;
        while bound.lower < upper {
            let need = (bound.lower as i128 + 1 - terms.base).max(0) as u128;
            if need > cap {
                cap = (need * 2).max(8);
            }
            let lit = match self.encoding.at_least(&terms.terms, need, cap) {
                Ok(l) => l,
                Err(_) => return bound,
            };
            match self.encoding.solve(&[lit], limits) {
                Outcome::Sat => {
                    let run = self.model_run();
                    let value = self.replay(&run).map(|s| sum.value(&self.marking(&s)));
                    match value {
                        Some(v) if v > bound.lower => {
                            bound.lower = v;
                            bound.witness = Some(run);
                        }
                        _ => {
                            debug_assert!(false, "the model's run {run:?} does not pass the bound");
                            return bound;
                        }
                    }
                }
                Outcome::Unsat => break,
                Outcome::Stopped(r) => {
                    bound.stopped = Some(r.unwrap_or(StopReason::Interrupted));
                    return bound;
                }
            }
        }
        bound.upper = Some(bound.lower);
        bound
    }

    /// Whether every place and transition `target` names is one of the net's.
    fn in_net(&self, target: &Predicate) -> bool {
        let (np, nt) = (self.net.places.len(), self.net.transitions.len());
        let (mut places_ok, mut transitions_ok) = (true, true);
        target.visit_support(
            &mut |p| places_ok &= (p as usize) < np,
            &mut |t| transitions_ok &= (t as usize) < nt,
            &mut || {},
        );
        places_ok && transitions_ok
    }

    /// The transitions of the last model's configuration, in a firing order.
    fn model_run(&self) -> Vec<TransIdx> {
        let events = self.encoding.model_events();
        self.encoding.transitions(&events)
    }

    /// The state `run` reaches from the initial marking, if every step is enabled.
    fn replay(&self, run: &[TransIdx]) -> Option<Vec<u64>> {
        let mut state = vec![0u64; self.sys.state_words()];
        self.sys.initial_state(&mut state);
        for &t in run {
            if (t as usize) >= self.net.transitions.len() || !self.sys.is_enabled(&state, t) {
                return None;
            }
            self.sys.fire_in_place(&mut state, t).ok()?;
        }
        Some(state)
    }

    fn marking<'s>(&'s self, state: &'s [u64]) -> StateMarking<'s, 'a> {
        StateMarking {
            sys: &self.sys,
            state,
        }
    }
}

/// What [`check_net`] answers: one [`Search`] per target, one [`Bound`] per sum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetAnswers {
    /// Per target, in order.
    pub targets: Vec<Search>,
    /// Per sum, in order.
    pub bounds: Vec<Bound>,
}

/// [`check_net_with`], read arcs unfolded contextually.
pub fn check_net(
    net: &Net,
    targets: &[Predicate],
    sums: &[Linear],
    limits: &Limits,
) -> Result<NetAnswers, NotSafe> {
    check_net_with(net, targets, sums, ReadArcs::Contextual, limits)
}

/// Builds the complete prefix of `net` and decides `targets` and the bounds of `sums` on it,
/// all within `limits`: the contextual prefix (Cunf's order) when the net has read arcs and
/// `read_arcs` says so, else the plain one (the ERV order). A prefix stopped by a limit
/// answers everything unknown; a net that is not safe is an error.
pub fn check_net_with(
    net: &Net,
    targets: &[Predicate],
    sums: &[Linear],
    read_arcs: ReadArcs,
    limits: &Limits,
) -> Result<NetAnswers, NotSafe> {
    let stopped = |r: StopReason| NetAnswers {
        targets: vec![Search::Unknown(Some(r)); targets.len()],
        bounds: vec![
            Bound {
                stopped: Some(r),
                ..Bound::default()
            };
            sums.len()
        ],
    };
    let answer = |mut checker: PrefixChecker| NetAnswers {
        targets: targets.iter().map(|t| checker.find(t, limits)).collect(),
        bounds: sums.iter().map(|s| checker.bound(s, limits)).collect(),
    };
    if read_arcs == ReadArcs::Contextual && net.read_arc_count() > 0 {
        let run = contextual::explore(
            net,
            &contextual::ContextualOptions::default(),
            limits,
            &mut |_| {},
        )?;
        if let Some(r) = run.stopped {
            return Ok(stopped(r));
        }
        return Ok(answer(PrefixChecker::contextual(net, &run.prefix)));
    }
    let options = PrefixOptions {
        order: Order::Erv,
        deadlock: false,
    };
    let run = prefix::explore(net, &options, limits, &mut |_| {})?;
    if let Some(r) = run.stopped {
        return Ok(stopped(r));
    }
    Ok(answer(PrefixChecker::new(net, &run.prefix)))
}
