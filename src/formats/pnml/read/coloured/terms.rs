//! Sorts, variables, colour terms, multiset terms and guards of a coloured PNML net, each
//! checked against the sort it must have: a term of the wrong sort, an unknown sort, constant
//! or variable, and an operator outside the supported ones are errors at their element.

use compact_str::CompactString;

use super::{El, Reader, compact};
use crate::formats::ReadError;
use crate::model::coloured::{Cmp, Guard, Multiset, SortKind, Term, Variable};

/// The element's operands: the single element inside each `<subterm>` child.
fn operands<'e, 'a>(el: &'e El<'a>) -> Vec<&'e El<'a>> {
    el.kids
        .iter()
        .filter(|k| k.name == "subterm")
        .filter_map(|k| k.kids.first())
        .collect()
}

impl Reader<'_, '_> {
    /// A `<declaration>`: named sorts and variables (sorts first, in any order among them).
    pub(super) fn declaration(&mut self, d: &El) -> Result<(), ReadError> {
        let Some(decls) = d.child("structure").and_then(|s| s.child("declarations")) else {
            return Ok(());
        };
        let named: Vec<&El> = decls
            .kids
            .iter()
            .filter(|k| matches!(k.name, "namedsort" | "partition"))
            .collect();
        // Sorts may name sorts declared after them: resolve on demand, detecting cycles.
        let mut pending: rustc_hash::FxHashMap<&str, &El> = rustc_hash::FxHashMap::default();
        for n in &named {
            let id = n.attr("id").ok_or_else(|| self.bad(n, "no id attribute"))?;
            pending.insert(id, n);
        }
        for n in &named {
            let id = n.attr("id").unwrap_or_default();
            self.named_sort(id, &pending, &mut Vec::new())?;
        }
        for k in &decls.kids {
            match k.name {
                "namedsort" | "partition" => {}
                "variabledecl" => {
                    let id = k.attr("id").ok_or_else(|| self.bad(k, "no id attribute"))?;
                    let sort_el = k
                        .kids
                        .first()
                        .ok_or_else(|| self.bad(k, format!("variable '{id}' has no sort")))?;
                    let sort = self.sort(sort_el)?;
                    let index = self.net.variables.len() as u32;
                    if self.variables.insert(id.to_string(), index).is_some() {
                        return Err(self.bad(k, format!("variable '{id}' declared twice")));
                    }
                    self.net.variables.push(Variable {
                        id: compact(id),
                        sort,
                    });
                }
                other => {
                    return Err(self.bad(k, format!("unsupported declaration <{other}>")));
                }
            }
        }
        Ok(())
    }

