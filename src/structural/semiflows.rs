//! P-semiflows: non-negative integer weightings `y` of the places with `yᵀ·C = 0`, `C` the
//! incidence matrix (`C(p, t) = post(t, p) − pre(t, p)`; read arcs test a place and change
//! nothing, so they are not in `C`). Firing `t` adds column `C(·, t)` to the marking, so
//! `y·M = y·M₀` on every reachable marking `M`: a token count no firing changes.
//!
//! The minimal-support semiflows are the extreme rays of the cone `{y ≥ 0 : yᵀ·C = 0}` and
//! generate it. They are computed by the Farkas (Fourier–Motzkin) algorithm in its
//! double-description form (Martínez–Silva; Colom–Silva): start from the rays `e_p` of
//! `{y ≥ 0}`, each with its row `C(p, ·)`, and cut the cone by one column `t` at a time — the
//! rays with a zero in column `t` stay, the others go, and each pair of adjacent rays of
//! opposite signs in `t` gives the ray of their positive combination that cancels `t`. Two rays
//! are adjacent iff no other ray's support lies in the union of theirs (the combinatorial
//! test), which keeps exactly the minimal supports, so no later pruning is needed. The column
//! cut next is the one making the fewest new rows (`pos·neg − pos − neg`); a column of one sign
//! only removes rows, and goes first.
//!
//! Arithmetic is exact (`i64` entries, `i128` products, every step checked); rows are divided
//! by the gcd of their weights. The number of rows can grow exponentially: a [`Budget`] bounds
//! the matrix's entries and the time. Every row is a non-negative combination of the places'
//! unit vectors that is zero on the columns cut, whatever rows were left out, so when the
//! entries would pass the budget (or an entry overflows) the computation goes on with the rows
//! it has, each step combining a bounded number of pairs: it then finds fewer semiflows, and
//! maybe not minimal ones, but never a wrong one. When the time runs out, the rows already zero
//! on every column are returned. Either way the result is marked as not a generating set, and
//! every semiflow is checked against the net's arcs once more before it is returned.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

use super::{Budget, cover, effect};
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// A P-semiflow: `Σ weight·M(place)` is the same on every reachable marking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Semiflow {
    /// `(place, weight)`, sorted by place, weights at least 1, their gcd 1.
    pub weights: Vec<(PlaceIdx, u64)>,
}

impl Semiflow {
    /// The weight of `p` (0 outside the support).
    pub fn weight(&self, p: PlaceIdx) -> u64 {
        self.weights
            .binary_search_by_key(&p, |&(q, _)| q)
            .map_or(0, |i| self.weights[i].1)
    }

    /// `Σ weight·tokens(place)`, the value of the semiflow on a marking (exact: weights and
    /// counts are below 2⁶⁴, and there are fewer than 2⁶⁴ places).
    pub fn value(&self, tokens: impl Fn(PlaceIdx) -> u64) -> u128 {
        self.weights
            .iter()
            .map(|&(p, w)| w as u128 * tokens(p) as u128)
            .fold(0u128, u128::saturating_add)
    }

    /// The places of the support.
    pub fn places(&self) -> impl Iterator<Item = PlaceIdx> + '_ {
        self.weights.iter().map(|&(p, _)| p)
    }
}

/// Why the computation stopped before it had a generating set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// The matrix would have held more entries than the budget allows: rows were left out.
    Entries,
    /// The time budget ran out.
    Time,
    /// An entry did not fit in 64 bits: that row was left out.
    Overflow,
}

/// The semiflows found, and whether they generate every semiflow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Semiflows {
    /// Semiflows, each of minimal support when the computation finished.
    pub flows: Vec<Semiflow>,
    /// Why the computation stopped early, if it did: `flows` are semiflows all the same, but
    /// not all of them.
    pub gave_up: Option<GaveUp>,
}

impl Semiflows {
    /// Whether `flows` generates every semiflow (the computation finished).
    pub fn complete(&self) -> bool {
        self.gave_up.is_none()
    }

