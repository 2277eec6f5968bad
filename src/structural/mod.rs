//! Structural analysis of nets: facts that hold of every reachable marking, found from the
//! net's graph and incidence matrix without exploring any state.
//!
//! - [`semiflows`]: P-semiflows (`y·M = y·M₀` on every reachable marking), by the Farkas
//!   algorithm within a [`Budget`], and, when it cannot finish, 0/1 semiflows through the
//!   places left by a bounded search (`cover`);
//! - [`tsemiflows`]: T-semiflows (`C·x = 0`), the Farkas algorithm on the transposed
//!   incidence: in a bounded net, transitions outside their supports fire finitely often;
//! - [`dead`]: transitions that can never fire, places whose marking never changes;
//! - [`reduce`]: structural reductions preserving deadlocks, reachability or LTL-X, with the
//!   map back to the original net;
//! - [`bounds`]: intervals of place counts and of linear sums of counts, from the two above;
//! - [`state_equation`]: upper bounds of linear sums from the state equation `M = M₀ + C·x`,
//!   by LP, each certified by a dual vector checked in exact arithmetic;
//! - [`traps`]: deadlock freedom when every set of places that could be empty at a dead
//!   marking holds an initially marked trap (a SAT search over such sets).
//!
//! - [`summary`]: what they say of the net as a whole (`unfold info`).
//!
//! [`Facts`] gathers them for one net, computed once. Every fact is sound on its own: it holds
//! of every reachable marking, whatever the budget (a smaller budget finds fewer facts, never
//! wrong ones).

pub mod bounds;
mod cover;
pub mod dead;
pub mod reduce;
pub mod semiflows;
pub mod siphons;
pub mod state_equation;
pub mod summary;
pub mod traps;
pub mod tsemiflows;

use std::time::{Duration, Instant};

use crate::model::net::{Net, PlaceIdx, TransIdx};
use crate::rows::Rows;
use bounds::PlaceBounds;
use semiflows::Semiflows;

/// How much the semiflow computation may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most non-zero entries the Farkas matrix may hold beyond those it starts with (one
    /// per place plus the incidence matrix's), about 16 bytes each.
    pub entries: usize,
    /// The most time the computation may take.
    pub time: Duration,
}

impl Default for Budget {
    /// 4 million entries (64 MB) and 2 seconds.
    fn default() -> Self {
        Budget {
            entries: 1 << 22,
            time: Duration::from_secs(2),
        }
    }
}

/// The net effect of firing `t`: `(place, post − pre)` for every place it changes, sorted by
/// place (read arcs change nothing).
pub fn effect(net: &Net, t: TransIdx) -> Vec<(PlaceIdx, i64)> {
    let tr = &net.transitions[t as usize];
    signed_sum(
        tr.pre
            .iter()
            .map(|a| (a.place, -(a.weight as i64)))
            .chain(tr.post.iter().map(|a| (a.place, a.weight as i64)))
            .collect(),
    )
}

/// `Σ k·M(p)` over `terms` as a sorted list of distinct places with non-zero coefficients:
/// sorted, the coefficients of a repeated place added (the caller keeps them within `i64`).
pub fn signed_sum(mut terms: Vec<(PlaceIdx, i64)>) -> Vec<(PlaceIdx, i64)> {
    terms.sort_unstable_by_key(|e| e.0);
    terms.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 += later.1;
        }
        same
    });
    terms.retain(|e| e.1 != 0);
    terms
}

/// The structural facts of one net.
#[derive(Clone, Debug)]
pub struct Facts {
    /// Transitions that never fire, by transition.
    dead: Vec<bool>,
    /// Places whose marking never changes, by place.
    constant: Vec<bool>,
    semiflows: Semiflows,
    /// `y·M₀` of each semiflow.
    flow_values: Vec<u128>,
    /// The semiflows covering each place (indices into `semiflows.flows`).
    flows_of: Rows<u32>,
    bounds: PlaceBounds,
    /// Tokens of each place in the initial marking.
    initial: Vec<u64>,
    /// What each transition needs to be enabled ([`dead::needs`]).
    needs: Rows<(PlaceIdx, u64)>,
    /// The effect of each transition ([`effect`]).
    effects: Rows<(PlaceIdx, i64)>,
    /// The transitions that change each place and may fire.
    changers: Rows<TransIdx>,
}