    /// Declares the named sort `id` (and the ones it names) unless done.
    fn named_sort<'e>(
        &mut self,
        id: &'e str,
        pending: &rustc_hash::FxHashMap<&'e str, &'e El<'e>>,
        path: &mut Vec<&'e str>,
    ) -> Result<u32, ReadError> {
        if let Some(&s) = self.sorts.get(id) {
            return Ok(s);
        }
        let Some(&el) = pending.get(id) else {
            return Err(self.p.err(0, format!("unknown sort '{id}'")));
        };
        if path.contains(&id) {
            return Err(self.bad(el, format!("sort '{id}' is defined in terms of itself")));
        }
        path.push(id);
        // A partition is its own definition: the partitioned sort and its elements.
        let body = if el.name == "partition" {
            el
        } else {
            el.kids
                .first()
                .ok_or_else(|| self.bad(el, format!("sort '{id}' has no definition")))?
        };
        // Components named by `usersort` are declared first.
        let mut refs = Vec::new();
        if body.name == "usersort" {
            refs.push(body);
        }
        if matches!(body.name, "productsort" | "partition") {
            refs.extend(body.kids.iter().filter(|k| k.name == "usersort"));
        }
        for r in refs {
            let target = r
                .attr("declaration")
                .ok_or_else(|| self.bad(r, "no declaration attribute"))?;
            if !self.sorts.contains_key(target) {
                if !pending.contains_key(target) {
                    return Err(self.bad(r, format!("unknown sort '{target}'")));
                }
                self.named_sort(target, pending, path)?;
            }
        }
        path.pop();
        let sort = self.sort_body(body, id)?;
        self.sorts.insert(id.to_string(), sort);
        Ok(sort)
    }

    /// A sort element: a reference to a named sort or an inline definition.
    pub(super) fn sort(&mut self, el: &El) -> Result<u32, ReadError> {
        if el.name == "usersort" {
            let id = el
                .attr("declaration")
                .ok_or_else(|| self.bad(el, "no declaration attribute"))?;
            return self
                .sorts
                .get(id)
                .copied()
                .ok_or_else(|| self.bad(el, format!("unknown sort '{id}'")));
        }
        let name = format!("sort@{}", el.off);
        self.sort_body(el, &name)
    }

    /// Declares the sort `el` defines, named `name`.
    fn sort_body(&mut self, el: &El, name: &str) -> Result<u32, ReadError> {
        let kind = match el.name {
            "usersort" => return self.sort(el),
            "dot" => {
                if let Some(d) = self.dot {
                    return Ok(d);
                }
                SortKind::Dot
            }
            "cyclicenumeration" | "finiteenumeration" => {
                let mut constants = Vec::new();
                for k in &el.kids {
                    if k.name != "feconstant" {
                        return Err(self.bad(k, "expected <feconstant>"));
                    }
                    let id = k.attr("id").ok_or_else(|| self.bad(k, "no id attribute"))?;
                    constants.push((compact(id), k));
                }
                let sort = self.net.sorts.len() as u32;
                for (i, (id, k)) in constants.iter().enumerate() {
                    if self
                        .constants
                        .insert(id.to_string(), (sort, i as u32))
                        .is_some()
                    {
                        return Err(self.bad(k, format!("constant '{id}' declared twice")));
                    }
                }
                SortKind::Enumeration {
                    constants: constants.into_iter().map(|(c, _)| c).collect(),
                    cyclic: el.name == "cyclicenumeration",
                }
            }
            "finiteintrange" => {
                let (start, end) = self.range(el)?;
                SortKind::IntRange { start, end }
            }
            "productsort" => {
                let mut parts = Vec::new();
                for k in &el.kids {
                    parts.push(self.sort(k)?);
                }
                if parts.is_empty() {
                    return Err(self.bad(el, "a product of no sort"));
                }
                SortKind::Product(parts)
            }
            "partition" => return self.partition(el, name),
            other => return Err(self.bad(el, format!("unsupported sort <{other}>"))),
        };
        let is_dot = kind == SortKind::Dot;
        let id = self
            .net
            .sorts
            .add(CompactString::from(name), kind)
            .map_err(|e| self.bad(el, e))?;
        if is_dot {
            self.dot = Some(id);
        }
        Ok(id)
    }

    /// A `partition` named `name`: the sort of its elements, an enumeration of their
    /// identifiers in declaration order (the order `ltp` and `gtp` compare by). Every colour of
    /// the partitioned sort must be in exactly one element.
    fn partition(&mut self, el: &El, name: &str) -> Result<u32, ReadError> {
        let mut kids = el.kids.iter();
        let base_el = kids
            .next()
            .ok_or_else(|| self.bad(el, "a partition needs the sort it partitions"))?;
        let base = self.sort(base_el)?;
        let size = self.net.sorts.get(base).size as usize;
        let mut element: Vec<Option<u32>> = vec![None; size];
        let mut ids = Vec::new();
        for k in kids {
            if k.name != "partitionelement" {
                return Err(self.bad(k, "expected <partitionelement>"));
            }
            let id = k.attr("id").ok_or_else(|| self.bad(k, "no id attribute"))?;
            let index = ids.len() as u32;
            for c in &k.kids {
                let (term, _) = self.term(c, Some(base))?;
                let mut vars = Vec::new();
                term.variables(&mut vars);
                if !vars.is_empty() {
                    return Err(self.bad(c, "a partition element lists constants"));
                }
                // A closed term (a constant, a tuple of constants): its one value.
                let colour = term.eval(&[]);
                if let Some(other) = element[colour as usize].replace(index) {
                    let mut shown = String::new();
                    self.net.sorts.colour_name(base, colour, &mut shown);
                    return Err(self.bad(
                        c,
                        format!(
                            "'{shown}' is in two partition elements ('{}' and '{id}')",
                            ids[other as usize]
                        ),
                    ));
                }
            }
            ids.push(compact(id));
        }
        if let Some(missing) = element.iter().position(Option::is_none) {
            let mut shown = String::new();
            self.net.sorts.colour_name(base, missing as u32, &mut shown);
            return Err(self.bad(
                el,
                format!("'{shown}' is in no element of partition '{name}'"),
            ));
        }
        let sort = self.net.sorts.len() as u32;
        for (i, id) in ids.iter().enumerate() {
            if self
                .constants
                .insert(id.to_string(), (sort, i as u32))
                .is_some()
            {
                return Err(self.bad(el, format!("constant '{id}' declared twice")));
            }
        }
        let kind = SortKind::Enumeration {
            constants: ids,
            cyclic: false,
        };
        let id = self
            .net
            .sorts
            .add(CompactString::from(name), kind)
            .map_err(|e| self.bad(el, e))?;
        debug_assert_eq!(id, sort);
        let element = element.into_iter().flatten().collect();
        self.partitions
            .insert(name.to_string(), (id, base, element));
        Ok(id)
    }

    /// The `start` and `end` of a `finiteintrange`.
    fn range(&self, el: &El) -> Result<(i64, i64), ReadError> {
        let get = |key: &str| -> Result<i64, ReadError> {
            let v = el
                .attr(key)
                .ok_or_else(|| self.bad(el, format!("no {key} attribute")))?;
            v.trim()
                .parse()
                .map_err(|_| self.bad(el, format!("{key} is not an integer: '{v}'")))
        };
        Ok((get("start")?, get("end")?))
    }

    /// Sort names for messages.
    fn sort_name(&self, s: u32) -> &str {
        &self.net.sorts.get(s).name
    }

    /// Checks that a term of sort `found` may stand where `want` is expected.
    fn expect(&self, el: &El, want: u32, found: u32) -> Result<(), ReadError> {
        if self.net.sorts.same(want, found) {
            Ok(())
        } else {
            Err(self.bad(
                el,
                format!(
                    "ill-typed term: of sort '{}' where sort '{}' is expected",
                    self.sort_name(found),
                    self.sort_name(want)
                ),
            ))
        }
    }

    /// A multiset term over `sort`.
    pub(super) fn multiset(&mut self, el: &El, sort: u32) -> Result<Multiset, ReadError> {
        match el.name {
            "numberof" => {
                let ops = operands(el);
                let [count, what] = ops[..] else {
                    return Err(self.bad(el, "numberof takes a count and a term"));
                };
                let n = self.number(count)?;
                let broadcast =
                    what.name == "tuple" && operands(what).iter().any(|o| o.name == "all");
                match what.name {
                    _ if broadcast => Ok(Multiset::Scale(n, Box::new(self.multiset(what, sort)?))),
                    "all" | "add" | "subtract" | "numberof" => {
                        Ok(Multiset::Scale(n, Box::new(self.multiset(what, sort)?)))
                    }
                    _ => Ok(Multiset::Of(n, self.term(what, Some(sort))?.0)),
                }
            }
            "all" => {
                let s = el
                    .kids
                    .first()
                    .ok_or_else(|| self.bad(el, "all needs a sort"))?;
                let s = self.sort(s)?;
                self.expect(el, sort, s)?;
                Ok(Multiset::All(self.net.sorts.get(s).size))
            }
            "add" => {
                let mut parts = Vec::new();
                for o in operands(el) {
                    parts.push(self.multiset(o, sort)?);
                }
                Ok(Multiset::Add(parts))
            }
            "subtract" => {
                // `a - b - c …`, from the left.
                let ops = operands(el);
                let Some((first, rest)) = ops.split_first().filter(|(_, r)| !r.is_empty()) else {
                    return Err(self.bad(el, "subtract takes two terms or more"));
                };
                let mut acc = self.multiset(first, sort)?;
                for o in rest {
                    acc = Multiset::Subtract(Box::new(acc), Box::new(self.multiset(o, sort)?));
                }
                Ok(acc)
            }
            "tuple" if operands(el).iter().any(|o| o.name == "all") => self.tuple_all(el, sort),
            _ => Ok(Multiset::Of(1, self.term(el, Some(sort))?.0)),
        }
    }

    /// A tuple with `all` components, over `sort`: a product of as many components, or, for
    /// a tuple of one component, that component's sort.
    fn tuple_all(&mut self, el: &El, sort: u32) -> Result<Multiset, ReadError> {
        let ops = operands(el);
        let components = match self.net.sorts.components(sort) {
            Some(c) if c.len() == ops.len() => c.to_vec(),
            _ if ops.len() == 1 => vec![sort],
            _ => {
                return Err(self.bad(
                    el,
                    format!(
                        "ill-typed term: a tuple of {} components where sort '{}' is expected",
                        ops.len(),
                        self.sort_name(sort)
                    ),
                ));
            }
        };
        let mut parts = Vec::new();
        for (o, &c) in ops.iter().zip(&components) {
            parts.push(if o.name == "all" {
                let s = o
                    .kids
                    .first()
                    .ok_or_else(|| self.bad(o, "all needs a sort"))?;
                let s = self.sort(s)?;
                self.expect(o, c, s)?;
                None
            } else {
                Some(self.term(o, Some(c))?.0)
            });
        }
        let radices = components
            .iter()
            .map(|&c| self.net.sorts.get(c).size)
            .collect();
        Ok(Multiset::Tuple { parts, radices })
    }

    /// A `numberconstant`'s natural value.
    fn number(&self, el: &El) -> Result<u64, ReadError> {
        if el.name != "numberconstant" {
            return Err(self.bad(el, "expected a <numberconstant> count"));
        }
        let v = el.attr("value").unwrap_or("");
        v.trim()
            .parse()
            .map_err(|_| self.bad(el, format!("not a natural number: '{v}'")))
    }

    /// A colour term and its sort; `want` is the sort it must have, when known.
    fn term(&mut self, el: &El, want: Option<u32>) -> Result<(Term, u32), ReadError> {
        let (term, sort) = match el.name {
            "variable" => {
                let id = el.attr("refvariable").unwrap_or("");
                let v = *self
                    .variables
                    .get(id)
                    .ok_or_else(|| self.bad(el, format!("undeclared variable '{id}'")))?;
                (Term::Var(v), self.net.variables[v as usize].sort)
            }
            "useroperator" => {
                let id = el.attr("declaration").unwrap_or("");
                let &(s, c) = self
                    .constants
                    .get(id)
                    .ok_or_else(|| self.bad(el, format!("unknown constant '{id}'")))?;
                (Term::Const(c), s)
            }
            "dotconstant" => {
                let d = match self.dot {
                    Some(d) => d,
                    None => {
                        let d = self
                            .net
                            .sorts
                            .add("dot", SortKind::Dot)
                            .map_err(|e| self.bad(el, e))?;
                        self.dot = Some(d);
                        d
                    }
                };
                (Term::Const(0), d)
            }
            "finiteintrangeconstant" => {
                let range = el.kids.first().ok_or_else(|| self.bad(el, "no range"))?;
                let sort = self.sort(range)?;
                let SortKind::IntRange { start, end } = self.net.sorts.get(sort).kind else {
                    return Err(self.bad(el, "expected a <finiteintrange>"));
                };
                let v = el.attr("value").unwrap_or("");
                let v: i64 = v
                    .trim()
                    .parse()
                    .map_err(|_| self.bad(el, format!("not an integer: '{v}'")))?;
                if v < start || v > end {
                    return Err(self.bad(el, format!("{v} is outside {start}..{end}")));
                }
                // The range's own sort: equal to a declared one of the same bounds.
                let sort = want
                    .filter(|&w| self.net.sorts.get(w).kind == SortKind::IntRange { start, end })
                    .unwrap_or(sort);
                (Term::Const((v - start) as u32), sort)
            }
            "partitionelementof" => {
                let id = el.attr("refpartition").unwrap_or("");
                let (sort, base, element) = self
                    .partitions
                    .get(id)
                    .cloned()
                    .ok_or_else(|| self.bad(el, format!("unknown partition '{id}'")))?;
                let ops = operands(el);
                let [o] = ops[..] else {
                    return Err(self.bad(el, "takes one term"));
                };
                let (of, _) = self.term(o, Some(base))?;
                (
                    Term::ElementOf {
                        of: Box::new(of),
                        element,
                    },
                    sort,
                )
            }
            "successor" | "predecessor" => {
                let ops = operands(el);
                let [o] = ops[..] else {
                    return Err(self.bad(el, "takes one term"));
                };
                let (t, s) = self.term(o, want)?;
                let sort = self.net.sorts.get(s);
                if !matches!(sort.kind, SortKind::Enumeration { cyclic: true, .. }) {
                    return Err(self.bad(
                        el,
                        format!(
                            "ill-typed term: {} of sort '{}', which is not a cyclic enumeration",
                            el.name, sort.name
                        ),
                    ));
                }
                let step = if el.name == "successor" { 1 } else { -1 };
                let size = sort.size;
                let term = match t {
                    Term::Shift { of, by, size } => Term::Shift {
                        of,
                        by: by + step,
                        size,
                    },
                    t => Term::Shift {
                        of: Box::new(t),
                        by: step,
                        size,
                    },
                };
                (term, s)
            }
            "tuple"
                if operands(el).len() == 1
                    && want.is_some_and(|w| {
                        self.net.sorts.components(w).is_none_or(|c| c.len() != 1)
                    }) =>
            {
                // A tuple of one component is that component.
                return self.term(operands(el)[0], want);
            }
            "tuple" => {
                let ops = operands(el);
                let wanted: Option<Vec<u32>> =
                    want.and_then(|w| self.net.sorts.components(w).map(<[u32]>::to_vec));
                if let Some(w) = &wanted
                    && w.len() != ops.len()
                {
                    return Err(self.bad(
                        el,
                        format!(
                            "ill-typed term: a tuple of {} where sort '{}' has {} components",
                            ops.len(),
                            self.sort_name(want.unwrap_or(0)),
                            w.len()
                        ),
                    ));
                }
                let mut parts = Vec::new();
                let mut sorts = Vec::new();
                for (i, o) in ops.iter().enumerate() {
                    let (t, s) = self.term(o, wanted.as_ref().map(|w| w[i]))?;
                    parts.push(t);
                    sorts.push(s);
                }
                let radices = sorts.iter().map(|&s| self.net.sorts.get(s).size).collect();
                let sort = match want.filter(|_| wanted.is_some()) {
                    Some(w) => w,
                    None => self
                        .net
                        .sorts
                        .add(format!("tuple@{}", el.off), SortKind::Product(sorts))
                        .map_err(|e| self.bad(el, e))?,
                };
                (Term::Tuple { parts, radices }, sort)
            }
            other => return Err(self.bad(el, format!("unsupported operator <{other}>"))),
        };
        if let Some(w) = want {
            self.expect(el, w, sort)?;
        }
        Ok((term, sort))
    }

    /// A guard.
    pub(super) fn guard(&mut self, el: &El) -> Result<Guard, ReadError> {
        let cmp = match el.name {
            "equality" => Some(Cmp::Eq),
            "inequality" => Some(Cmp::Ne),
            "lessthan" => Some(Cmp::Lt),
            "lessthanorequal" => Some(Cmp::Le),
            "greaterthan" => Some(Cmp::Gt),
            "greaterthanorequal" => Some(Cmp::Ge),
            // Partition elements compare by their order in the partition.
            "ltp" => Some(Cmp::Lt),
            "gtp" => Some(Cmp::Gt),
            _ => None,
        };
        if let Some(cmp) = cmp {
            let ops = operands(el);
            let [a, b] = ops[..] else {
                return Err(self.bad(el, "a comparison takes two terms"));
            };
            // The side that is not a bare constant gives the sort (a variable, a tuple, …).
            let (first, second, swapped) = if is_constant(a) && !is_constant(b) {
                (b, a, true)
            } else {
                (a, b, false)
            };
            let (t1, s) = self.term(first, None)?;
            let (t2, _) = self.term(second, Some(s))?;
            if matches!(el.name, "ltp" | "gtp") && !self.partitions.values().any(|p| p.0 == s) {
                return Err(self.bad(
                    el,
                    format!(
                        "ill-typed guard: {} compares partition elements, not sort '{}'",
                        el.name,
                        self.sort_name(s)
                    ),
                ));
            }
            if cmp != Cmp::Eq && cmp != Cmp::Ne && !self.net.sorts.is_ordered(s) {
                return Err(self.bad(
                    el,
                    format!(
                        "ill-typed guard: sort '{}' is not ordered",
                        self.sort_name(s)
                    ),
                ));
            }
            let (l, r) = if swapped { (t2, t1) } else { (t1, t2) };
            return Ok(Guard::Compare(l, cmp, r));
        }
        match el.name {
            "and" | "or" => {
                let mut parts = Vec::new();
                for o in operands(el) {
                    parts.push(self.guard(o)?);
                }
                Ok(if el.name == "and" {
                    Guard::And(parts)
                } else {
                    Guard::Or(parts)
                })
            }
            "not" => {
                let ops = operands(el);
                let [o] = ops[..] else {
                    return Err(self.bad(el, "not takes one term"));
                };
                Ok(Guard::Not(Box::new(self.guard(o)?)))
            }
            "booleanconstant" => match el.attr("value").map(str::trim) {
                Some("true") => Ok(Guard::True),
                Some("false") => Ok(Guard::Not(Box::new(Guard::True))),
                _ => Err(self.bad(el, "value must be true or false")),
            },
            other => Err(self.bad(el, format!("unsupported operator <{other}>"))),
        }
    }
}

/// Whether `el` is a constant whose sort comes from its context.
fn is_constant(el: &El) -> bool {
    matches!(el.name, "finiteintrangeconstant" | "dotconstant")
}