    /// Which of `places` places some semiflow covers (such a place is bounded: `y_p·M(p) ≤
    /// y·M₀`).
    pub fn covered(&self, places: usize) -> Vec<bool> {
        let mut out = vec![false; places];
        for p in self.flows.iter().flat_map(Semiflow::places) {
            if let Some(c) = out.get_mut(p as usize) {
                *c = true;
            }
        }
        out
    }
}

/// The most pairs of rows a step combines once the budget has made the computation drop rows.
const TRUNCATED_PAIRS: usize = 1 << 16;

/// An entry of a sparse row: (place or column, value).
type Entry = (u32, i64);

/// A row of the matrix `[y | yᵀ·C]`: a ray of the cone cut so far, with its values on the
/// columns not cut yet (the cut ones are 0).
struct Row {
    /// Weights of the places, sorted, positive.
    y: Vec<Entry>,
    /// Non-zero values on the remaining columns, sorted by column.
    c: Vec<Entry>,
}

impl Row {
    fn at(&self, column: u32) -> i64 {
        self.c
            .binary_search_by_key(&column, |&(j, _)| j)
            .map_or(0, |i| self.c[i].1)
    }

    fn entries(&self) -> usize {
        self.y.len() + self.c.len()
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `α·a + β·b` entry by entry (both sorted), dropping zeros; `None` on overflow.
fn combine_entries(a: &[Entry], b: &[Entry], alpha: i64, beta: i64) -> Option<Vec<Entry>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let ka = a.get(i).map_or(u32::MAX, |e| e.0);
        let kb = b.get(j).map_or(u32::MAX, |e| e.0);
        let k = ka.min(kb);
        let mut v = 0i128;
        if ka == k {
            v += alpha as i128 * a[i].1 as i128;
            i += 1;
        }
        if kb == k {
            v += beta as i128 * b[j].1 as i128;
            j += 1;
        }
        if v != 0 {
            out.push((k, i64::try_from(v).ok()?));
        }
    }
    Some(out)
}

/// The state of the Farkas algorithm.
struct Farkas {
    /// Every row ever made; `None` once removed.
    rows: Vec<Option<Row>>,
    /// Entries held by the live rows.
    entries: usize,
    /// Live rows.
    live: usize,
    /// The rows with a non-zero entry in each column (removed rows linger until the column's
    /// list is next read).
    by_column: Vec<Vec<u32>>,
    /// Live rows with a positive and with a negative entry in each column.
    pos: Vec<u32>,
    neg: Vec<u32>,
    /// Columns cut.
    done: Vec<bool>,
    /// Columns by cost, lazily: an entry whose cost is no longer the column's is stale.
    queue: BinaryHeap<Reverse<(i64, u32)>>,
    /// The live rows whose first place is each place (removed ones linger), for the adjacency
    /// test: a row whose support lies in a set has its first place in it.
    anchors: Vec<Vec<u32>>,
    /// Scratch marks of the places of a support, by stamp.
    mark: Vec<u32>,
    stamp: u32,
}

impl Farkas {
    fn cost(&self, j: u32) -> i64 {
        let (p, n) = (self.pos[j as usize] as i64, self.neg[j as usize] as i64);
        p.saturating_mul(n) - p - n
    }

    fn requeue(&mut self, j: u32) {
        if !self.done[j as usize] {
            self.queue.push(Reverse((self.cost(j), j)));
        }
    }

    fn insert(&mut self, row: Row) {
        let id = self.rows.len() as u32;
        self.entries += row.entries();
        self.live += 1;
        for &(j, v) in &row.c {
            if v > 0 {
                self.pos[j as usize] += 1;
            } else {
                self.neg[j as usize] += 1;
            }
            self.by_column[j as usize].push(id);
        }
        self.anchors[row.y[0].0 as usize].push(id);
        let columns: Vec<u32> = row.c.iter().map(|e| e.0).collect();
        self.rows.push(Some(row));
        for j in columns {
            self.requeue(j);
        }
    }

