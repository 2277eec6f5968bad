//! Resolving a property's names against a net: place and transition identifiers first (the
//! contest names nodes by id), then labels. An unknown name, a label shared by several nodes,
//! or a transition where a place is expected (and the reverse) is an error naming the name and
//! where it was read.
//!
//! On the unfolding of a coloured net ([`Net::folding`]) a coloured node's name stands for the
//! set of P/T nodes it became: a coloured place's tokens are the sum over its colours, a
//! coloured transition is fireable when one of its bindings is. Coloured names come first.

use rustc_hash::FxHashMap;

use super::syntax::{Ask, Form, IntExpr, Name, Property, Query, ResolvedQuery};
use crate::model::net::{Net, PlaceIdx, TransIdx};

/// Why a name does not resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// No place or transition has this identifier or label.
    #[error("{}unknown {expected} '{}'", at(.name), .name.text)]
    Unknown {
        /// The name.
        name: Name,
        /// `place` or `transition`.
        expected: &'static str,
    },
    /// The name is a node of the other kind.
    #[error("{}'{}' is a {found}, not a {expected}", at(.name), .name.text)]
    WrongKind {
        /// The name.
        name: Name,
        /// What the formula needs there.
        expected: &'static str,
        /// What the net has.
        found: &'static str,
    },
    /// No identifier matches and several nodes carry this label.
    #[error("{}the label '{}' names {count} {expected}s: use an identifier", at(.name), .name.text)]
    Ambiguous {
        /// The name.
        name: Name,
        /// `place` or `transition`.
        expected: &'static str,
        /// How many carry it.
        count: usize,
    },
}

impl ResolveError {
    /// The name that failed.
    pub fn name(&self) -> &Name {
        match self {
            ResolveError::Unknown { name, .. }
            | ResolveError::WrongKind { name, .. }
            | ResolveError::Ambiguous { name, .. } => name,
        }
    }
}

fn at(name: &Name) -> String {
    if name.line == 0 {
        String::new()
    } else {
        format!("{}:{}: ", name.line, name.column)
    }
}

#[derive(Clone, Copy)]
enum Node {
    Place(PlaceIdx),
    Transition(TransIdx),
}

/// What a coloured node became: P/T places or P/T transitions.
#[derive(Clone)]
enum Folded {
    Places(Vec<PlaceIdx>),
    Transitions(Vec<TransIdx>),
}

/// The net's names, looked up once per net and then for every formula.
pub struct Names {
    /// Coloured nodes by identifier and by label (identifiers win).
    folded: FxHashMap<String, Folded>,
    ids: FxHashMap<String, Node>,
    /// Labels: the node, or `None` when several share the label (with their count).
    labels: FxHashMap<String, (Node, usize)>,
}

