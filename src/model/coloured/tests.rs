//! Term evaluation against hand-computed values, and binding enumeration against a naive
//! cartesian product.

use proptest::prelude::*;

use super::*;

/// Sorts: `A` cyclic of 3 constants, `B` an int range 1..=2, `AxB` their product.
fn sorts() -> (Sorts, SortId, SortId, SortId) {
    let mut s = Sorts::default();
    let a = s
        .add(
            "A",
            SortKind::Enumeration {
                constants: vec!["a0".into(), "a1".into(), "a2".into()],
                cyclic: true,
            },
        )
        .unwrap();
    let b = s.add("B", SortKind::IntRange { start: 1, end: 2 }).unwrap();
    let ab = s.add("AxB", SortKind::Product(vec![a, b])).unwrap();
    (s, a, b, ab)
}

#[test]
fn successor_and_predecessor_wrap_around() {
    let succ = |by| Term::Shift {
        of: Box::new(Term::Var(0)),
        by,
        size: 3,
    };
    assert_eq!(succ(1).eval(&[2]), 0);
    assert_eq!(succ(1).eval(&[0]), 1);
    assert_eq!(succ(-1).eval(&[0]), 2);
    assert_eq!(succ(-4).eval(&[1]), 0);
    assert_eq!(succ(7).eval(&[2]), 0);
}

#[test]
fn partition_elements_of_colours_and_of_successors() {
    // Five colours in elements {0}, {1, 2, 3}, {4}.
    let of = |t: Term| Term::ElementOf {
        of: Box::new(t),
        element: vec![0, 1, 1, 1, 2],
    };
    let got: Vec<Colour> = (0..5).map(|c| of(Term::Var(0)).eval(&[c])).collect();
    assert_eq!(got, [0, 1, 1, 1, 2]);
    let next = Term::Shift {
        of: Box::new(Term::Var(0)),
        by: 1,
        size: 5,
    };
    assert_eq!(of(next.clone()).eval(&[4]), 0, "the successor of 4 is 0");
    assert_eq!(of(next).eval(&[3]), 2);
    let g = Guard::Compare(of(Term::Var(0)), Cmp::Lt, of(Term::Var(1)));
    assert!(g.holds(&[0, 1]) && g.holds(&[3, 4]) && !g.holds(&[1, 3]) && !g.holds(&[4, 0]));
}

#[test]
fn multisets_add_scale_and_subtract() {
    let one = |n, c| Multiset::Of(n, Term::Const(c));
    let sum = Multiset::Add(vec![one(2, 0), one(1, 1), Multiset::All(3)]);
    assert_eq!(sum.eval(&[]).unwrap(), vec![(0, 3), (1, 2), (2, 1)]);
    let scaled = Multiset::Scale(3, Box::new(sum.clone()));
    assert_eq!(scaled.eval(&[]).unwrap(), vec![(0, 9), (1, 6), (2, 3)]);
    let diff = Multiset::Subtract(Box::new(Multiset::All(3)), Box::new(one(1, 0)));
    assert_eq!(diff.eval(&[]).unwrap(), vec![(1, 1), (2, 1)]);
    let gone = Multiset::Subtract(Box::new(sum), Box::new(Multiset::All(3)));
    assert_eq!(gone.eval(&[]).unwrap(), vec![(0, 2), (1, 1)]);
    let negative = Multiset::Subtract(Box::new(one(1, 0)), Box::new(one(2, 0)));
    assert!(negative.eval(&[]).is_err());
    let absent = Multiset::Subtract(Box::new(one(1, 0)), Box::new(one(1, 2)));
    assert!(absent.eval(&[]).is_err());
    assert_eq!(one(0, 1).eval(&[]).unwrap(), vec![]);
}

#[test]
fn tuples_over_product_sorts() {
    let (s, _, _, ab) = sorts();
    assert_eq!(s.get(ab).size, 6);
    let t = Term::Tuple {
        parts: vec![Term::Var(0), Term::Var(1)],
        radices: vec![3, 2],
    };
    // (a2, 2): 2 * 2 + 1.
    assert_eq!(t.eval(&[2, 1]), 5);
    assert_eq!(s.split(ab, 5), vec![2, 1]);
    let mut name = String::new();
    s.colour_name(ab, 5, &mut name);
    assert_eq!(name, "a2_2");
    // (a1, all) is (a1, 1) + (a1, 2).
    let broadcast = Multiset::Tuple {
        parts: vec![Some(Term::Const(1)), None],
        radices: vec![3, 2],
    };
    assert_eq!(broadcast.eval(&[]).unwrap(), vec![(2, 1), (3, 1)]);
}