    fn remove(&mut self, id: u32) {
        let Some(row) = self.rows[id as usize].take() else {
            return;
        };
        self.entries -= row.entries();
        self.live -= 1;
        for &(j, v) in &row.c {
            if v > 0 {
                self.pos[j as usize] -= 1;
            } else {
                self.neg[j as usize] -= 1;
            }
            self.requeue(j);
        }
    }

    fn row(&self, id: u32) -> &Row {
        self.rows[id as usize].as_ref().expect("a live row")
    }

    /// Whether rows `a` and `b` are adjacent rays: no other live row has its support in
    /// `union`, the union of theirs.
    fn adjacent(&mut self, a: u32, b: u32, union: &[u32]) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        for &q in union {
            self.mark[q as usize] = self.stamp;
        }
        for &q in union {
            for &r in &self.anchors[q as usize] {
                if r == a || r == b {
                    continue;
                }
                let Some(row) = &self.rows[r as usize] else {
                    continue;
                };
                if row.y.len() <= union.len()
                    && row
                        .y
                        .iter()
                        .all(|&(p, _)| self.mark[p as usize] == self.stamp)
                {
                    return false;
                }
            }
        }
        true
    }

    /// The row `α·a + β·b` cancelling column `j` (`a` positive there, `b` negative), divided
    /// by the gcd of its weights; `None` on overflow.
    fn combine(&self, a: u32, b: u32, j: u32) -> Option<Row> {
        let (ra, rb) = (self.row(a), self.row(b));
        let (va, vb) = (ra.at(j), rb.at(j));
        let g = gcd(va.unsigned_abs(), vb.unsigned_abs()) as i64;
        let (alpha, beta) = (-vb / g, va / g);
        let mut y = combine_entries(&ra.y, &rb.y, alpha, beta)?;
        let mut c = combine_entries(&ra.c, &rb.c, alpha, beta)?;
        debug_assert!(c.iter().all(|e| e.0 != j));
        // The gcd of the weights divides every entry of `c`, an integer combination of them.
        let g = y.iter().fold(0, |g, e| gcd(g, e.1 as u64)) as i64;
        if g > 1 {
            y.iter_mut().for_each(|e| e.1 /= g);
            c.iter_mut().for_each(|e| e.1 /= g);
        }
        Some(Row { y, c })
    }

    /// The live rows with a non-zero entry in column `j`, positive ones first; the column's
    /// list is dropped (it is cut).
    fn split(&mut self, j: u32) -> (Vec<u32>, Vec<u32>) {
        let list = std::mem::take(&mut self.by_column[j as usize]);
        let (mut plus, mut minus) = (Vec::new(), Vec::new());
        for id in list {
            if let Some(row) = &self.rows[id as usize] {
                if row.at(j) > 0 {
                    plus.push(id);
                } else {
                    minus.push(id);
                }
            }
        }
        (plus, minus)
    }
}

/// The incidence columns of the transitions `dead` does not exclude, each divided by the gcd
/// of its entries with its first entry made positive, without repeats (a column and its
/// multiples cut the cone alike) and without zero columns: by place, `(column, value)`.
fn columns(net: &Net, dead: &[bool]) -> (usize, Vec<Vec<Entry>>) {
    let mut seen: HashSet<Vec<Entry>> = HashSet::new();
    let mut by_place: Vec<Vec<Entry>> = vec![Vec::new(); net.places.len()];
    let mut count = 0u32;
    for ti in 0..net.transitions.len() {
        if dead.get(ti).copied().unwrap_or(false) {
            continue;
        }
        let mut col: Vec<Entry> = effect(net, ti as TransIdx);
        if col.is_empty() {
            continue;
        }
        let g = col.iter().fold(0, |g, e| gcd(g, e.1.unsigned_abs())) as i64;
        let sign = col[0].1.signum();
        col.iter_mut().for_each(|e| e.1 = e.1 / g * sign);
        if !seen.insert(col.clone()) {
            continue;
        }
        for &(p, v) in &col {
            by_place[p as usize].push((count, v));
        }
        count += 1;
    }
    (count as usize, by_place)
}

