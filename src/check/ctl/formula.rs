//! CTL formulas as the engine evaluates them: a hash-consed graph over the core operators
//! (state predicates, `¬`, `∧`, `∨`, `EX`, `E[φ U ψ]`, `EG`), built from the property layer's
//! tree with every other operator rewritten into these and simplified on the way.
//!
//! The rewrites (valid for both [`DeadlockRule`]s, so both on finite maximal paths and on
//! paths stuttering at a deadlock): `EF φ = E[true U φ]`, `AX φ = ¬EX ¬φ`, `AG φ = ¬EF ¬φ`,
//! `AF φ = ¬EG ¬φ`, `A[φ U ψ] = ¬E[¬ψ U (¬φ ∧ ¬ψ)] ∧ ¬EG ¬ψ`; a maximal state subformula
//! becomes one compiled [`Predicate`], decided outright when the structural facts
//! ([`Shortcuts::truth`]) fix it on every reachable marking (every state the engine visits is
//! reachable). Simplifications: constants absorb and vanish, `¬¬φ = φ`, repeated and
//! complementary operands of `∧`/`∨`, `E[φ U true] = true`, `E[φ U false] = false`,
//! `E[false U ψ] = ψ`, `EF EF φ = EF φ`, `EG EG φ = EG φ`, `EG true = true`, `EG false =
//! false`, `EX false = false`.

use rustc_hash::FxHashMap;

use super::{CtlError, DeadlockRule};
use crate::check::shortcuts::{Shortcuts, Truth};
use crate::property::predicate::Predicate;
use crate::property::syntax::{Form, ResolvedFormula};

/// Index of a node of a [`Ctl`] graph.
pub type NodeId = u32;

/// A node of the core logic.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// `true`.
    True,
    /// `false`.
    False,
    /// A state predicate.
    Atom(Predicate),
    /// `¬φ`.
    Not(NodeId),
    /// `φ₁ ∧ … ∧ φₙ` (at least two operands, cheapest first).
    And(Vec<NodeId>),
    /// `φ₁ ∨ … ∨ φₙ` (at least two operands, cheapest first).
    Or(Vec<NodeId>),
    /// `EX φ`.
    Ex(NodeId),
    /// `E[φ U ψ]`.
    Eu(NodeId, NodeId),
    /// `EG φ`.
    Eg(NodeId),
}

/// A formula as a graph of [`Node`]s, each subformula once.
#[derive(Clone, Debug)]
pub struct Ctl {
    nodes: Vec<Node>,
    /// How much evaluating each node may cost: 0 for constants and atoms, more for each
    /// temporal operator inside (operands of `∧` and `∨` are tried cheapest first).
    depth: Vec<u32>,
    index: FxHashMap<Node, NodeId>,
    /// The formula.
    pub root: NodeId,
}

impl Ctl {
    /// The node `n`.
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n as usize]
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph has no node (never: a formula has a root).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The truth value of the formula when it simplified to a constant.
    pub fn constant(&self) -> Option<bool> {
        match self.node(self.root) {
            Node::True => Some(true),
            Node::False => Some(false),
            _ => None,
        }
    }

    /// Whether `n` has a temporal operator inside.
    pub fn is_temporal(&self, n: NodeId) -> bool {
        self.depth[n as usize] > 0
    }

    /// Translates `f` into the core logic, simplified; atoms are decided by `shortcuts` when
    /// given. An error when `f` is not a CTL formula (a temporal operator outside a path
    /// quantifier, or a path formula CTL does not have, such as `E (F φ ∧ G ψ)`).
    pub fn build(
        f: &ResolvedFormula,
        rule: DeadlockRule,
        shortcuts: Option<&Shortcuts>,
    ) -> Result<Ctl, CtlError> {
        let mut b = Builder {
            ctl: Ctl {
                nodes: Vec::new(),
                depth: Vec::new(),
                index: FxHashMap::default(),
                root: 0,
            },
            rule,
            shortcuts,
        };
        let root = b.state(f)?;
        b.ctl.root = root;
        Ok(b.ctl)
    }
}

struct Builder<'s> {
    ctl: Ctl,
    rule: DeadlockRule,
    shortcuts: Option<&'s Shortcuts>,
}

