//! The configurations of a complete prefix as clauses, and state predicates over their markings.
//!
//! One variable `x_e` per non-cutoff event says whether `e` is in the configuration `C`:
//!
//! * causal closure: `x_e → x_f` for every immediate cause `f` of `e` (in a contextual prefix
//!   the producers of its context too);
//! * conflict-freeness: at most one consumer of every condition;
//! * in a contextual prefix, no cycle of asymmetric conflict: added lazily, by
//!   [`Encoding::solve`] ([`super::asymmetric`]);
//! * the cut: a condition `c` is marked iff its producer is in `C` (initial conditions are
//!   produced) and none of its consumers is (readers do not consume): `m_c ⇔ x_•c ∧ ⋀ ¬x_e`;
//! * the marking: `M(p) ⇔ ⋁ m_c` over the conditions of `p` (in a safe net at most one is
//!   marked, so `M(p) ∈ {0, 1}` is the token count).
//!
//! Cutoff events are left out (fixed false): every reachable marking is the marking of a
//! configuration without cutoffs (Esparza, Römer and Vogler's completeness: a least
//! configuration reaching a marking contains no cutoff, else the cutoff's correspondent gives a
//! smaller one), and every configuration of the prefix is one of the unfolding, whose marking is
//! reachable. So a predicate holds at some reachable marking iff the clauses, with the
//! predicate's literal assumed, are satisfiable. On a contextual prefix the events left out
//! are those without a kept history ([`super::occurrence`] gives the argument).
//!
//! The clauses of the configurations are built once; the literals of places, transitions and
//! sums are built when a target first needs them and kept (they are definitions).

use batsat::Lit;
use rustc_hash::FxHashMap;

use super::asymmetric::Asymmetric;
use super::cnf::{Cnf, Outcome};
use super::occurrence::Occurrence;
use super::sum::{TooLarge, Totalizer};
use crate::explore::limits::Limits;
use crate::explore::prefix::NONE;
use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::property::{Cmp, Linear, Predicate};

/// The most clauses one sum's totaliser may add.
const SUM_BUDGET: u64 = 1 << 24;

/// The most cycles of asymmetric conflict forbidden after one model.
const CYCLES_PER_MODEL: usize = 64;

/// The configurations of a prefix as clauses, with the literals built so far.
pub(super) struct Encoding<'a> {
    net: &'a Net,
    occ: Occurrence<'a>,
    pub(super) cnf: Cnf,
    /// The edges of asymmetric conflict (none on a plain prefix).
    asymmetric: Asymmetric,
    /// Cycles of asymmetric conflict forbidden so far (the lazy clauses).
    pub(super) cycles: u64,
    /// `x_e` per event (the constant false for cutoffs).
    events: Vec<Lit>,
    /// Per place, its conditions not produced by a cutoff.
    conditions_of: Vec<Vec<u32>>,
    /// Per condition, the literals of its non-cutoff consumers.
    consumers: Vec<Vec<Lit>>,
    marked: Vec<Option<Lit>>,
    enabled: Vec<Option<Lit>>,
    dead: Option<Lit>,
    sums: FxHashMap<Vec<(Lit, u64)>, Totalizer>,
}

/// A sum of token counts as the literals of the encoding: `base + Σ wᵢ·lᵢ`.
pub(super) struct Terms {
    /// The part that does not depend on the configuration.
    pub(super) base: i128,
    /// `(literal, weight)`, weights above 0, sorted by literal, distinct literals.
    pub(super) terms: Vec<(Lit, u64)>,
}

impl Terms {
    /// The largest value the literals can add.
    pub(super) fn span(&self) -> u128 {
        self.terms.iter().map(|&(_, w)| w as u128).sum()
    }
}