/// Whether `y·C(·, t) = 0` for every transition `dead` does not exclude, on the net's arcs.
fn is_semiflow(net: &Net, dead: &[bool], y: &Semiflow, touching: &[Vec<TransIdx>]) -> bool {
    let mut around: Vec<TransIdx> = y
        .places()
        .flat_map(|p| touching[p as usize].iter().copied())
        .collect();
    around.sort_unstable();
    around.dedup();
    for t in around {
        if dead.get(t as usize).copied().unwrap_or(false) {
            continue;
        }
        let tr = &net.transitions[t as usize];
        let produced: i128 = tr
            .post
            .iter()
            .map(|a| y.weight(a.place) as i128 * a.weight as i128)
            .sum();
        let consumed: i128 = tr
            .pre
            .iter()
            .map(|a| y.weight(a.place) as i128 * a.weight as i128)
            .sum();
        if produced != consumed {
            return false;
        }
    }
    true
}

/// Semiflows with weights 0 and 1 through the places marked in `wanted`, ignoring the
/// transitions marked in `dead` (as [`semiflows`] does): for each wanted place not in one
/// found yet, a bounded depth-first search for a set of places through it whose 0/1 vector
/// is a semiflow (the state-machine components of nets of synchronised state machines), until
/// `deadline`. Each set found is checked on the net's arcs before it is returned.
pub fn zero_one_semiflows(
    net: &Net,
    dead: &[bool],
    wanted: &[bool],
    deadline: Instant,
) -> Vec<Semiflow> {
    let touching = touching(net);
    let inc = cover::Incidence::of(net, dead);
    cover::zero_one_semiflows(&inc, wanted, deadline)
        .into_iter()
        .map(|set| Semiflow {
            weights: set.into_iter().map(|p| (p, 1)).collect(),
        })
        .filter(|y| {
            let ok = is_semiflow(net, dead, y, &touching);
            debug_assert!(ok, "not a semiflow: {y:?}");
            ok
        })
        .collect()
}

/// The transitions consuming from or producing on each place.
fn touching(net: &Net) -> Vec<Vec<TransIdx>> {
    let mut touching: Vec<Vec<TransIdx>> = vec![Vec::new(); net.places.len()];
    for (ti, t) in net.transitions.iter().enumerate() {
        for a in t.pre.iter().chain(&t.post) {
            touching[a.place as usize].push(ti as TransIdx);
        }
    }
    touching
}