impl Builder<'_> {
    fn add(&mut self, node: Node) -> NodeId {
        if let Some(&n) = self.ctl.index.get(&node) {
            return n;
        }
        let d = |n: &NodeId| self.ctl.depth[*n as usize];
        let depth = match &node {
            Node::True | Node::False | Node::Atom(_) => 0,
            Node::Not(a) => d(a),
            Node::And(xs) | Node::Or(xs) => xs.iter().map(d).max().unwrap_or(0),
            Node::Ex(a) | Node::Eg(a) => d(a) + 1,
            Node::Eu(a, b) => d(a).max(d(b)) + 1,
        };
        let n = self.ctl.nodes.len() as NodeId;
        self.ctl.nodes.push(node.clone());
        self.ctl.depth.push(depth);
        self.ctl.index.insert(node, n);
        n
    }

    fn constant(&mut self, b: bool) -> NodeId {
        self.add(if b { Node::True } else { Node::False })
    }

    fn is(&self, n: NodeId, b: bool) -> bool {
        matches!(
            (self.ctl.node(n), b),
            (Node::True, true) | (Node::False, false)
        )
    }

    fn atom(&mut self, p: Predicate) -> NodeId {
        if let Predicate::Bool(b) = p {
            return self.constant(b);
        }
        match self.shortcuts.map(|s| s.truth(&p)) {
            Some(Truth::Always) => self.constant(true),
            Some(Truth::Never) => self.constant(false),
            _ => self.add(Node::Atom(p)),
        }
    }

    fn not(&mut self, a: NodeId) -> NodeId {
        match self.ctl.node(a) {
            Node::True => self.constant(false),
            Node::False => self.constant(true),
            Node::Not(b) => *b,
            _ => self.add(Node::Not(a)),
        }
    }

    /// `∧` (`conjunction`) or `∨` (`!conjunction`) of `xs`.
    fn junction(&mut self, xs: Vec<NodeId>, conjunction: bool) -> NodeId {
        let mut flat = Vec::with_capacity(xs.len());
        for x in xs {
            match self.ctl.node(x) {
                Node::And(ys) if conjunction => flat.extend_from_slice(ys),
                Node::Or(ys) if !conjunction => flat.extend_from_slice(ys),
                _ => flat.push(x),
            }
        }
        // The neutral element vanishes, the absorbing one wins.
        if flat.iter().any(|&x| self.is(x, !conjunction)) {
            return self.constant(!conjunction);
        }
        flat.retain(|&x| !self.is(x, conjunction));
        flat.sort_unstable_by_key(|&x| (self.ctl.depth[x as usize], x));
        flat.dedup();
        // φ and ¬φ side by side.
        let complementary = flat
            .iter()
            .any(|&x| matches!(self.ctl.node(x), Node::Not(y) if flat.contains(y)));
        if complementary {
            return self.constant(!conjunction);
        }
        match flat.len() {
            0 => self.constant(conjunction),
            1 => flat[0],
            _ if conjunction => self.add(Node::And(flat)),
            _ => self.add(Node::Or(flat)),
        }
    }

    fn ex(&mut self, a: NodeId) -> NodeId {
        match self.ctl.node(a) {
            Node::False => a,
            // EX true: true where the paths stutter, "not a deadlock" on maximal paths.
            Node::True => match self.rule {
                DeadlockRule::Stutter => a,
                DeadlockRule::Maximal => {
                    let dead = self.atom(Predicate::Deadlock);
                    self.not(dead)
                }
            },
            _ => self.add(Node::Ex(a)),
        }
    }

    fn eu(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if self.is(b, true) || self.is(b, false) || self.is(a, false) {
            return b;
        }
        if self.is(a, true) && matches!(self.ctl.node(b), Node::Eu(x, _) if self.is(*x, true)) {
            return b; // EF EF φ = EF φ
        }
        self.add(Node::Eu(a, b))
    }

    fn ef(&mut self, a: NodeId) -> NodeId {
        let t = self.constant(true);
        self.eu(t, a)
    }

    fn eg(&mut self, a: NodeId) -> NodeId {
        match self.ctl.node(a) {
            Node::True | Node::False | Node::Eg(_) => a,
            _ => self.add(Node::Eg(a)),
        }
    }

    fn ax(&mut self, a: NodeId) -> NodeId {
        let na = self.not(a);
        let e = self.ex(na);
        self.not(e)
    }

    fn ag(&mut self, a: NodeId) -> NodeId {
        let na = self.not(a);
        let e = self.ef(na);
        self.not(e)
    }

    fn af(&mut self, a: NodeId) -> NodeId {
        let na = self.not(a);
        let e = self.eg(na);
        self.not(e)
    }

    fn au(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let (na, nb) = (self.not(a), self.not(b));
        let stuck = self.junction(vec![na, nb], true);
        let escape = self.eu(nb, stuck);
        let never = self.eg(nb);
        let (ne, nn) = (self.not(escape), self.not(never));
        self.junction(vec![ne, nn], true)
    }

    /// A state formula.
    fn state(&mut self, f: &ResolvedFormula) -> Result<NodeId, CtlError> {
        if f.is_state() {
            let p = Predicate::compile(f).ok_or(CtlError::NotCtl {
                reason: "a state formula that does not compile",
            })?;
            return Ok(self.atom(p));
        }
        Ok(match f {
            Form::Not(g) => {
                let g = self.state(g)?;
                self.not(g)
            }
            Form::And(gs) | Form::Or(gs) => {
                let xs = gs.iter().map(|g| self.state(g)).collect::<Result<_, _>>()?;
                self.junction(xs, matches!(f, Form::And(_)))
            }
            Form::Exists(p) => self.path(p, true)?,
            Form::All(p) => self.path(p, false)?,
            Form::Next(_) | Form::Finally(_) | Form::Globally(_) | Form::Until(..) => {
                return Err(CtlError::NotCtl {
                    reason: "a temporal operator outside a path quantifier",
                });
            }
            // State formulas returned above.
            Form::Bool(_) | Form::Deadlock | Form::Fireable(_) | Form::Compare(..) => {
                return Err(CtlError::NotCtl {
                    reason: "a state formula that does not compile",
                });
            }
        })
    }

    /// The path formula `p` under `E` (`exists`) or `A`.
    fn path(&mut self, p: &ResolvedFormula, exists: bool) -> Result<NodeId, CtlError> {
        Ok(match (p, exists) {
            (Form::Next(g), _) => {
                let g = self.state(g)?;
                if exists { self.ex(g) } else { self.ax(g) }
            }
            (Form::Finally(g), _) => {
                let g = self.state(g)?;
                if exists { self.ef(g) } else { self.af(g) }
            }
            (Form::Globally(g), _) => {
                let g = self.state(g)?;
                if exists { self.eg(g) } else { self.ag(g) }
            }
            (Form::Until(a, b), _) => {
                let (a, b) = (self.state(a)?, self.state(b)?);
                if exists { self.eu(a, b) } else { self.au(a, b) }
            }
            (Form::Not(q), _) => match q.as_ref() {
                Form::Not(r) => self.path(r, exists)?,
                // E ¬F φ = EG ¬φ, A ¬F φ = AG ¬φ, and the duals.
                Form::Finally(g) => {
                    let g = self.state(g)?;
                    let ng = self.not(g);
                    if exists { self.eg(ng) } else { self.ag(ng) }
                }
                Form::Globally(g) => {
                    let g = self.state(g)?;
                    let ng = self.not(g);
                    if exists { self.ef(ng) } else { self.af(ng) }
                }
                Form::Next(g) => {
                    // ¬X φ holds on a path that is a deadlock alone (it has no next state)
                    // when paths are maximal; AX already holds there.
                    let g = self.state(g)?;
                    let ng = self.not(g);
                    if exists {
                        let e = self.ex(ng);
                        match self.rule {
                            DeadlockRule::Stutter => e,
                            DeadlockRule::Maximal => {
                                let dead = self.atom(Predicate::Deadlock);
                                self.junction(vec![e, dead], false)
                            }
                        }
                    } else {
                        self.ax(ng)
                    }
                }
                // ¬(φ U ψ) under a quantifier is not CTL; a negated state formula is.
                _ => self.state(p).map_err(|_| CtlError::NotCtl {
                    reason: "a negated path formula other than ¬X, ¬F, ¬G",
                })?,
            },
            // A quantifier over a state formula is that formula.
            _ => self.state(p).map_err(|_| CtlError::NotCtl {
                reason: "a Boolean combination of path formulas under a path quantifier",
            })?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::syntax::{Cmp, IntExpr};

    fn p() -> ResolvedFormula {
        Form::Compare(IntExpr::Tokens(vec![0]), Cmp::Ge, IntExpr::Const(1))
    }

    fn ef(f: ResolvedFormula) -> ResolvedFormula {
        Form::Exists(Box::new(Form::Finally(Box::new(f))))
    }

    fn build(f: &ResolvedFormula) -> Ctl {
        Ctl::build(f, DeadlockRule::Maximal, None).unwrap()
    }

    #[test]
    fn rewrites_share_subformulas_and_simplify() {
        // EF EF p is EF p: the same graph.
        let once = build(&ef(p()));
        let twice = build(&ef(ef(p())));
        assert_eq!(once.node(once.root), twice.node(twice.root));
        assert_eq!(twice.len(), once.len());
        // AG p ∧ ¬AG p is false; EG true is true; E[false U p] is p.
        let ag = Form::All(Box::new(Form::Globally(Box::new(p()))));
        let contradiction = Form::And(vec![ag.clone(), Form::Not(Box::new(ag))]);
        assert_eq!(build(&contradiction).constant(), Some(false));
        let eg_true = Form::Exists(Box::new(Form::Globally(Box::new(Form::Bool(true)))));
        assert_eq!(build(&eg_true).constant(), Some(true));
        let until = Form::Exists(Box::new(Form::Until(
            Box::new(Form::Bool(false)),
            Box::new(p()),
        )));
        let c = build(&until);
        assert!(matches!(c.node(c.root), Node::Atom(_)));
    }

    #[test]
    fn next_true_is_not_a_deadlock_on_maximal_paths() {
        let ex = Form::Exists(Box::new(Form::Next(Box::new(Form::Bool(true)))));
        let c = build(&ex);
        assert!(
            matches!(c.node(c.root), Node::Not(a) if *c.node(*a) == Node::Atom(Predicate::Deadlock))
        );
        let s = Ctl::build(&ex, DeadlockRule::Stutter, None).unwrap();
        assert_eq!(s.constant(), Some(true));
    }
}
