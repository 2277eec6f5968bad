//! Weighted sums of literals compared with a constant: a generalised totaliser (Joshi, Martins
//! and Manquinho, 2015) truncated at a cap.
//!
//! A binary tree over the terms `wᵢ·lᵢ` gives every node the set of values its subtree's sum can
//! take, values at or above the cap merged into the cap, and one literal `o_v` per value `v > 0`
//! with `o_v ⇔ (sum ≥ v)` (both directions, so a comparison may be negated). With unit weights
//! this is the classic totaliser, `O(n·cap)` clauses per level; distinct weights can make the
//! sets larger, which a clause budget bounds.

use batsat::Lit;

use super::cnf::Cnf;

/// The encoding would pass its clause budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TooLarge;

/// Literals `o_v ⇔ Σ wᵢ·lᵢ ≥ v` for the values `0 < v ≤ cap` the sum can take (capped).
#[derive(Clone, Debug)]
pub(super) struct Totalizer {
    /// `(v, o_v)` by increasing `v`.
    outputs: Vec<(u64, Lit)>,
    /// The cap: `o_cap` means a sum of at least `cap`.
    pub(super) cap: u64,
}

impl Totalizer {
    /// The totaliser of `terms` (weights above 0) truncated at `cap` (at least 1), adding at
    /// most `budget` clauses.
    pub(super) fn build(
        cnf: &mut Cnf,
        terms: &[(Lit, u64)],
        cap: u64,
        budget: u64,
    ) -> Result<Totalizer, TooLarge> {
        let cap = cap.max(1);
        let mut spent = 0u64;
        let outputs = if terms.is_empty() {
            Vec::new()
        } else {
            node(cnf, terms, cap, budget, &mut spent)?
        };
        Ok(Totalizer { outputs, cap })
    }

    /// A literal equivalent to `sum ≥ k`, for `k ≤ cap`.
    pub(super) fn at_least(&self, cnf: &Cnf, k: u64) -> Lit {
        debug_assert!(k <= self.cap);
        if k == 0 {
            return cnf.constant(true);
        }
        // The sum takes only the listed values, so `sum ≥ k` is `sum ≥` the least listed value
        // at or above `k`.
        match self.outputs.iter().find(|&&(v, _)| v >= k) {
            Some(&(_, o)) => o,
            None => cnf.constant(false),
        }
    }
}

/// The outputs of the subtree over `terms` (non-empty).
fn node(
    cnf: &mut Cnf,
    terms: &[(Lit, u64)],
    cap: u64,
    budget: u64,
    spent: &mut u64,
) -> Result<Vec<(u64, Lit)>, TooLarge> {
    if let [(l, w)] = terms {
        return Ok(vec![((*w).min(cap), *l)]);
    }
    let (left, right) = terms.split_at(terms.len() / 2);
    let a = node(cnf, left, cap, budget, spent)?;
    let b = node(cnf, right, cap, budget, spent)?;
    // Upward, downward and chain clauses: at most (|a| + 1)(|b| + 1) of each of the first two.
    let cost = 2 * (a.len() as u64 + 1) * (b.len() as u64 + 1);
    *spent = spent.saturating_add(cost);
    if *spent > budget {
        return Err(TooLarge);
    }
    Ok(merge(cnf, &a, &b, cap))
}

/// The outputs of a node whose children have outputs `a` and `b`.
fn merge(cnf: &mut Cnf, a: &[(u64, Lit)], b: &[(u64, Lit)], cap: u64) -> Vec<(u64, Lit)> {
    let t = cnf.constant(true);
    // Each child's values with 0 first (its literal true).
    let with_zero = |xs: &[(u64, Lit)]| {
        let mut out = vec![(0u64, t)];
        out.extend_from_slice(xs);
        out
    };
    let (a, b) = (with_zero(a), with_zero(b));
    let mut values: Vec<u64> = Vec::with_capacity(a.len() * b.len());
    for &(x, _) in &a {
        for &(y, _) in &b {
            let s = x.saturating_add(y).min(cap);
            if s > 0 {
                values.push(s);
            }
        }
    }
    values.sort_unstable();
    values.dedup();
    let outputs: Vec<(u64, Lit)> = values.iter().map(|&v| (v, cnf.fresh(false))).collect();
    let out = |v: u64| outputs[outputs.binary_search_by_key(&v, |o| o.0).unwrap()].1;
    // A larger value implies a smaller one.
    for w in outputs.windows(2) {
        cnf.add(&[!w[1].1, w[0].1]);
    }
    for (i, &(x, lx)) in a.iter().enumerate() {
        for (j, &(y, ly)) in b.iter().enumerate() {
            let s = x.saturating_add(y);
            // Upward: both children at least x and y make the node at least x + y (capped).
            if s > 0 {
                let mut clause = vec![out(s.min(cap))];
                if i > 0 {
                    clause.push(!lx);
                }
                if j > 0 {
                    clause.push(!ly);
                }
                cnf.add(&clause);
            }
            // Downward: children below their next values (so exactly x and y when below the
            // cap) make the node below the least value above x + y.
            if s >= cap {
                continue;
            }
            let Some(&(_, above)) = outputs.get(outputs.partition_point(|o| o.0 <= s)) else {
                continue;
            };
            let mut clause = vec![!above];
            if let Some(&(_, next)) = a.get(i + 1) {
                clause.push(next);
            }
            if let Some(&(_, next)) = b.get(j + 1) {
                clause.push(next);
            }
            cnf.add(&clause);
        }
    }
    outputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::prefix_sat::cnf::Outcome;
    use crate::explore::limits::Limits;

    /// Under every assignment, `at_least(k)` holds exactly when the weighted sum reaches `k`.
    #[test]
    fn outputs_are_equivalent_to_the_comparison() {
        let cases: [&[u64]; 5] = [
            &[1, 1, 1, 1, 1],
            &[2, 3, 5],
            &[1, 4, 4, 1],
            &[7],
            &[3, 1, 2, 6],
        ];
        let limits = Limits::default();
        for weights in cases {
            let total: u64 = weights.iter().sum();
            for cap in 1..=total + 1 {
                let mut cnf = Cnf::new();
                let xs: Vec<Lit> = weights.iter().map(|_| cnf.fresh(false)).collect();
                let terms: Vec<(Lit, u64)> =
                    xs.iter().copied().zip(weights.iter().copied()).collect();
                let tot = Totalizer::build(&mut cnf, &terms, cap, u64::MAX).unwrap();
                for bits in 0..1u32 << xs.len() {
                    let sum: u64 = (0..xs.len())
                        .filter(|&i| bits >> i & 1 == 1)
                        .map(|i| weights[i])
                        .sum();
                    let assume: Vec<Lit> = (0..xs.len())
                        .map(|i| if bits >> i & 1 == 1 { xs[i] } else { !xs[i] })
                        .collect();
                    for k in 0..=cap {
                        let o = tot.at_least(&cnf, k);
                        let mut a = assume.clone();
                        a.push(if sum >= k { !o } else { o });
                        assert_eq!(
                            cnf.solve(&a, &limits),
                            Outcome::Unsat,
                            "weights {weights:?} cap {cap} bits {bits:b} k {k}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_small_budget_is_refused() {
        let mut cnf = Cnf::new();
        let terms: Vec<(Lit, u64)> = (0..64).map(|_| (cnf.fresh(false), 1)).collect();
        assert_eq!(
            Totalizer::build(&mut cnf, &terms, 32, 100).unwrap_err(),
            TooLarge
        );
    }
}