/// Rounds of bound propagation over the semiflows (each tightens what the last found; most
/// nets settle in two or three).
const BOUND_ROUNDS: usize = 16;

/// Rounds of narrowing the transitions assumed dead (each computes the semiflows again).
const ASSUMPTION_ROUNDS: usize = 3;

impl Facts {
    /// The facts of `net`, the semiflows within `budget` (its time shared by every semiflow
    /// computation made: those under an assumption, below, get half of it at most).
    ///
    /// Transitions are found dead by the graph ([`dead::never_fire`]), then by bounds: a
    /// transition needing more tokens on a place than the place's upper bound never fires.
    /// Bounds come from the semiflows of the net *without* the transitions assumed dead, which
    /// has more semiflows (fewer columns), so a transition is first assumed dead when it
    /// needs two tokens or more somewhere, and the assumption is kept only if it is proved.
    ///
    /// *Soundness of assuming.* Let `D` be the transitions assumed dead and suppose each is
    /// never enabled in any marking satisfying the facts of the net `N∖D` (its semiflows,
    /// constant places, bounds, graph). Were some transition of `D` ever fired, take the first
    /// firing of one in a firing sequence: the marking before it is reachable in `N∖D`, so it
    /// satisfies the facts of `N∖D`, which say that transition is not enabled there — a
    /// contradiction. So `D` is dead, the reachable markings of the net are those of `N∖D`,
    /// and the facts of `N∖D` are facts of the net. When some transition of `D` is not proved
    /// dead, the assumption is narrowed to the proved ones and the facts are computed again
    /// (or, out of time, without any assumption).
    pub fn of(net: &Net, budget: &Budget) -> Facts {
        let start = Instant::now();
        let transitions = net.transitions.len();
        let needs = Rows::group(transitions, || {
            (0..transitions as TransIdx).flat_map(|t| {
                dead::needs(net, t)
                    .into_iter()
                    .map(move |n| (t as usize, n))
            })
        });
        let effects = Rows::group(transitions, || {
            (0..transitions as TransIdx)
                .flat_map(|t| effect(net, t).into_iter().map(move |e| (t as usize, e)))
        });
        // The assumptions get half of the time at most, the facts without them the rest.
        let remaining = |until: Duration| Budget {
            time: until.saturating_sub(start.elapsed()),
            ..*budget
        };
        let graph = dead::never_fire(net, &[]);
        let mut assumed: Vec<bool> = (0..transitions)
            .map(|t| graph[t] || needs.row(t).iter().any(|&(_, n)| n >= 2))
            .collect();
        for _ in 0..ASSUMPTION_ROUNDS {
            if assumed == graph {
                break;
            }
            let facts =
                Facts::of_without(net, &assumed, &remaining(budget.time / 2), &needs, &effects);
            let proved: Vec<bool> = (0..transitions)
                .map(|t| assumed[t] && facts.is_dead(t as TransIdx))
                .collect();
            if proved == assumed {
                return facts;
            }
            if !facts.semiflows.complete() {
                break; // No time to narrow the assumption.
            }
            assumed = proved;
        }
        Facts::of_without(net, &graph, &remaining(budget.time), &needs, &effects)
    }

