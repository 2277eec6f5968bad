//! Intervals of token counts over the reachable markings: of each place, from the semiflows'
//! equations and the constant places, and of linear sums of counts.
//!
//! Every reachable marking `M` satisfies `y·M = y·M₀` for every semiflow `y`, `M(p) = M₀(p)`
//! on a constant place, and `d·M = d·M₀` whenever `d·C(·, t) = 0` for every transition `t`
//! that may fire (a P-invariant, not necessarily non-negative: `M = M₀ + Σ C(·, t)` over the
//! firings). The bounds below are consequences of these equations and `M ≥ 0`.

use std::collections::{HashMap, HashSet, VecDeque};

use super::Facts;
use super::semiflows::Semiflow;
use crate::model::net::PlaceIdx;

/// Bounds of each place's count over the reachable markings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceBounds {
    /// By place: no reachable marking has fewer tokens.
    pub lower: Vec<u64>,
    /// By place: no reachable marking has more tokens; `None` when no bound is known.
    pub upper: Vec<Option<u64>>,
}

/// The values a sum takes over the reachable markings lie in `[lower, upper]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// No reachable marking gives less.
    pub lower: u128,
    /// No reachable marking gives more; `None` when no bound is known.
    pub upper: Option<u128>,
}

impl Interval {
    /// The interval of one value.
    pub fn exact(v: u128) -> Interval {
        Interval {
            lower: v,
            upper: Some(v),
        }
    }

    /// Whether the interval holds one value.
    pub fn is_exact(&self) -> bool {
        self.upper == Some(self.lower)
    }
}

/// What one semiflow `y` with value `c = y·M₀` says of the places of its support, given
/// bounds `[lower, upper]` of each (`bound`): `y_p·M(p) = c − Σ_{q≠p} y_q·M(q)`, so
/// `M(p) ≤ ⌊(c − Σ_{q≠p} y_q·lower(q)) / y_p⌋` and, when the other places are bounded,
/// `M(p) ≥ ⌈(c − Σ_{q≠p} y_q·upper(q)) / y_p⌉`. Calls `tighter` with each place whose
/// bounds this narrows, and the new bounds. `Err(())` when no marking within the bounds
/// satisfies the equation (`Σ y·lower > c`, or `Σ y·upper < c`).
fn tighten(
    y: &Semiflow,
    c: u128,
    bound: impl Fn(PlaceIdx) -> (u64, Option<u64>),
    mut tighter: impl FnMut(PlaceIdx, u64, Option<u64>),
) -> Result<(), ()> {
    let snapshot: Vec<(PlaceIdx, u128, u64, Option<u64>)> = y
        .weights
        .iter()
        .map(|&(p, w)| {
            let (lo, hi) = bound(p);
            (p, w as u128, lo, hi)
        })
        .collect();
    // Each product is below 2¹²⁸ (a weight below 2⁶³ times a count below 2⁶⁴); a sum that
    // does not fit says nothing: no lower end (and nothing at all) from `low`, no upper end
    // from `high`.
    let Some(low) = sum_opt(snapshot.iter().map(|s| Some(s.1 * s.2 as u128))) else {
        return Ok(());
    };
    let high = sum_opt(
        snapshot
            .iter()
            .filter_map(|s| s.3.map(|h| Some(s.1 * h as u128))),
    );
    let unbounded = match high {
        Some(_) => snapshot.iter().filter(|s| s.3.is_none()).count(),
        None => snapshot.len() + 2,
    };
    let high = high.unwrap_or(0);
    if low > c || (unbounded == 0 && high < c) {
        return Err(());
    }
    for &(p, w, lo, hi) in &snapshot {
        let others_low = low - w * lo as u128;
        let up = u64::try_from((c - others_low) / w).ok();
        let others_high = match (unbounded, hi) {
            (0, Some(hi)) => Some(high - w * hi as u128),
            (1, None) => Some(high),
            _ => None,
        };
        let down = match others_high {
            Some(oh) if c > oh => u64::try_from((c - oh).div_ceil(w)).unwrap_or(u64::MAX),
            _ => 0,
        };
        let (new_lo, new_hi) = (
            lo.max(down),
            match (hi, up) {
                (Some(h), Some(u)) => Some(h.min(u)),
                (h, u) => h.or(u),
            },
        );
        if (new_lo, new_hi) != (lo, hi) {
            tighter(p, new_lo, new_hi);
        }
    }
    Ok(())
}