impl<'a> Encoding<'a> {
    /// The clauses of the configurations of `occ`, a complete prefix of `net`.
    pub(super) fn new(net: &'a Net, occ: Occurrence<'a>) -> Self {
        let mut cnf = Cnf::new();
        let f = cnf.constant(false);
        // Small configurations first: the solver tries events out of the configuration first,
        // which keeps witnesses short.
        let events: Vec<Lit> = (0..occ.events())
            .map(|e| if occ.usable(e) { cnf.fresh(true) } else { f })
            .collect();
        for (e, &x) in events.iter().enumerate() {
            if x == f {
                continue;
            }
            for &c in occ.causes(e as u32).iter() {
                let xc = events[c as usize];
                cnf.add(&[!x, xc]);
            }
        }
        let mut consumers: Vec<Vec<Lit>> = vec![Vec::new(); occ.conditions() as usize];
        for (e, &x) in events.iter().enumerate() {
            if x != f {
                for &c in occ.preset(e as u32) {
                    consumers[c as usize].push(x);
                }
            }
        }
        for cs in &consumers {
            if cs.len() > 1 {
                cnf.at_most_one(cs);
            }
        }
        let asymmetric = Asymmetric::new(occ);
        for (e, g) in asymmetric.two_cycles() {
            cnf.add(&[!events[e as usize], !events[g as usize]]);
        }
        let mut conditions_of = vec![Vec::new(); net.places.len()];
        for c in 0..occ.conditions() {
            let producer = occ.producer(c);
            if producer == NONE || occ.usable(producer) {
                conditions_of[occ.place(c) as usize].push(c);
            }
        }
        Encoding {
            net,
            occ,
            cnf,
            asymmetric,
            cycles: 0,
            events,
            conditions_of,
            consumers,
            marked: vec![None; net.places.len()],
            enabled: vec![None; net.transitions.len()],
            dead: None,
            sums: FxHashMap::default(),
        }
    }

    /// Solves under `assumptions` for a configuration: on a contextual prefix, a model whose
    /// events have cycles of asymmetric conflict gets clauses against them and the solver is
    /// asked again, until a model has none or there is no model.
    pub(super) fn solve(&mut self, assumptions: &[Lit], limits: &Limits) -> Outcome {
        loop {
            let outcome = self.cnf.solve(assumptions, limits);
            if outcome != Outcome::Sat || !self.occ.contextual() {
                return outcome;
            }
            let chosen: Vec<bool> = self.events.iter().map(|&x| self.cnf.value(x)).collect();
            let cycles = self.asymmetric.cycles(&chosen, CYCLES_PER_MODEL);
            if cycles.is_empty() {
                return outcome;
            }
            for readers in cycles {
                let clause: Vec<Lit> = readers.iter().map(|&e| !self.events[e as usize]).collect();
                self.cnf.add(&clause);
                self.cycles += 1;
            }
        }
    }

    /// The events of the last model (of [`Encoding::solve`]) in a firing order of its
    /// configuration: by id on a plain prefix (causes come first), else a linearisation of
    /// asymmetric conflict.
    pub(super) fn model_events(&self) -> Vec<u32> {
        let events: Vec<u32> = (0..self.events.len() as u32)
            .filter(|&e| self.cnf.value(self.events[e as usize]))
            .collect();
        if self.occ.contextual() {
            self.asymmetric.linearise(&events)
        } else {
            events
        }
    }

    /// The transitions of `events`.
    pub(super) fn transitions(&self, events: &[u32]) -> Vec<TransIdx> {
        events.iter().map(|&e| self.occ.transition(e)).collect()
    }

    /// `M(p) = 1`.
    pub(super) fn marked(&mut self, p: PlaceIdx) -> Lit {
        if let Some(l) = self.marked[p as usize] {
            return l;
        }
        let mut cut = Vec::with_capacity(self.conditions_of[p as usize].len());
        for i in 0..self.conditions_of[p as usize].len() {
            let c = self.conditions_of[p as usize][i];
            let producer = self.occ.producer(c);
            let mut conj = vec![if producer == NONE {
                self.cnf.constant(true)
            } else {
                self.events[producer as usize]
            }];
            conj.extend(self.consumers[c as usize].iter().map(|&x| !x));
            cut.push(self.cnf.and(&conj));
        }
        let l = self.cnf.or(&cut);
        self.marked[p as usize] = Some(l);
        l
    }

    /// `t` is enabled (at most one token per place: an arc of weight above 1 never is).
    pub(super) fn enabled(&mut self, t: TransIdx) -> Lit {
        if let Some(l) = self.enabled[t as usize] {
            return l;
        }
        let tr = &self.net.transitions[t as usize];
        let l = if tr.pre.iter().chain(&tr.reads).any(|a| a.weight > 1) {
            self.cnf.constant(false)
        } else {
            let places: Vec<PlaceIdx> = tr.pre.iter().chain(&tr.reads).map(|a| a.place).collect();
            let lits: Vec<Lit> = places.into_iter().map(|p| self.marked(p)).collect();
            self.cnf.and(&lits)
        };
        self.enabled[t as usize] = Some(l);
        l
    }