    /// The facts of the net without the transitions in `assumed` (which must include those
    /// the graph finds dead): these transitions count as dead, and the others are dead when
    /// the graph or the bounds say so. A transition of `assumed` stays dead only when the
    /// facts of that net show it never enabled ([`feasible`](Self::feasible) refutes what it
    /// needs), or the graph of the whole net does.
    fn of_without(
        net: &Net,
        assumed: &[bool],
        budget: &Budget,
        needs: &Rows<(PlaceIdx, u64)>,
        effects: &Rows<(PlaceIdx, i64)>,
    ) -> Facts {
        let places = net.places.len();
        let transitions = net.transitions.len();
        let initial: Vec<u64> = net.places.iter().map(|p| p.initial as u64).collect();
        let mut semiflows = semiflows::semiflows(net, assumed, budget);
        // A value that does not fit in 128 bits (weights near 2⁶³ on many places) would be
        // saturated, too small: drop such semiflows.
        semiflows
            .flows
            .retain(|y| y.value(|p| initial[p as usize]) < u128::MAX);
        let flow_values: Vec<u128> = semiflows
            .flows
            .iter()
            .map(|y| y.value(|p| initial[p as usize]))
            .collect();
        let flows_of = Rows::group(places, || {
            semiflows
                .flows
                .iter()
                .enumerate()
                .flat_map(|(i, y)| y.places().map(move |p| (p as usize, i as u32)))
        });
        let mut facts = Facts {
            dead: dead::never_fire(net, assumed),
            constant: Vec::new(),
            semiflows,
            flow_values,
            flows_of,
            bounds: PlaceBounds::default(),
            initial,
            needs: needs.clone(),
            effects: effects.clone(),
            changers: Rows::new(),
        };
        // Until nothing changes: constant places and bounds from the transitions found dead,
        // and more dead transitions from the bounds and the graph.
        let mut starved: Vec<bool>;
        loop {
            facts.constant = dead::constant_places(net, &facts.dead);
            facts.bounds = bounds::place_bounds(
                &facts.initial,
                &facts.constant,
                &facts.semiflows.flows,
                &facts.flow_values,
                BOUND_ROUNDS,
            );
            starved = facts.starved();
            let known: Vec<bool> = (0..transitions)
                .map(|t| facts.dead[t] || starved[t])
                .collect();
            let next = dead::never_fire(net, &known);
            if next == facts.dead {
                break;
            }
            facts.dead = next;
        }
        // Of `assumed`, keep dead only what is shown never enabled (when this changes
        // anything the caller computes the facts again, so the rest need not follow).
        let graph = dead::never_fire(net, &[]);
        for t in 0..transitions {
            if assumed[t] && !starved[t] && !graph[t] {
                facts.dead[t] = false;
            }
        }
        facts.changers = Rows::group(places, || {
            let dead = &facts.dead;
            (0..transitions)
                .filter(move |&t| !dead[t])
                .flat_map(move |t| {
                    effects
                        .row(t)
                        .iter()
                        .map(move |&(p, _)| (p as usize, t as TransIdx))
                })
        });
        facts
    }

    /// The transitions never enabled by the bounds: each needs more tokens on some place than
    /// its upper bound, or than some semiflow `y` allows: `Σ_{(p, n) needed} y_p·max(n,
    /// lower(p)) + Σ_{other q} y_q·lower(q) > y·M₀` (every reachable marking satisfies the
    /// semiflow's equation, within the bounds). A cheap case of [`feasible`](Self::feasible),
    /// for every transition.
    fn starved(&self) -> Vec<bool> {
        let lows: Vec<u128> = self
            .semiflows
            .flows
            .iter()
            .map(|y| y.value(|p| self.lower(p)))
            .collect();
        // The weight of each place in each semiflow through it, in the order of `flows_of`.
        let weights = Rows::group(self.initial.len(), || {
            self.semiflows
                .flows
                .iter()
                .flat_map(|y| y.weights.iter().map(|&(p, w)| (p as usize, w)))
        });
        // Per semiflow, the extra value the needs of the transition at hand force
        // (saturating: the true sum is larger still), and the semiflows touched.
        let mut extra: Vec<u128> = vec![0; self.semiflows.flows.len()];
        let mut touched: Vec<u32> = Vec::new();
        (0..self.dead.len())
            .map(|t| {
                let needs = self.needs(t as TransIdx);
                if needs
                    .iter()
                    .any(|&(p, n)| self.upper(p).is_some_and(|u| u < n))
                {
                    return true;
                }
                for &(p, n) in needs {
                    let short = n.saturating_sub(self.lower(p)) as u128;
                    if short == 0 {
                        continue; // Adds nothing to any semiflow's value.
                    }
                    let flows = self.flows_of.row(p as usize);
                    for (&f, &w) in flows.iter().zip(weights.row(p as usize)) {
                        let e = &mut extra[f as usize];
                        if *e == 0 {
                            touched.push(f);
                        }
                        *e = e.saturating_add((w as u128).saturating_mul(short));
                    }
                }
                let starved = touched.iter().any(|&f| {
                    lows[f as usize].saturating_add(extra[f as usize])
                        > self.flow_values[f as usize]
                });
                for f in touched.drain(..) {
                    extra[f as usize] = 0;
                }
                starved
            })
            .collect()
    }

