//! The clause layer of the prefix checker: a `batsat` solver (MiniSat's algorithm in Rust), a
//! literal fixed to true for the constants, gates defined by equivalences, at-most-one
//! constraints, and the solver's stop hook on the run's [`Limits`].
//!
//! Every gate is *defined* (its literal is equivalent to the function of its inputs), so clauses
//! for the gates of one target stay in the solver harmlessly when the next target is asked: they
//! constrain only their own fresh variables. A target is asked as an assumption.

use std::cell::Cell;

use batsat::{Callbacks, Lit, Solver, SolverInterface, SolverOpts, lbool};

use crate::explore::limits::{Limits, StopReason};

/// The solver's callbacks: stop when the limits of the current call say so.
#[derive(Default)]
pub(super) struct Stop {
    limits: Option<Limits>,
    reason: Cell<Option<StopReason>>,
}

impl Callbacks for Stop {
    fn stop(&self) -> bool {
        // Called at every decision and conflict; `check_time` is two atomic loads and a clock
        // read.
        match self.limits.as_ref().map(Limits::check_time) {
            Some(Err(r)) => {
                self.reason.set(Some(r));
                true
            }
            _ => false,
        }
    }
}

/// The answer of one solver call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The clauses and assumptions have a model (read it with [`Cnf::value`]).
    Sat,
    /// They have none.
    Unsat,
    /// The call stopped before deciding (a limit, when one is known).
    Stopped(Option<StopReason>),
}

/// Clauses in a solver, with the constant literal and the gates.
pub(super) struct Cnf {
    solver: Solver<Stop>,
    /// A literal fixed to true: `truth` and `!truth` are the constants.
    truth: Lit,
    clauses: u64,
    scratch: Vec<Lit>,
}

impl Cnf {
    /// An empty clause set.
    pub(super) fn new() -> Self {
        let mut solver = Solver::new(SolverOpts::default(), Stop::default());
        let truth = Lit::new(solver.new_var_default(), true);
        let mut cnf = Cnf {
            solver,
            truth,
            clauses: 0,
            scratch: Vec::new(),
        };
        cnf.add(&[truth]);
        cnf
    }

    /// The constant `b`.
    pub(super) fn constant(&self, b: bool) -> Lit {
        if b { self.truth } else { !self.truth }
    }

    /// `Some(b)` when `l` is the constant `b`.
    pub(super) fn as_constant(&self, l: Lit) -> Option<bool> {
        if l == self.truth {
            Some(true)
        } else if l == !self.truth {
            Some(false)
        } else {
            None
        }
    }

    /// A fresh variable's positive literal; the solver tries it false first when `prefer_false`.
    pub(super) fn fresh(&mut self, prefer_false: bool) -> Lit {
        let pol = if prefer_false {
            lbool::FALSE
        } else {
            lbool::UNDEF
        };
        Lit::new(self.solver.new_var(pol, true), true)
    }

    /// Adds the clause `lits` (a disjunction).
    pub(super) fn add(&mut self, lits: &[Lit]) {
        self.scratch.clear();
        self.scratch.extend_from_slice(lits);
        self.clauses += 1;
        // `false` only says the clauses are unsatisfiable from now on; solving says so too.
        let _ = self.solver.add_clause_reuse(&mut self.scratch);
    }

    /// Clauses added.
    pub(super) fn clauses(&self) -> u64 {
        self.clauses
    }

    /// Variables created.
    pub(super) fn variables(&self) -> u32 {
        self.solver.num_vars()
    }