#[test]
fn guards_compare_by_position() {
    let v = |i| Term::Var(i);
    let g = Guard::And(vec![
        Guard::Compare(v(0), Cmp::Lt, v(1)),
        Guard::Not(Box::new(Guard::Compare(v(1), Cmp::Eq, Term::Const(2)))),
    ]);
    assert!(g.holds(&[0, 1]));
    assert!(!g.holds(&[0, 2]));
    assert!(!g.holds(&[1, 1]));
    let h = Guard::Or(vec![
        Guard::Compare(v(0), Cmp::Ge, Term::Const(2)),
        Guard::In(v(1), vec![0, 2]),
    ]);
    assert!(h.holds(&[2, 1]) && h.holds(&[0, 0]) && !h.holds(&[1, 1]));
    for (c, want) in [
        (Cmp::Eq, [false, true, false]),
        (Cmp::Ne, [true, false, true]),
        (Cmp::Lt, [true, false, false]),
        (Cmp::Le, [true, true, false]),
        (Cmp::Gt, [false, false, true]),
        (Cmp::Ge, [false, true, true]),
    ] {
        assert_eq!([c.holds(0, 1), c.holds(1, 1), c.holds(2, 1)], want, "{c:?}");
    }
}

/// A net of one transition over variables of the given sizes (cyclic enumerations), guarded
/// by `guard`, producing the tuple of its variables in a place of their product sort.
fn one_transition(sizes: &[u32], guard: Guard) -> ColouredNet {
    let mut net = ColouredNet::default();
    let mut parts = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let s = net
            .sorts
            .add(
                format!("S{i}"),
                SortKind::Enumeration {
                    constants: (0..n).map(|c| format!("c{c}").into()).collect(),
                    cyclic: true,
                },
            )
            .unwrap();
        parts.push(s);
        net.variables.push(Variable {
            id: format!("x{i}").into(),
            sort: s,
        });
    }
    let product = net.sorts.add("P", SortKind::Product(parts)).unwrap();
    net.places.push(ColouredPlace {
        id: "out".into(),
        label: "out".into(),
        sort: product,
        initial: None,
    });
    net.transitions.push(ColouredTransition {
        id: "t".into(),
        label: "t".into(),
        guard,
    });
    net.arcs.push(ColouredArc {
        place: 0,
        transition: 0,
        input: false,
        inscription: Multiset::Of(
            1,
            Term::Tuple {
                parts: (0..sizes.len() as u32).map(Term::Var).collect(),
                radices: sizes.to_vec(),
            },
        ),
    });
    net
}