    /// Whether transition `t` never fires (never enabled in a reachable marking).
    pub fn is_dead(&self, t: TransIdx) -> bool {
        self.dead[t as usize]
    }

    /// The transitions that never fire, by transition.
    pub fn dead(&self) -> &[bool] {
        &self.dead
    }

    /// Whether the marking of place `p` never changes.
    pub fn is_constant(&self, p: PlaceIdx) -> bool {
        self.constant[p as usize]
    }

    /// The places whose marking never changes, by place.
    pub fn constant(&self) -> &[bool] {
        &self.constant
    }

    /// The semiflows found.
    pub fn semiflows(&self) -> &Semiflows {
        &self.semiflows
    }

    /// Tokens of `p` in the initial marking.
    pub fn initial(&self, p: PlaceIdx) -> u64 {
        self.initial[p as usize]
    }

    /// A count no reachable marking has less of on `p`.
    pub fn lower(&self, p: PlaceIdx) -> u64 {
        self.bounds.lower[p as usize]
    }

    /// A count no reachable marking exceeds on `p`, if one is known.
    pub fn upper(&self, p: PlaceIdx) -> Option<u64> {
        self.bounds.upper[p as usize]
    }

    /// What `t` needs to be enabled: `(place, tokens)`, sorted by place.
    pub fn needs(&self, t: TransIdx) -> &[(PlaceIdx, u64)] {
        self.needs.row(t as usize)
    }

    /// Whether `t` is enabled in every reachable marking: each place it needs has a lower
    /// bound of at least what it needs (a transition needing nothing is always enabled).
    pub fn always_enabled(&self, t: TransIdx) -> bool {
        !self.is_dead(t) && self.needs(t).iter().all(|&(p, n)| self.lower(p) >= n)
    }

    /// Whether `t` is enabled in the initial marking.
    pub fn initially_enabled(&self, t: TransIdx) -> bool {
        self.needs(t).iter().all(|&(p, n)| self.initial(p) >= n)
    }

    /// Number of transitions.
    pub fn transitions(&self) -> usize {
        self.dead.len()
    }

    /// Number of places.
    pub fn places(&self) -> usize {
        self.constant.len()
    }
}

#[cfg(test)]
mod tests {
    use super::semiflows::{GaveUp, Semiflow, semiflows};
    use super::*;
    use crate::model::net::{ArcKind, NetBuilder};

    /// A net from `(name, initial)` places and `(name, arcs)` transitions, each arc
    /// `(place, kind, weight)`.
    /// An arc of [`net`]: place, kind, weight.
    type TestArc = (usize, ArcKind, u32);

    fn net(places: &[(&str, u32)], transitions: &[(&str, &[TestArc])]) -> Net {
        let mut b = NetBuilder::new("n");
        for &(name, m) in places {
            b.add_place(name, None, m).unwrap();
        }
        for &(name, arcs) in transitions {
            let t = b.add_transition(name, None).unwrap();
            for &(p, kind, w) in arcs {
                b.add_arc(p as PlaceIdx, t, kind, w).unwrap();
            }
        }
        b.finish()
    }

    use ArcKind::{Input as I, Output as O, Read as R};

    /// Two processes and a lock: idle₁ idle₂ cs₁ cs₂ lock.
    fn mutex() -> Net {
        net(
            &[
                ("idle1", 1),
                ("idle2", 1),
                ("cs1", 0),
                ("cs2", 0),
                ("lock", 1),
            ],
            &[
                ("enter1", &[(0, I, 1), (4, I, 1), (2, O, 1)]),
                ("exit1", &[(2, I, 1), (0, O, 1), (4, O, 1)]),
                ("enter2", &[(1, I, 1), (4, I, 1), (3, O, 1)]),
                ("exit2", &[(3, I, 1), (1, O, 1), (4, O, 1)]),
            ],
        )
    }

    fn flow(w: &[(PlaceIdx, u64)]) -> Semiflow {
        Semiflow {
            weights: w.to_vec(),
        }
    }