    /// A literal equivalent to the conjunction of `lits` (constants folded, a single literal
    /// returned as it is).
    pub(super) fn and(&mut self, lits: &[Lit]) -> Lit {
        let mut ins: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            match self.as_constant(l) {
                Some(true) => {}
                Some(false) => return self.constant(false),
                None => ins.push(l),
            }
        }
        ins.sort_unstable();
        ins.dedup();
        if ins.windows(2).any(|w| w[0] == !w[1]) {
            return self.constant(false);
        }
        match ins[..] {
            [] => return self.constant(true),
            [l] => return l,
            _ => {}
        }
        let g = self.fresh(false);
        for &l in &ins {
            self.add(&[!g, l]);
        }
        let mut long: Vec<Lit> = ins.iter().map(|&l| !l).collect();
        long.push(g);
        self.add(&long);
        g
    }

    /// A literal equivalent to the disjunction of `lits`.
    pub(super) fn or(&mut self, lits: &[Lit]) -> Lit {
        let negated: Vec<Lit> = lits.iter().map(|&l| !l).collect();
        !self.and(&negated)
    }

    /// At most one of `lits` is true: pairwise for a few, else Sinz's sequential counter
    /// (`n − 1` auxiliary variables, about `3n` binary clauses).
    pub(super) fn at_most_one(&mut self, lits: &[Lit]) {
        if lits.len() <= 5 {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.add(&[!a, !b]);
                }
            }
            return;
        }
        // s_i: some of lits[..=i] is true.
        let mut prev = lits[0];
        for (i, &l) in lits.iter().enumerate().skip(1) {
            self.add(&[!prev, !l]);
            if i + 1 == lits.len() {
                break;
            }
            let s = self.fresh(false);
            self.add(&[!prev, s]);
            self.add(&[!l, s]);
            prev = s;
        }
    }

    /// Solves under `assumptions`, stopping when `limits` say so.
    pub(super) fn solve(&mut self, assumptions: &[Lit], limits: &Limits) -> Outcome {
        if let Err(r) = limits.check_time() {
            return Outcome::Stopped(Some(r));
        }
        let cb = self.solver.cb_mut();
        cb.limits = Some(limits.clone());
        cb.reason.set(None);
        let result = self.solver.solve_limited(assumptions);
        let cb = self.solver.cb_mut();
        cb.limits = None;
        let reason = cb.reason.take();
        if result == lbool::TRUE {
            Outcome::Sat
        } else if result == lbool::FALSE {
            Outcome::Unsat
        } else {
            Outcome::Stopped(reason)
        }
    }

    /// The value of `l` in the model of the last satisfiable call.
    pub(super) fn value(&self, l: Lit) -> bool {
        self.solver.value_lit(l) == lbool::TRUE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every assignment of `inputs` extends to exactly the models where `out` equals `f`.
    fn check_gate(cnf: &mut Cnf, inputs: &[Lit], out: Lit, f: &dyn Fn(&[bool]) -> bool) {
        let limits = Limits::default();
        for bits in 0..1u32 << inputs.len() {
            let values: Vec<bool> = (0..inputs.len()).map(|i| bits >> i & 1 == 1).collect();
            let mut assume: Vec<Lit> = inputs
                .iter()
                .zip(&values)
                .map(|(&l, &v)| if v { l } else { !l })
                .collect();
            let want = f(&values);
            assume.push(if want { out } else { !out });
            assert_eq!(cnf.solve(&assume, &limits), Outcome::Sat, "{values:?}");
            assume.pop();
            assume.push(if want { !out } else { out });
            assert_eq!(cnf.solve(&assume, &limits), Outcome::Unsat, "{values:?}");
        }
    }

    #[test]
    fn gates_are_equivalences() {
        let mut cnf = Cnf::new();
        let xs: Vec<Lit> = (0..3).map(|_| cnf.fresh(false)).collect();
        let and = cnf.and(&xs);
        check_gate(&mut cnf, &xs, and, &|v| v.iter().all(|&b| b));
        let or = cnf.or(&[xs[0], !xs[1], xs[2]]);
        check_gate(&mut cnf, &xs, or, &|v| v[0] || !v[1] || v[2]);
        let t = cnf.constant(true);
        assert_eq!(cnf.and(&[t, xs[1]]), xs[1]);
        assert_eq!(cnf.and(&[xs[0], !xs[0]]), !t);
        assert_eq!(cnf.or(&[]), !t);
        assert_eq!(cnf.and(&[]), t);
    }

    #[test]
    fn at_most_one_allows_exactly_the_sets_of_size_below_two() {
        for n in [2usize, 5, 6, 9] {
            let mut cnf = Cnf::new();
            let xs: Vec<Lit> = (0..n).map(|_| cnf.fresh(false)).collect();
            cnf.at_most_one(&xs);
            let limits = Limits::default();
            for bits in 0..1u32 << n {
                let assume: Vec<Lit> = (0..n)
                    .map(|i| if bits >> i & 1 == 1 { xs[i] } else { !xs[i] })
                    .collect();
                let want = if bits.count_ones() <= 1 {
                    Outcome::Sat
                } else {
                    Outcome::Unsat
                };
                assert_eq!(cnf.solve(&assume, &limits), want, "n={n} bits={bits:b}");
            }
        }
    }

    /// `n + 1` pigeons in `n` holes: unsatisfiable and hard for resolution.
    fn pigeonhole(n: usize) -> Cnf {
        let mut cnf = Cnf::new();
        let x: Vec<Vec<Lit>> = (0..=n)
            .map(|_| (0..n).map(|_| cnf.fresh(false)).collect())
            .collect();
        for row in &x {
            cnf.add(row);
        }
        for h in 0..n {
            let col: Vec<Lit> = x.iter().map(|row| row[h]).collect();
            for (i, &a) in col.iter().enumerate() {
                for &b in &col[i + 1..] {
                    cnf.add(&[!a, !b]);
                }
            }
        }
        cnf
    }

    #[test]
    fn a_limit_stops_a_running_call() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};
        let mut cnf = pigeonhole(11);
        let start = Instant::now();
        let limits = Limits::new(Some(Duration::from_millis(300)), None);
        assert_eq!(
            cnf.solve(&[], &limits),
            Outcome::Stopped(Some(StopReason::Timeout))
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        let flag = Arc::new(AtomicBool::new(false));
        let limits = Limits::default().with_interrupt_flag(flag.clone());
        let signal = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        });
        assert_eq!(
            cnf.solve(&[], &limits),
            Outcome::Stopped(Some(StopReason::Interrupted))
        );
        signal.join().unwrap();
    }

    #[test]
    fn an_expired_limit_stops_the_call() {
        let mut cnf = Cnf::new();
        let x = cnf.fresh(false);
        let limits = Limits::new(Some(std::time::Duration::ZERO), None);
        assert_eq!(
            cnf.solve(&[x], &limits),
            Outcome::Stopped(Some(StopReason::Timeout))
        );
    }
}
