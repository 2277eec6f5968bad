//! What the PNML reader does once the whole net is read: reference nodes resolved to their
//! places and transitions, then the arcs, which may come before their endpoints, resolved,
//! checked and added (a marked pair p→t, t→p becoming one read arc).

use rustc_hash::FxHashMap;

use super::{ArcMark, IdKind, Parser, PendingArc, shorten};
use crate::formats::{Position, ReadError};
use crate::model::net::{Arc, ArcKind, BuildError, Node, PlaceIdx, TransIdx};

impl<'a> Parser<'a> {
    /// Resolves every reference node to its place or transition (chains followed, cycles and
    /// unknown targets refused).
    fn resolve_refs(&self) -> Result<Vec<Node>, ReadError> {
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let n = self.refs.len();
        let mut state = vec![UNSEEN; n];
        let mut resolved = vec![Node::Place(0); n];
        let mut path: Vec<usize> = Vec::new();
        for start in 0..n {
            if state[start] != UNSEEN {
                continue;
            }
            path.clear();
            let mut cur = start;
            // Walk the chain until a real node or an already resolved reference.
            let node = loop {
                state[cur] = ON_PATH;
                path.push(cur);
                let r = &self.refs[cur];
                let Some(info) = self.ids.get(&*r.target) else {
                    return Err(self.err(
                        r.offset,
                        format!(
                            "reference node '{}' refers to unknown node '{}'",
                            shorten(&r.id),
                            shorten(&r.target)
                        ),
                    ));
                };
                match info.kind {
                    IdKind::Node(node) => break node,
                    IdKind::Ref(next) => {
                        let next = next as usize;
                        match state.get(next).copied() {
                            Some(DONE) => break resolved[next],
                            Some(ON_PATH) => {
                                let from = path.iter().position(|&i| i == next).unwrap_or(0);
                                let mut ids: Vec<String> = path[from..]
                                    .iter()
                                    .map(|&i| format!("'{}'", shorten(&self.refs[i].id)))
                                    .collect();
                                ids.push(format!("'{}'", shorten(&self.refs[next].id)));
                                return Err(self.err(
                                    self.refs[next].offset,
                                    format!("cycle of reference nodes: {}", ids.join(" -> ")),
                                ));
                            }
                            _ => cur = next,
                        }
                    }
                    IdKind::Arc | IdKind::Page => {
                        return Err(self.err(
                            r.offset,
                            format!(
                                "reference node '{}' refers to '{}', which is not a place or \
                                 transition",
                                shorten(&r.id),
                                shorten(&r.target)
                            ),
                        ));
                    }
                }
            };
            for &i in &path {
                state[i] = DONE;
                resolved[i] = node;
            }
        }
        // A reference place must end at a place, a reference transition at a transition.
        for (r, node) in self.refs.iter().zip(&resolved) {
            let ok = matches!(
                (r.is_place, node),
                (true, Node::Place(_)) | (false, Node::Transition(_))
            );
            if !ok {
                let (this, other) = if r.is_place {
                    ("referencePlace", "a transition")
                } else {
                    ("referenceTransition", "a place")
                };
                return Err(self.err(
                    r.offset,
                    format!(
                        "{this} '{}' refers (via '{}') to {other}",
                        shorten(&r.id),
                        shorten(&r.target)
                    ),
                ));
            }
        }
        Ok(resolved)
    }

    /// The node an arc end names.
    fn endpoint(
        &self,
        refs: &[Node],
        a: &PendingArc<'a>,
        end: &str,
        what: &str,
    ) -> Result<Node, ReadError> {
        match self.ids.get(end).map(|i| i.kind) {
            Some(IdKind::Node(n)) => Ok(n),
            Some(IdKind::Ref(r)) => refs
                .get(r as usize)
                .copied()
                .ok_or_else(|| self.err(a.offset, "internal error: unresolved reference")),
            Some(IdKind::Arc | IdKind::Page) => Err(self.err(
                a.offset,
                format!(
                    "arc '{}': {what} '{}' is not a place or transition",
                    shorten(&a.id),
                    shorten(end)
                ),
            )),
            None => Err(self.err(
                a.offset,
                format!(
                    "arc '{}' has unknown {what} '{}'",
                    shorten(&a.id),
                    shorten(end)
                ),
            )),
        }
    }

    /// The place, transition and direction (input or output) of an arc.
    fn arc_nodes(
        &self,
        refs: &[Node],
        a: &PendingArc<'a>,
    ) -> Result<(PlaceIdx, TransIdx, ArcKind), ReadError> {
        let source = self.endpoint(refs, a, &a.source, "source")?;
        let target = self.endpoint(refs, a, &a.target, "target")?;
        let two = |what: &str| {
            self.err(
                a.offset,
                format!(
                    "arc '{}' connects two {what} ('{}' -> '{}'): arcs must join a place and a \
                     transition",
                    shorten(&a.id),
                    shorten(&a.source),
                    shorten(&a.target)
                ),
            )
        };
        match (source, target) {
            (Node::Place(p), Node::Transition(t)) => Ok((p, t, ArcKind::Input)),
            (Node::Transition(t), Node::Place(p)) => Ok((p, t, ArcKind::Output)),
            (Node::Place(_), Node::Place(_)) => Err(two("places")),
            (Node::Transition(_), Node::Transition(_)) => Err(two("transitions")),
        }
    }