    #[test]
    fn mutex_has_its_three_invariants_and_safe_bounds() {
        let n = mutex();
        let s = semiflows(&n, &[], &Budget::default());
        assert!(s.complete());
        assert_eq!(
            s.flows,
            vec![
                flow(&[(0, 1), (2, 1)]),
                flow(&[(1, 1), (3, 1)]),
                flow(&[(2, 1), (3, 1), (4, 1)]),
            ]
        );
        let f = Facts::of(&n, &Budget::default());
        assert!((0..5).all(|p| f.upper(p) == Some(1) && f.lower(p) == 0));
        assert!(f.dead().iter().all(|&d| !d) && f.constant().iter().all(|&c| !c));
        // cs₁ + cs₂ ≤ 1 (the lock's semiflow), and idle₁ + cs₁ is exactly 1.
        assert_eq!(f.sum_interval(0, &[(2, 1), (3, 1)]).upper, Some(1));
        assert_eq!(
            f.sum_interval(3, &[(0, 1), (2, 1)]),
            bounds::Interval::exact(4)
        );
        assert_eq!(
            f.sum_interval(0, &[(0, 2), (2, 2)]),
            bounds::Interval::exact(2)
        );
        assert_eq!(
            f.invariant_value(0, &[(0, 1), (1, -1), (2, 1), (3, -1)]),
            Some(0)
        );
        assert_eq!(f.invariant_value(0, &[(0, 1), (1, -1)]), None);
    }

    #[test]
    fn weighted_producer_consumer() {
        // make: 2·a → b; use: b → 2·a. The invariant a + 2b = 5.
        let n = net(
            &[("a", 5), ("b", 0)],
            &[
                ("make", &[(0, I, 2), (1, O, 1)]),
                ("use", &[(1, I, 1), (0, O, 2)]),
            ],
        );
        let f = Facts::of(&n, &Budget::default());
        assert_eq!(f.semiflows().flows, vec![flow(&[(0, 1), (1, 2)])]);
        assert_eq!((f.lower(0), f.upper(0)), (1, Some(5)));
        assert_eq!((f.lower(1), f.upper(1)), (0, Some(2)));
        assert_eq!(
            f.sum_interval(0, &[(0, 1), (1, 2)]),
            bounds::Interval::exact(5)
        );
        // a + b ≤ 5 (a + 2b = 5) and ≥ 3 (b ≤ 2).
        let ab = f.sum_interval(0, &[(0, 1), (1, 1)]);
        assert_eq!((ab.lower, ab.upper), (3, Some(5)));
    }

    #[test]
    fn dead_transitions_by_the_graph_and_by_bounds() {
        // p (1 token) ⇄ q by t, u; `greedy` needs two tokens on p, which never holds more
        // than one, and alone marks r; `never` needs r; `feed` reads r and fills s; `orphan`
        // needs z, which nothing marks.
        let n = net(
            &[("p", 1), ("q", 0), ("r", 0), ("s", 0), ("z", 0)],
            &[
                ("t", &[(0, I, 1), (1, O, 1)]),
                ("u", &[(1, I, 1), (0, O, 1)]),
                ("never", &[(2, I, 1), (3, O, 1)]),
                ("greedy", &[(0, I, 2), (2, O, 1)]),
                ("feed", &[(2, R, 1), (3, O, 1)]),
                ("orphan", &[(4, I, 1), (0, O, 1)]),
            ],
        );
        let graph = dead::never_fire(&n, &[]);
        assert_eq!(graph, [false, false, false, false, false, true]);
        let f = Facts::of(&n, &Budget::default());
        assert_eq!(f.dead(), [false, false, true, true, true, true]);
        assert_eq!(f.constant(), [false, false, true, true, true]);
        assert_eq!(f.upper(3), Some(0));
        assert!(!f.always_enabled(0));
    }

    #[test]
    fn read_arcs_change_nothing_and_sources_are_always_enabled() {
        // `tick` reads p and adds to the unbounded c; `src` needs nothing.
        let n = net(
            &[("p", 2), ("c", 0)],
            &[("tick", &[(0, R, 2), (1, O, 1)]), ("src", &[])],
        );
        let f = Facts::of(&n, &Budget::default());
        assert_eq!(f.constant(), [true, false]);
        assert_eq!(f.semiflows().flows, vec![flow(&[(0, 1)])]);
        assert_eq!((f.lower(0), f.upper(0), f.upper(1)), (2, Some(2), None));
        assert!(f.always_enabled(0) && f.always_enabled(1));
        assert_eq!(f.sum_interval(0, &[(0, 1), (1, 1)]).upper, None);
    }