/// Place bounds by propagation over the semiflows ([`tighten`] with each, for `rounds`
/// rounds or until nothing changes): constant places are pinned to their initial count, the
/// others start at `[0, ∞)`.
///
/// *Soundness*: by induction over the rounds every bound holds on every reachable marking, as
/// each is implied by an equation that does and by bounds that do.
pub fn place_bounds(
    initial: &[u64],
    constant: &[bool],
    flows: &[Semiflow],
    values: &[u128],
    rounds: usize,
) -> PlaceBounds {
    let mut b = PlaceBounds {
        lower: (0..initial.len())
            .map(|p| if constant[p] { initial[p] } else { 0 })
            .collect(),
        upper: (0..initial.len())
            .map(|p| constant[p].then_some(initial[p]))
            .collect(),
    };
    let mut changes: Vec<(PlaceIdx, u64, Option<u64>)> = Vec::new();
    for _ in 0..rounds {
        let mut changed = false;
        for (y, &c) in flows.iter().zip(values) {
            changes.clear();
            let bound = |p: PlaceIdx| (b.lower[p as usize], b.upper[p as usize]);
            // The reachable markings satisfy the equation within their bounds, so it is
            // always satisfiable (the initial marking does).
            let ok = tighten(y, c, bound, |p, lo, hi| changes.push((p, lo, hi)));
            debug_assert!(ok.is_ok(), "the initial marking satisfies every semiflow");
            for &(p, lo, hi) in &changes {
                b.lower[p as usize] = lo;
                b.upper[p as usize] = hi;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    b
}

/// The most semiflow weights [`Facts::feasible`] looks at.
const FEASIBLE_WORK: usize = 1 << 20;

/// The sum of `terms`, `None` when one is unknown or on overflow.
fn sum_opt(mut terms: impl Iterator<Item = Option<u128>>) -> Option<u128> {
    terms.try_fold(0u128, |a, x| a.checked_add(x?))
}

/// `⌊k·r / w⌋` or `⌈k·r / w⌉`, `None` on overflow.
fn scaled(k: u64, r: u128, w: u64, round_up: bool) -> Option<u128> {
    let n = (k as u128).checked_mul(r)?;
    Some(if round_up {
        n.div_ceil(w as u128)
    } else {
        n / w as u128
    })
}

impl Facts {
    /// Whether some marking might satisfy `M(p) ∈ [lower, upper]` for each restriction
    /// `(p, lower, upper)` and be reachable. `false` proves that no reachable marking
    /// satisfies the restrictions: bounds propagated from them over the semiflows
    /// ([`tighten`], from the places' own bounds) cross, or a semiflow's equation has no
    /// solution within them. (Each propagated bound holds on every reachable marking that
    /// satisfies the restrictions, by induction as in [`place_bounds`].)
    ///
    /// Looks at [`FEASIBLE_WORK`] semiflow weights at most (then `true`: not refuted); see
    /// [`feasible_within`](Self::feasible_within).
    pub fn feasible(&self, restrictions: &[(PlaceIdx, u64, Option<u64>)]) -> bool {
        self.feasible_within(restrictions, FEASIBLE_WORK)
    }

    /// As [`feasible`](Self::feasible), looking at `work` semiflow weights at most (then
    /// `true`: not refuted).
    pub fn feasible_within(
        &self,
        restrictions: &[(PlaceIdx, u64, Option<u64>)],
        mut work: usize,
    ) -> bool {
        let mut local: HashMap<PlaceIdx, (u64, Option<u64>)> = HashMap::new();
        let mut queue: VecDeque<u32> = VecDeque::new();
        let mut queued: HashSet<u32> = HashSet::new();
        let crossed = |(lo, hi): (u64, Option<u64>)| hi.is_some_and(|h| h < lo);
        for &(p, lo, hi) in restrictions {
            let (l, h) = local
                .get(&p)
                .copied()
                .unwrap_or((self.lower(p), self.upper(p)));
            if lo <= l && hi.is_none_or(|hi| h.is_some_and(|h| h <= hi)) {
                continue; // Already known.
            }
            let new = (
                l.max(lo),
                match (h, hi) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
            );
            if crossed(new) {
                return false;
            }
            local.insert(p, new);
            for &f in self.flows_of.row(p as usize) {
                if queued.insert(f) {
                    queue.push_back(f);
                }
            }
        }
        while let Some(f) = queue.pop_front() {
            queued.remove(&f);
            let y = &self.semiflows.flows[f as usize];
            if work < y.weights.len() {
                return true;
            }
            work -= y.weights.len();
            let mut changes: Vec<(PlaceIdx, u64, Option<u64>)> = Vec::new();
            let bound = |p: PlaceIdx| {
                local
                    .get(&p)
                    .copied()
                    .unwrap_or((self.lower(p), self.upper(p)))
            };
            if tighten(y, self.flow_values[f as usize], bound, |p, lo, hi| {
                changes.push((p, lo, hi))
            })
            .is_err()
            {
                return false;
            }
            for (p, lo, hi) in changes {
                if crossed((lo, hi)) {
                    return false;
                }
                local.insert(p, (lo, hi));
                for &g in self.flows_of.row(p as usize) {
                    if g != f && queued.insert(g) {
                        queue.push_back(g);
                    }
                }
            }
        }
        true
    }

    /// The value of `constant + Σ k·M(p)` (signed coefficients) when it is the same on every
    /// reachable marking: when `d·C(·, t) = 0` for every transition `t` that may fire, `d` the
    /// coefficients, the sum never changes, and is its value on the initial marking. `None`
    /// when that does not hold (the sum may still be constant) or on overflow.
    pub fn invariant_value(&self, constant: i128, terms: &[(PlaceIdx, i64)]) -> Option<i128> {
        let coefficient = |p: PlaceIdx| {
            terms
                .binary_search_by_key(&p, |&(q, _)| q)
                .map_or(0, |i| terms[i].1 as i128)
        };
        debug_assert!(terms.windows(2).all(|w| w[0].0 < w[1].0));
        for &(p, _) in terms {
            for &t in self.changers.row(p as usize) {
                let change = self
                    .effects
                    .row(t as usize)
                    .iter()
                    .try_fold(0i128, |acc, &(q, e)| {
                        acc.checked_add(coefficient(q) * e as i128)
                    });
                if change != Some(0) {
                    return None;
                }
            }
        }
        terms.iter().try_fold(constant, |acc, &(p, k)| {
            acc.checked_add((k as i128).checked_mul(self.initial(p) as i128)?)
        })
    }

    /// An interval holding `constant + Σ k·M(p)` (coefficients at least 1, places sorted and
    /// distinct) on every reachable marking. The best of:
    /// - the exact value when the sum is a P-invariant ([`invariant_value`](Self::invariant_value));
    /// - the place bounds, term by term;
    /// - for each semiflow `y` meeting the sum, on `G` (the sum's places in `y`'s support):
    ///   `Σ_G k_p·M(p) ≤ max_G(k_p/y_p)·Σ_G y_p·M(p)` and `≥ min_G(k_p/y_p)·Σ_G y_p·M(p)`,
    ///   where `Σ_G y_p·M(p) = y·M₀ − Σ_{q∉G} y_q·M(q)` is bounded by the other places'
    ///   bounds; the places of the sum outside `G` by their own bounds.
    pub fn sum_interval(&self, constant: u64, terms: &[(PlaceIdx, u64)]) -> Interval {
        let signed: Option<Vec<(PlaceIdx, i64)>> = terms
            .iter()
            .map(|&(p, k)| Some((p, i64::try_from(k).ok()?)))
            .collect();
        if let Some(v) = signed
            .and_then(|s| self.invariant_value(constant as i128, &s))
            .and_then(|v| u128::try_from(v).ok())
        {
            return Interval::exact(v);
        }
        // Saturating: a lower end that does not fit is still below the value.
        let term_lower =
            |&(p, k): &(PlaceIdx, u64)| (k as u128).saturating_mul(self.lower(p) as u128);
        let term_upper = |&(p, k): &(PlaceIdx, u64)| {
            self.upper(p)
                .and_then(|u| (k as u128).checked_mul(u as u128))
        };
        let mut lower = terms
            .iter()
            .map(term_lower)
            .fold(0u128, u128::saturating_add);
        let mut upper = sum_opt(terms.iter().map(term_upper));
        // The semiflows meeting the sum, each once.
        let mut flows: Vec<u32> = terms
            .iter()
            .flat_map(|&(p, _)| self.flows_of.row(p as usize).iter().copied())
            .collect();
        flows.sort_unstable();
        flows.dedup();
        for i in flows {
            let y = &self.semiflows.flows[i as usize];
            let c = self.flow_values[i as usize];
            let (inside, outside): (Vec<_>, Vec<_>) =
                terms.iter().copied().partition(|&(p, _)| y.weight(p) > 0);
            // Σ y_q·M(q) over the support outside the sum: its bounds.
            let rest: Vec<(PlaceIdx, u64)> = y
                .weights
                .iter()
                .copied()
                .filter(|&(p, _)| terms.binary_search_by_key(&p, |t| t.0).is_err())
                .collect();
            let rest_lower = rest
                .iter()
                .map(term_lower)
                .fold(0u128, u128::saturating_add);
            let rest_upper = sum_opt(rest.iter().map(term_upper));
            // The places of the sum in the support with the largest and the smallest k/y.
            let ratio = |&(p, k): &(PlaceIdx, u64)| (k, y.weight(p));
            let by_ratio = |a: &(u64, u64), b: &(u64, u64)| {
                (a.0 as u128 * b.1 as u128).cmp(&(b.0 as u128 * a.1 as u128))
            };
            let max = inside.iter().map(ratio).max_by(by_ratio);
            let min = inside.iter().map(ratio).min_by(by_ratio);
            if let (Some((k, w)), Some(out)) = (max, sum_opt(outside.iter().map(term_upper)))
                && let Some(v) = scaled(k, c.saturating_sub(rest_lower), w, false)
                && let Some(v) = v.checked_add(out)
            {
                upper = Some(upper.map_or(v, |u| u.min(v)));
            }
            if let (Some((k, w)), Some(rest_upper)) = (min, rest_upper)
                && let Some(v) = scaled(k, c.saturating_sub(rest_upper), w, true)
            {
                let out = outside
                    .iter()
                    .map(term_lower)
                    .fold(0u128, u128::saturating_add);
                lower = lower.max(v.saturating_add(out));
            }
        }
        let constant = constant as u128;
        Interval {
            lower: lower.saturating_add(constant),
            upper: upper.and_then(|u| u.checked_add(constant)),
        }
    }
}