    /// The kind an arc is added as, given its direction; `None` for the output half of a read
    /// arc (the input half stands for the pair).
    fn effective_kind(
        &self,
        a: &PendingArc<'a>,
        dir: ArcKind,
    ) -> Result<Option<ArcKind>, ReadError> {
        match (a.mark, dir) {
            (ArcMark::Plain, _) => Ok(Some(dir)),
            (ArcMark::Test | ArcMark::ReadHalf, ArcKind::Input) => Ok(Some(ArcKind::Read)),
            (ArcMark::ReadHalf, _) => Ok(None),
            (ArcMark::Test, _) => Err(self.err(
                a.offset,
                format!(
                    "test arc '{}' must go from a place to a transition",
                    shorten(&a.id)
                ),
            )),
        }
    }

    /// Resolves references and arcs and puts the arcs into the net's transitions, sorted by
    /// place, refusing duplicates.
    pub(super) fn resolve(&mut self) -> Result<(), ReadError> {
        let refs = self.resolve_refs()?;
        let arcs = std::mem::take(&mut self.arcs);
        // Halves of read arcs, by (place, transition): [input half, output half].
        let mut halves: FxHashMap<(PlaceIdx, TransIdx), [Option<usize>; 2]> = FxHashMap::default();
        for (i, a) in arcs.iter().enumerate() {
            let (place, trans, dir) = self.arc_nodes(&refs, a)?;
            if a.mark == ArcMark::ReadHalf {
                let slot = &mut halves.entry((place, trans)).or_default()
                    [usize::from(dir == ArcKind::Output)];
                if slot.is_some() {
                    return Err(self.err(
                        a.offset,
                        format!(
                            "arc '{}': duplicate read arc between place '{}' and transition '{}'",
                            shorten(&a.id),
                            shorten(&a.source),
                            shorten(&a.target)
                        ),
                    ));
                }
                *slot = Some(i);
                continue;
            }
            if let Some(kind) = self.effective_kind(a, dir)? {
                self.push_arc(place, trans, kind, a.weight);
            }
        }
        // Pair the halves, in file order of their first half.
        let mut pairs: Vec<_> = halves.into_iter().collect();
        pairs.sort_unstable_by_key(|(_, h)| h.iter().flatten().min().copied());
        for ((place, trans), half) in pairs {
            match half {
                [Some(i), Some(o)] => {
                    let (a, b) = (&arcs[i], &arcs[o]);
                    if a.weight != b.weight {
                        return Err(self.err(
                            b.offset,
                            format!(
                                "read arc halves '{}' and '{}' have different weights ({} and {})",
                                shorten(&a.id),
                                shorten(&b.id),
                                a.weight,
                                b.weight
                            ),
                        ));
                    }
                    self.push_arc(place, trans, ArcKind::Read, a.weight);
                }
                [Some(i), None] | [None, Some(i)] => {
                    let a = &arcs[i];
                    return Err(self.err(
                        a.offset,
                        format!(
                            "arc '{}' is marked as half of a read arc (toolspecific unfold \
                             <read/>) but the arc in the other direction is missing",
                            shorten(&a.id)
                        ),
                    ));
                }
                [None, None] => {}
            }
        }
        // Sort every arc list by place; equal neighbours are duplicate arcs.
        let mut dup = None;
        'all: for (ti, t) in self.net.transitions.iter_mut().enumerate() {
            for (list, kind) in [
                (&mut t.pre, ArcKind::Input),
                (&mut t.post, ArcKind::Output),
                (&mut t.reads, ArcKind::Read),
            ] {
                list.sort_unstable();
                if let Some(w) = list.windows(2).find(|w| w[0].place == w[1].place) {
                    dup = Some((w[0].place, ti as TransIdx, kind));
                    break 'all;
                }
            }
        }
        match dup {
            Some((place, trans, kind)) => Err(self.duplicate_arc(&refs, &arcs, place, trans, kind)),
            None => Ok(()),
        }
    }

    /// Adds an arc to its transition (unsorted).
    fn push_arc(&mut self, place: PlaceIdx, trans: TransIdx, kind: ArcKind, weight: u32) {
        if let Some(t) = self.net.transitions.get_mut(trans as usize) {
            let list = match kind {
                ArcKind::Input => &mut t.pre,
                ArcKind::Output => &mut t.post,
                ArcKind::Read => &mut t.reads,
            };
            list.push(Arc { place, weight });
        }
    }

    /// The error for a duplicate arc, at the second arc of the file that makes it (error
    /// path only: re-resolves the arcs to find it).
    fn duplicate_arc(
        &self,
        refs: &[Node],
        arcs: &[PendingArc<'a>],
        place: PlaceIdx,
        trans: TransIdx,
        kind: ArcKind,
    ) -> ReadError {
        let place_id = self
            .net
            .places
            .get(place as usize)
            .map_or("", |p| p.id.as_str());
        let trans_id = self
            .net
            .transitions
            .get(trans as usize)
            .map_or("", |t| t.id.as_str());
        let err = BuildError::DuplicateArc {
            kind: match kind {
                ArcKind::Input => "input",
                ArcKind::Output => "output",
                ArcKind::Read => "read",
            },
            place: place_id.to_string(),
            transition: trans_id.to_string(),
        };
        let mut seen = false;
        for a in arcs {
            let Ok((p, t, dir)) = self.arc_nodes(refs, a) else {
                continue;
            };
            if (p, t) == (place, trans)
                && matches!(self.effective_kind(a, dir), Ok(Some(k)) if k == kind)
            {
                if seen {
                    return self.err(a.offset, format!("arc '{}': {err}", shorten(&a.id)));
                }
                seen = true;
            }
        }
        ReadError::parse(self.ctx.file, Some(Position::Byte(0)), err.to_string())
    }
}