impl Names {
    /// The names of `net`.
    pub fn of(net: &Net) -> Names {
        let mut ids = FxHashMap::default();
        let mut labels: FxHashMap<String, (Node, usize)> = FxHashMap::default();
        let nodes = net
            .places
            .iter()
            .enumerate()
            .map(|(i, p)| (&p.id, &p.label, Node::Place(i as PlaceIdx)))
            .chain(
                net.transitions
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (&t.id, &t.label, Node::Transition(i as TransIdx))),
            );
        for (id, label, node) in nodes {
            ids.insert(id.to_string(), node);
            labels
                .entry(label.to_string())
                .and_modify(|(_, n)| *n += 1)
                .or_insert((node, 1));
        }
        let mut folded = FxHashMap::default();
        if let Some(f) = &net.folding {
            let member = |id: &str| ids.get(id).copied();
            let places = f.places.iter().map(|fold| {
                let ps = fold.members.iter().filter_map(|m| match member(m) {
                    Some(Node::Place(p)) => Some(p),
                    _ => None,
                });
                (fold, Folded::Places(ps.collect()))
            });
            let transitions = f.transitions.iter().map(|fold| {
                let ts = fold.members.iter().filter_map(|m| match member(m) {
                    Some(Node::Transition(t)) => Some(t),
                    _ => None,
                });
                (fold, Folded::Transitions(ts.collect()))
            });
            let all: Vec<_> = places.chain(transitions).collect();
            for (fold, nodes) in &all {
                folded
                    .entry(fold.label.to_string())
                    .or_insert_with(|| nodes.clone());
            }
            for (fold, nodes) in all {
                folded.insert(fold.id.to_string(), nodes);
            }
        }
        Names {
            folded,
            ids,
            labels,
        }
    }

    /// The P/T places (`want_place`) or transitions a coloured name stands for, if it is one.
    fn folded(&self, name: &Name, want_place: bool) -> Option<Result<Vec<u32>, ResolveError>> {
        let expected = if want_place { "place" } else { "transition" };
        Some(match (self.folded.get(name.text.as_str())?, want_place) {
            (Folded::Places(ps), true) => Ok(ps.clone()),
            (Folded::Transitions(ts), false) => Ok(ts.clone()),
            (Folded::Places(_), false) => Err(ResolveError::WrongKind {
                name: name.clone(),
                expected,
                found: "place",
            }),
            (Folded::Transitions(_), true) => Err(ResolveError::WrongKind {
                name: name.clone(),
                expected,
                found: "transition",
            }),
        })
    }

    /// The nodes `names` stand for, coloured names expanded.
    fn expand(&self, names: &[Name], want_place: bool) -> Result<Vec<u32>, ResolveError> {
        let mut out = Vec::new();
        for n in names {
            match self.folded(n, want_place) {
                Some(nodes) => out.extend(nodes?),
                None if want_place => out.push(self.place(n)?),
                None => out.push(self.transition(n)?),
            }
        }
        Ok(out)
    }

    fn lookup(&self, name: &Name, want_place: bool) -> Result<Node, ResolveError> {
        let expected = if want_place { "place" } else { "transition" };
        let node = match self.ids.get(name.text.as_str()) {
            Some(&n) => n,
            None => match self.labels.get(name.text.as_str()) {
                Some(&(n, 1)) => n,
                Some(&(_, count)) => {
                    return Err(ResolveError::Ambiguous {
                        name: name.clone(),
                        expected,
                        count,
                    });
                }
                None => {
                    return Err(ResolveError::Unknown {
                        name: name.clone(),
                        expected,
                    });
                }
            },
        };
        match (node, want_place) {
            (Node::Place(_), true) | (Node::Transition(_), false) => Ok(node),
            (Node::Place(_), false) => Err(ResolveError::WrongKind {
                name: name.clone(),
                expected,
                found: "place",
            }),
            (Node::Transition(_), true) => Err(ResolveError::WrongKind {
                name: name.clone(),
                expected,
                found: "transition",
            }),
        }
    }

    /// The place `name` names.
    pub fn place(&self, name: &Name) -> Result<PlaceIdx, ResolveError> {
        match self.lookup(name, true)? {
            Node::Place(p) => Ok(p),
            Node::Transition(_) => unreachable!("checked by lookup"),
        }
    }

    /// The transition `name` names.
    pub fn transition(&self, name: &Name) -> Result<TransIdx, ResolveError> {
        match self.lookup(name, false)? {
            Node::Transition(t) => Ok(t),
            Node::Place(_) => unreachable!("checked by lookup"),
        }
    }

    /// `query` with every name replaced by its index.
    pub fn resolve(&self, query: &Query) -> Result<ResolvedQuery, ResolveError> {
        let ask = match &query.ask {
            Ask::Holds(f) => Ask::Holds(self.formula(f)?),
            Ask::Bound(ps) => Ask::Bound(self.places(ps)?),
        };
        Ok(Property {
            id: query.id.clone(),
            ask,
            spans: query.spans.clone(),
        })
    }

    fn places(&self, names: &[Name]) -> Result<Vec<PlaceIdx>, ResolveError> {
        self.expand(names, true)
    }

    fn int(&self, e: &IntExpr<Name>) -> Result<IntExpr<PlaceIdx>, ResolveError> {
        Ok(match e {
            IntExpr::Const(k) => IntExpr::Const(*k),
            IntExpr::Tokens(ps) => IntExpr::Tokens(self.places(ps)?),
            IntExpr::Sum(es) => {
                IntExpr::Sum(es.iter().map(|e| self.int(e)).collect::<Result<_, _>>()?)
            }
        })
    }

    /// `f` with every name replaced by its index.
    pub fn formula(&self, f: &Form<Name, Name>) -> Result<Form<PlaceIdx, TransIdx>, ResolveError> {
        let boxed = |g: &Form<Name, Name>| self.formula(g).map(Box::new);
        Ok(match f {
            Form::Bool(b) => Form::Bool(*b),
            Form::Deadlock => Form::Deadlock,
            Form::Fireable(ts) => Form::Fireable(self.expand(ts, false)?),
            Form::Compare(a, c, b) => Form::Compare(self.int(a)?, *c, self.int(b)?),
            Form::Not(g) => Form::Not(boxed(g)?),
            Form::And(gs) => Form::And(
                gs.iter()
                    .map(|g| self.formula(g))
                    .collect::<Result<_, _>>()?,
            ),
            Form::Or(gs) => Form::Or(
                gs.iter()
                    .map(|g| self.formula(g))
                    .collect::<Result<_, _>>()?,
            ),
            Form::Exists(g) => Form::Exists(boxed(g)?),
            Form::All(g) => Form::All(boxed(g)?),
            Form::Next(g) => Form::Next(boxed(g)?),
            Form::Finally(g) => Form::Finally(boxed(g)?),
            Form::Globally(g) => Form::Globally(boxed(g)?),
            Form::Until(a, b) => Form::Until(boxed(a)?, boxed(b)?),
        })
    }
}