    /// No transition is enabled.
    fn deadlock(&mut self) -> Lit {
        if let Some(l) = self.dead {
            return l;
        }
        let some: Vec<Lit> = (0..self.net.transitions.len() as TransIdx)
            .map(|t| self.enabled(t))
            .collect();
        let l = !self.cnf.or(&some);
        self.dead = Some(l);
        l
    }

    /// A literal equivalent to `p` at the configuration's marking.
    pub(super) fn predicate(&mut self, p: &Predicate) -> Result<Lit, TooLarge> {
        Ok(match p {
            Predicate::Bool(b) => self.cnf.constant(*b),
            Predicate::Deadlock => self.deadlock(),
            Predicate::Fireable(ts) => {
                let lits: Vec<Lit> = ts.iter().map(|&t| self.enabled(t)).collect();
                self.cnf.or(&lits)
            }
            Predicate::Compare(a, c, b) => self.compare(a, *c, b)?,
            Predicate::Not(q) => !self.predicate(q)?,
            Predicate::And(qs) | Predicate::Or(qs) => {
                let lits = qs
                    .iter()
                    .map(|q| self.predicate(q))
                    .collect::<Result<Vec<_>, _>>()?;
                if matches!(p, Predicate::And(_)) {
                    self.cnf.and(&lits)
                } else {
                    self.cnf.or(&lits)
                }
            }
        })
    }

    /// `Σ kₚ·M(p)` for the coefficients `coeff` (signed, places distinct) as terms, in the
    /// smaller of two forms:
    ///
    /// * over places: the literals `M(p)`;
    /// * over events: a condition is marked iff produced and not consumed, and consumed only
    ///   once and after it is produced, so `M(p)` is the number of conditions of `p` initial or
    ///   produced by `C` minus those consumed by `C`, and the sum is
    ///   `Σ_{initial c} k_c + Σ_{e ∈ C} (Σ_{c ∈ e•} k_c − Σ_{c ∈ •e} k_c)`. Where transitions
    ///   keep the sum constant (a place invariant), most events weigh 0 and the solver proves
    ///   a bound at once instead of counting tokens place by place.
    fn place_sum(&mut self, coeff: &[(PlaceIdx, i128)]) -> Result<Terms, TooLarge> {
        let mut dense = vec![0i128; self.net.places.len()];
        for &(p, k) in coeff {
            dense[p as usize] += k;
        }
        let places = dense.iter().filter(|&&k| k != 0).count();
        let occ = self.occ;
        let of = |c: u32| dense[occ.place(c) as usize];
        let base: i128 = (0..occ.initial()).map(of).sum();
        let weights: Vec<(Lit, i128)> = (0..self.events.len() as u32)
            .filter(|&e| occ.usable(e))
            .map(|e| {
                let made: i128 = occ.postset(e).map(of).sum();
                let used: i128 = occ.preset(e).iter().map(|&c| of(c)).sum();
                (self.events[e as usize], made - used)
            })
            .filter(|&(_, w)| w != 0)
            .collect();
        if weights.len() < places {
            return self.normalise(base, weights);
        }
        let weights: Vec<(Lit, i128)> = (0..dense.len() as PlaceIdx)
            .filter(|&p| dense[p as usize] != 0)
            .map(|p| (self.marked(p), dense[p as usize]))
            .collect();
        self.normalise(0, weights)
    }

    /// `base + Σ kᵢ·lᵢ` (signed weights) with weights above 0 (`−k·l = k·¬l − k`), constants
    /// folded, one term per variable.
    fn normalise(&self, mut base: i128, weights: Vec<(Lit, i128)>) -> Result<Terms, TooLarge> {
        let mut by_var: FxHashMap<Lit, i128> = FxHashMap::default();
        for (l, k) in weights {
            match self.cnf.as_constant(l) {
                Some(true) => base += k,
                Some(false) => {}
                // k·¬x = k − k·x.
                None if l.sign() => *by_var.entry(l).or_default() += k,
                None => {
                    base += k;
                    *by_var.entry(!l).or_default() -= k;
                }
            }
        }
        let mut terms = Vec::with_capacity(by_var.len());
        for (x, k) in by_var {
            let w = u64::try_from(k.unsigned_abs()).map_err(|_| TooLarge)?;
            match k.signum() {
                1 => terms.push((x, w)),
                -1 => {
                    base += k;
                    terms.push((!x, w));
                }
                _ => {}
            }
        }
        terms.sort_unstable();
        Ok(Terms { base, terms })
    }