    #[test]
    fn degenerate_nets_and_huge_weights() {
        let empty = net(&[], &[]);
        let f = Facts::of(&empty, &Budget::default());
        assert!(f.semiflows().complete() && f.semiflows().flows.is_empty());
        let still = net(&[("p", 3)], &[]);
        let f = Facts::of(&still, &Budget::default());
        assert_eq!((f.lower(0), f.upper(0)), (3, Some(3)));
        // Weights and counts at the top of their range: nothing overflows unchecked.
        let m = u32::MAX;
        let n = net(
            &[("a", m), ("b", m), ("c", 0)],
            &[
                ("t", &[(0, I, m), (1, I, 1), (2, O, m)]),
                ("u", &[(2, I, m), (0, O, m), (1, O, 1)]),
                ("v", &[(0, R, m), (1, I, m), (2, O, 1)]),
            ],
        );
        let f = Facts::of(&n, &Budget::default());
        for y in &f.semiflows().flows {
            for t in 0..3 {
                let change: i128 = effect(&n, t)
                    .iter()
                    .map(|&(p, e)| y.weight(p) as i128 * e as i128)
                    .sum();
                assert!(f.is_dead(t) || change == 0);
            }
        }
        let all = [(0, u64::MAX), (1, u64::MAX), (2, u64::MAX)];
        let i = f.sum_interval(u64::MAX, &all);
        assert!(i.upper.is_none_or(|u| u >= i.lower));
        // `v` is enabled at first: no restriction it needs can be refuted.
        let needs: Vec<_> = f.needs(2).iter().map(|&(p, n)| (p, n, None)).collect();
        assert_eq!(needs, [(0, u64::from(m), None), (1, u64::from(m), None)]);
        assert!(!f.is_dead(2) && f.feasible(&needs));
    }

    /// `k` pairs of places `a_i, b_i` and transitions moving a token from each of `a_{i+1}`,
    /// `b_{i+1}` to each of `a_i`, `b_i`: the semiflows are `y(a_i) + y(b_i)` equal for all
    /// `i`, the minimal ones one place of each pair, 2ᵏ of them.
    fn product(k: usize) -> Net {
        let places: Vec<(String, u32)> = (0..2 * k).map(|i| (format!("p{i}"), 1)).collect();
        let places: Vec<(&str, u32)> = places.iter().map(|(s, m)| (s.as_str(), *m)).collect();
        let arcs: Vec<Vec<TestArc>> = (0..k - 1)
            .map(|i| {
                let (a, b) = (2 * i, 2 * i + 1);
                vec![(a, O, 1), (b, O, 1), (a + 2, I, 1), (b + 2, I, 1)]
            })
            .collect();
        let names: Vec<String> = (0..arcs.len()).map(|i| format!("t{i}")).collect();
        let ts: Vec<(&str, &[TestArc])> = names
            .iter()
            .zip(&arcs)
            .map(|(n, a)| (n.as_str(), a.as_slice()))
            .collect();
        net(&places, &ts)
    }

    #[test]
    fn budget_exhaustion_returns_only_true_semiflows() {
        let n = product(12);
        let tight = Budget {
            entries: 1000,
            ..Budget::default()
        };
        let s = semiflows(&n, &[], &tight);
        assert_eq!(s.gave_up, Some(GaveUp::Entries));
        // The search for 0/1 semiflows covers what the cut computation left uncovered.
        assert!(s.covered(24).iter().all(|&c| c));
        let full = semiflows(&n, &[], &Budget::default());
        assert!(full.complete());
        assert_eq!(full.flows.len(), 1 << 12);
        for y in &s.flows {
            assert!(full.flows.contains(y), "{y:?}");
        }
        let none = Budget {
            time: std::time::Duration::ZERO,
            ..Budget::default()
        };
        assert_eq!(semiflows(&n, &[], &none).gave_up, Some(GaveUp::Time));
    }
}