/// The minimal-support P-semiflows of `net`, ignoring the transitions marked in `dead`
/// (indexed by transition; shorter means the rest are live).
///
/// Ignoring a transition is sound when it never fires: the markings reached are those of the
/// net without it, whose semiflows these are. Within `budget`; see [`Semiflows::gave_up`].
pub fn semiflows(net: &Net, dead: &[bool], budget: &Budget) -> Semiflows {
    let start = Instant::now();
    // The Farkas algorithm leaves a quarter of the time to the search for 0/1 semiflows,
    // should it not finish.
    let out_of_time = || start.elapsed() >= budget.time / 4 * 3;
    let places = net.places.len();
    let (ncols, by_place) = columns(net, dead);
    let mut f = Farkas {
        rows: Vec::with_capacity(places),
        entries: 0,
        live: 0,
        by_column: vec![Vec::new(); ncols],
        pos: vec![0; ncols],
        neg: vec![0; ncols],
        done: vec![false; ncols],
        queue: BinaryHeap::with_capacity(ncols),
        anchors: vec![Vec::new(); places],
        mark: vec![0; places],
        stamp: 0,
    };
    for (p, c) in by_place.into_iter().enumerate() {
        f.insert(Row {
            y: vec![(p as u32, 1)],
            c,
        });
    }
    let max_entries = f.entries.saturating_add(budget.entries);
    let mut gave_up = None;
    let mut work = 0u64;
    // Removed rows still in the anchor lists.
    let mut stale = 0usize;
    'columns: while let Some(Reverse((cost, j))) = f.queue.pop() {
        if f.done[j as usize] || cost != f.cost(j) {
            continue;
        }
        if out_of_time() {
            gave_up = Some(GaveUp::Time);
            break;
        }
        f.done[j as usize] = true;
        let (mut plus, mut minus) = f.split(j);
        // Small supports first: when the budget cuts a step short, the rows kept are those
        // most likely to be semiflows soon.
        plus.sort_by_key(|&r| f.row(r).y.len());
        minus.sort_by_key(|&r| f.row(r).y.len());
        let removed: usize = plus.iter().chain(&minus).map(|&r| f.row(r).entries()).sum();
        let mut fresh: Vec<Row> = Vec::new();
        let mut fresh_entries = 0usize;
        let mut seen: HashSet<Vec<Entry>> = HashSet::new();
        let mut union: Vec<u32> = Vec::new();
        // Once rows are being dropped, a step looks at a bounded number of pairs.
        let mut pairs_left = if gave_up.is_some() {
            TRUNCATED_PAIRS
        } else {
            usize::MAX
        };
        'pairs: for &a in &plus {
            for &b in &minus {
                work += 1;
                pairs_left -= 1;
                if pairs_left == 0 {
                    break 'pairs;
                }
                if work.is_multiple_of(256) && out_of_time() {
                    gave_up = Some(GaveUp::Time);
                    break 'columns;
                }
                union.clear();
                let (ya, yb) = (&f.row(a).y, &f.row(b).y);
                let (mut i, mut k) = (0, 0);
                while i < ya.len() || k < yb.len() {
                    let qa = ya.get(i).map_or(u32::MAX, |e| e.0);
                    let qb = yb.get(k).map_or(u32::MAX, |e| e.0);
                    let q = qa.min(qb);
                    i += usize::from(qa == q);
                    k += usize::from(qb == q);
                    union.push(q);
                }
                if !f.adjacent(a, b, &union) {
                    continue;
                }
                let Some(row) = f.combine(a, b, j) else {
                    gave_up.get_or_insert(GaveUp::Overflow);
                    continue;
                };
                if !seen.insert(row.y.clone()) {
                    continue;
                }
                fresh_entries += row.entries();
                if (f.entries - removed).saturating_add(fresh_entries) > max_entries {
                    // Going on with fewer rows loses semiflows, never makes a wrong one.
                    gave_up.get_or_insert(GaveUp::Entries);
                    break 'pairs;
                }
                fresh.push(row);
            }
        }
        stale += plus.len() + minus.len();
        for r in plus.into_iter().chain(minus) {
            f.remove(r);
        }
        for row in fresh {
            f.insert(row);
        }
        // Drop the removed rows from the anchor lists once they are as many as the live ones.
        if stale > f.live {
            stale = 0;
            let rows = &f.rows;
            f.anchors
                .iter_mut()
                .for_each(|l| l.retain(|&r| rows[r as usize].is_some()));
        }
    }
    // Rows zero on every remaining column are semiflows, finished or not.
    let touching = touching(net);
    let mut flows = Vec::new();
    for row in f.rows.into_iter().flatten() {
        if !row.c.is_empty() {
            continue;
        }
        let y = Semiflow {
            weights: row.y.iter().map(|&(p, w)| (p, w as u64)).collect(),
        };
        if is_semiflow(net, dead, &y, &touching) {
            flows.push(y);
        } else {
            debug_assert!(false, "not a semiflow: {y:?}");
        }
    }
    if gave_up.is_some() {
        let mut wanted = vec![true; places];
        for p in flows.iter().flat_map(Semiflow::places) {
            wanted[p as usize] = false;
        }
        flows.extend(zero_one_semiflows(net, dead, &wanted, start + budget.time));
    }
    flows.sort_unstable_by(|a, b| a.weights.cmp(&b.weights));
    flows.dedup();
    Semiflows { flows, gave_up }
}