    /// The terms of a linear sum (its constant in the base).
    pub(super) fn linear_terms(&mut self, sum: &Linear) -> Result<Terms, TooLarge> {
        let coeff: Vec<(PlaceIdx, i128)> = sum.terms.iter().map(|&(p, k)| (p, k as i128)).collect();
        let mut t = self.place_sum(&coeff)?;
        t.base += sum.constant as i128;
        Ok(t)
    }

    /// `Σ wᵢ·lᵢ ≥ k` over `terms`; `cap` (at least `k`) is the truncation of a totaliser built
    /// for it, so that later calls up to `cap` reuse it.
    pub(super) fn at_least(
        &mut self,
        terms: &[(Lit, u64)],
        k: u128,
        cap: u128,
    ) -> Result<Lit, TooLarge> {
        let span: u128 = terms.iter().map(|&(_, w)| w as u128).sum();
        if k == 0 {
            return Ok(self.cnf.constant(true));
        }
        if k > span {
            return Ok(self.cnf.constant(false));
        }
        // k ≤ span ≤ Σ of 64-bit weights; a cap beyond the span is useless.
        let k = u64::try_from(k).map_err(|_| TooLarge)?;
        if let Some(t) = self.sums.get(terms)
            && t.cap >= k
        {
            return Ok(t.at_least(&self.cnf, k));
        }
        let cap = u64::try_from(cap.clamp(k as u128, span)).map_err(|_| TooLarge)?;
        let t = Totalizer::build(&mut self.cnf, terms, cap, SUM_BUDGET)?;
        let l = t.at_least(&self.cnf, k);
        self.sums.insert(terms.to_vec(), t);
        Ok(l)
    }

    /// `a ⋈ b`.
    fn compare(&mut self, a: &Linear, c: Cmp, b: &Linear) -> Result<Lit, TooLarge> {
        // `Linear::value` saturates at 2⁶⁴ − 1; the sums here are exact, so both sides must fit.
        let max =
            |l: &Linear| l.terms.iter().map(|&(_, k)| k as u128).sum::<u128>() + l.constant as u128;
        if max(a) > u64::MAX as u128 || max(b) > u64::MAX as u128 {
            return Err(TooLarge);
        }
        // a ⋈ b  ⇔  Σ (aₚ − bₚ)·M(p) ⋈ b₀ − a₀  ⇔  Σ wᵢ·lᵢ ⋈ b₀ − a₀ − base =: d.
        let coeff: Vec<(PlaceIdx, i128)> = a
            .terms
            .iter()
            .map(|&(p, k)| (p, k as i128))
            .chain(b.terms.iter().map(|&(p, k)| (p, -(k as i128))))
            .collect();
        let t = self.place_sum(&coeff)?;
        let d = b.constant as i128 - a.constant as i128 - t.base;
        let span = t.span() as i128;
        // `terms ≥ k` for any integer k.
        let ge = |this: &mut Self, k: i128, cap: i128| -> Result<Lit, TooLarge> {
            if k <= 0 {
                Ok(this.cnf.constant(true))
            } else if k > span {
                Ok(this.cnf.constant(false))
            } else {
                this.at_least(&t.terms, k as u128, cap.max(k) as u128)
            }
        };
        Ok(match c {
            Cmp::Ge => ge(self, d, d)?,
            Cmp::Gt => ge(self, d + 1, d + 1)?,
            Cmp::Le => !ge(self, d + 1, d + 1)?,
            Cmp::Lt => !ge(self, d, d)?,
            Cmp::Eq | Cmp::Ne => {
                // The larger threshold first: one totaliser serves both.
                let above = ge(self, d + 1, d + 1)?;
                let at_least = ge(self, d, d + 1)?;
                let eq = self.cnf.and(&[at_least, !above]);
                if c == Cmp::Eq { eq } else { !eq }
            }
        })
    }
}