/// A random guard over `vars` variables of sort sizes `sizes`.
fn guard(sizes: Vec<u32>) -> impl Strategy<Value = Guard> {
    let n = sizes.len() as u32;
    let term = {
        let sizes = sizes.clone();
        (0..n, 0..3i64, any::<bool>()).prop_map(move |(v, by, shift)| {
            if shift {
                Term::Shift {
                    of: Box::new(Term::Var(v)),
                    by,
                    size: sizes[v as usize],
                }
            } else {
                Term::Var(v)
            }
        })
    };
    let cmp = prop_oneof![
        Just(Cmp::Eq),
        Just(Cmp::Eq),
        Just(Cmp::Ne),
        Just(Cmp::Lt),
        Just(Cmp::Le),
        Just(Cmp::Gt),
        Just(Cmp::Ge),
    ];
    let atom =
        (term.clone(), cmp, term, 0..3u32, any::<bool>()).prop_map(|(a, c, b, k, constant)| {
            if constant {
                Guard::Compare(a, c, Term::Const(k.min(1)))
            } else {
                Guard::Compare(a, c, b)
            }
        });
    atom.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Guard::And),
            prop::collection::vec(inner.clone(), 1..3).prop_map(Guard::Or),
            inner.prop_map(|g| Guard::Not(Box::new(g))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The bindings kept are exactly those of the full cartesian product that satisfy the
    /// guard (variables not in the guard range over their whole sort).
    #[test]
    fn bindings_are_the_guarded_cartesian_product(
        (sizes, g) in prop::collection::vec(2..4u32, 1..4)
            .prop_flat_map(|s| (Just(s.clone()), guard(s)))
    ) {
        let net = one_transition(&sizes, g.clone());
        let unfolded = unfold_to_pt(&net, &Budget::default()).unwrap();
        let mut want = Vec::new();
        let total: u32 = sizes.iter().product();
        for mut code in 0..total {
            let mut b = vec![0; sizes.len()];
            for (i, &n) in sizes.iter().enumerate().rev() {
                b[i] = code % n;
                code /= n;
            }
            if g.holds(&b) {
                let c = Term::Tuple {
                    parts: (0..sizes.len() as u32).map(Term::Var).collect(),
                    radices: sizes.clone(),
                }
                .eval(&b);
                let mut name = String::from("out_");
                net.sorts.colour_name(net.places[0].sort, c, &mut name);
                want.push(name);
            }
        }
        let mut got: Vec<String> = unfolded
            .net
            .transitions
            .iter()
            .map(|t| {
                prop_assert_eq!(t.post.len(), 1);
                Ok(unfolded.net.places[t.post[0].place as usize].id.to_string())
            })
            .collect::<Result<_, _>>()?;
        got.sort();
        want.sort();
        prop_assert_eq!(unfolded.folding.stats.bindings_kept, want.len() as u64);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn dead_places_and_transitions_are_dropped() {
    // p(A) holds a0 only; t moves x from p to q with x ≠ a2, u from q(a2) to r: q's a2
    // can never be marked, so u's only binding is dead, and r never marked.
    let (sorts, a, _, _) = sorts();
    let mut net = ColouredNet {
        sorts,
        variables: vec![Variable {
            id: "x".into(),
            sort: a,
        }],
        ..ColouredNet::default()
    };
    for (id, initial) in [
        ("p", Some(Multiset::Of(1, Term::Const(0)))),
        ("q", None),
        ("r", None),
    ] {
        net.places.push(ColouredPlace {
            id: id.into(),
            label: id.into(),
            sort: a,
            initial,
        });
    }
    let ne = Guard::Compare(Term::Var(0), Cmp::Ne, Term::Const(2));
    for (id, guard) in [("t", ne), ("u", Guard::True)] {
        net.transitions.push(ColouredTransition {
            id: id.into(),
            label: id.into(),
            guard,
        });
    }
    let x = || Multiset::Of(1, Term::Var(0));
    let two = || Multiset::Of(1, Term::Const(2));
    for (place, transition, input, inscription) in [
        (0, 0, true, x()),
        (1, 0, false, x()),
        (1, 1, true, two()),
        (2, 1, false, two()),
    ] {
        net.arcs.push(ColouredArc {
            place,
            transition,
            input,
            inscription,
        });
    }
    let u = unfold_to_pt(&net, &Budget::default()).unwrap();
    let ids = |v: &[Fold]| -> Vec<Vec<String>> {
        v.iter()
            .map(|f| f.members.iter().map(|m| m.to_string()).collect())
            .collect()
    };
    assert_eq!(
        ids(&u.folding.places),
        vec![vec!["p_a0"], vec!["q_a0"], vec![]]
    );
    assert_eq!(ids(&u.folding.transitions), vec![vec!["t_a0"], vec![]]);
    assert_eq!(u.net.places.len(), 2);
    assert_eq!(u.net.transitions.len(), 1);
    assert_eq!(u.folding.stats.places_before, 9);
    assert_eq!(u.net.places[0].initial, 1);
}

#[test]
fn the_budget_bounds_the_size() {
    let net = one_transition(&[3, 3, 3], Guard::True);
    let small = Budget {
        max_size: Some(20),
        deadline: None,
    };
    assert_eq!(
        unfold_to_pt(&net, &small).unwrap_err(),
        UnfoldError::TooLarge(20)
    );
    assert!(unfold_to_pt(&net, &Budget::default()).is_ok());
}
