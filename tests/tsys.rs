//! The `.tsys` program format and its `System` (naive handlers): the papers' examples against
//! the brute-force oracle, errors with positions, and the soundness of independence on random
//! programs (the diamond property at every reachable state).

use std::path::{Path, PathBuf};

use crate::common;

use proptest::prelude::*;
use unfold::explore::brute::{self, BruteOptions, BruteStats};
use unfold::explore::limits::Limits;
use unfold::explore::reach;
use unfold::explore::udpor::{self, Pick, UdporOptions, UdporStats};
use unfold::formats::tsys;
use unfold::formats::{Position, ReadError};
use unfold::model::program::Program;
use unfold::model::program_system::ProgramSystem;
use unfold::system::System;
use unfold::unfolding::event::HistoryStates;
use unfold::unfolding::parts::{SlotParts, TransitionWords};
use unfold::unfolding::slots::{SlotCover, SlotMap};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("nets/programs")
        .join(name)
}

fn load(name: &str) -> Program {
    let path = example(name);
    let bytes = std::fs::read(&path).unwrap();
    tsys::parse(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

fn udpor_run(sys: &ProgramSystem, pick: Pick) -> UdporStats {
    let opts = UdporOptions {
        pick,
        // Random picks find extensions through guard classes, as on large systems.
        listed_dependents: if matches!(pick, Pick::Random(_)) {
            0
        } else {
            UdporOptions::default().listed_dependents
        },
        ..UdporOptions::default()
    };
    udpor::explore(sys, &opts, &Limits::default(), &mut |_| {}).unwrap()
}

/// The unfolding DPOR agrees with the brute force on traces, events and deadlocks.
fn agree(sys: &ProgramSystem) -> Result<BruteStats, String> {
    let b = brute::explore(
        sys,
        &BruteOptions { max_len: 200 },
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap();
    if b.stopped.is_some() {
        return Err("brute force stopped".into());
    }
    for pick in [Pick::First, Pick::Last, Pick::Random(3)] {
        let u = udpor_run(sys, pick);
        let got = (u.maximal_configurations, u.events, u.deadlocks, u.blocked);
        let want = (b.traces, b.events, b.deadlocks, 0);
        if got != want {
            return Err(format!(
                "{pick:?}: udpor (configs, events, deadlocks, blocked) {got:?} != brute {want:?}"
            ));
        }
    }
    Ok(b)
}

/// Every reachable state, and whether any has an assertion failure.
fn states(sys: &ProgramSystem) -> Vec<Vec<u64>> {
    let mut all = Vec::new();
    reach::explore(sys, &Limits::default(), &mut |_| {}, &mut |_, s| {
        all.push(s.to_vec())
    })
    .unwrap();
    all
}

#[test]
fn paper_examples_match_the_brute_force() {
    // Counts under the naive treatment of handlers (messages of one handler serialised).
    for (file, traces) in [
        ("fig1.tsys", Some(4)),
        ("fig2-top.tsys", Some(2)),
        ("fig2-bottom.tsys", Some(2)),
        ("fig3.tsys", None),
    ] {
        let program = load(file);
        let sys = ProgramSystem::new(&program).unwrap();
        let b = agree(&sys).unwrap_or_else(|e| panic!("{file}: {e}"));
        eprintln!("{file}: {} traces, {} events", b.traces, b.events);
        if let Some(n) = traces {
            assert_eq!(b.traces, n, "{file}");
        }
    }
}

#[test]
fn fig3_counts() {
    // s: post h p1; x = 1.  t: post h p2.  p1: y = 2.  p2: a = x; if (a == 0) b = y.
    // Naively the handler orders p1 and p2 (2 ways), and in each order p2's read of x is
    // before or after s's `x = 1` (2 ways); p2's read of y, when taken, is ordered after p1 or
    // before it by the handler order already. 2 × 2 = 4, as the brute force finds.
    let sys = ProgramSystem::new(&load("fig3.tsys")).unwrap();
    let b = agree(&sys).unwrap();
    assert_eq!(b.traces, 4);
}

#[test]
fn lock_protected_counter_always_counts_three() {
    let program = load("lock-counter.tsys");
    let sys = ProgramSystem::new(&program).unwrap();
    let b = agree(&sys).unwrap();
    assert_eq!(b.traces, 6, "3! orders of the critical sections");
    let mut finals = 0;
    let mut en = Vec::new();
    for s in states(&sys) {
        assert!(!sys.assertion_failed(&s));
        en.clear();
        sys.enabled(&s, &mut en);
        if en.is_empty() {
            finals += 1;
            assert_eq!(sys.var(&s, 0), 3, "{}", sys.describe_state(&s));
        }
    }
    assert!(finals >= 1);
}

#[test]
fn readers_writer_never_fails_and_racy_counter_does() {
    let rw = ProgramSystem::new(&load("readers-writer.tsys")).unwrap();
    agree(&rw).unwrap();
    assert!(states(&rw).iter().all(|s| !rw.assertion_failed(s)));
    // The two readers' reads of flag commute with each other.
    let names: Vec<_> = (0..rw.transition_count() as u32)
        .map(|t| rw.transition_name(t).to_string())
        .collect();
    let r1 = names.iter().position(|n| n == "r1: f = flag").unwrap() as u32;
    let r2 = names.iter().position(|n| n == "r2: f = flag").unwrap() as u32;
    let w = names.iter().position(|n| n == "w: flag = 1").unwrap() as u32;
    assert!(!rw.dependent(r1, r2));
    assert!(rw.dependent(r1, w));

    let racy = ProgramSystem::new(&load("racy-counter.tsys")).unwrap();
    agree(&racy).unwrap();
    assert!(states(&racy).iter().any(|s| racy.assertion_failed(s)));
    // fetch_add with an unused result is an A access: the two increments of `done` commute.
    let names: Vec<_> = (0..racy.transition_count() as u32)
        .map(|t| racy.transition_name(t).to_string())
        .collect();
    let a = names
        .iter()
        .position(|n| n == "t1: k = fetch_add(done, 1)")
        .unwrap() as u32;
    let b = names
        .iter()
        .position(|n| n == "t2: k = fetch_add(done, 1)")
        .unwrap() as u32;
    assert!(!racy.dependent(a, b));
}

#[test]
fn division_by_zero_and_bad_unlock_are_assertion_failures() {
    let p = tsys::parse_str(
        "var x; lock m; thread t { a = x; b = 1 / a; x = b; } thread u { unlock m; }",
    )
    .unwrap();
    let sys = ProgramSystem::new(&p).unwrap();
    let all = states(&sys);
    assert!(all.iter().any(|s| sys.assertion_failed(s)));
}

#[test]
fn loops_unroll_posts_and_block_past_their_bound() {
    let p = tsys::parse_str(
        "var x; handler h;\n\
         thread t { i = 0; while (i < 2) bound 2 { post h { k = fetch_add(x, 1); } i = i + 1; } }\n\
         thread u { j = 0; while (1) bound 3 { j = j + 1; } }",
    )
    .unwrap();
    let sys = ProgramSystem::new(&p).unwrap();
    // t, u and two instances of the inline message.
    assert_eq!(sys.instances().len(), 4);
    let b = agree(&sys).unwrap();
    // The two messages on one handler: two orders under the naive treatment.
    assert_eq!(b.traces, 2);
    let mut en = Vec::new();
    for s in states(&sys) {
        en.clear();
        sys.enabled(&s, &mut en);
        if en.is_empty() {
            assert_eq!(sys.var(&s, 0), 2);
        }
    }
}

fn parse_error(text: &str) -> (u32, u32, String) {
    match tsys::parse_str(text) {
        Err(ReadError::Parse {
            pos: Some(Position::LineCol { line, col }),
            message,
            ..
        }) => (line, col, message),
        other => panic!("expected a positioned parse error for {text:?}, got {other:?}"),
    }
}

#[test]
fn bad_inputs_are_refused_with_positions() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        (
            "var x;\nthread t { a = y; b = a; }",
            (2, 16),
            "undeclared variable `y`",
        ),
        (
            "thread t { k = fetch_add(z, 1); }",
            (1, 26),
            "undeclared variable `z`",
        ),
        (
            "var x;\nthread s { }\nthread t { post s { x = 1; } }",
            (3, 17),
            "not a handler",
        ),
        (
            "var x;\nthread t { post q { x = 1; } }",
            (2, 17),
            "not a declared handler",
        ),
        (
            "var x, y;\nthread t { x = y; }",
            (2, 16),
            "two shared accesses",
        ),
        (
            "var x, y;\nthread t { x = cas(y, 0, 1); }",
            (2, 12),
            "two shared accesses",
        ),
        (
            "var x;\nthread t { a = x + 1; }",
            (2, 16),
            "inside an expression",
        ),
        (
            "var x;\nthread t {\n  while (1) { x = 1; }\n}",
            (3, 3),
            "loop without a bound",
        ),
        (
            "var x; handler h;\nthread t { post h p9; }",
            (2, 19),
            "unknown message `p9`",
        ),
        ("var x;\nthread t { x = 1 }", (2, 18), "expected `;`"),
        (
            "var x; handler h;\nmessage p { post h p; }\nthread t { post h p; }",
            (2, 13),
            "post itself",
        ),
        ("var x, x;", (1, 8), "already declared"),
        (
            "var x; lock m;\nthread t { lock x; }",
            (2, 17),
            "not a lock",
        ),
    ];
    for (text, (line, col), needle) in cases {
        let (l, c, msg) = parse_error(text);
        assert!(msg.contains(needle), "{text:?}: {msg}");
        assert_eq!((l, c), (*line, *col), "{text:?}: {msg}");
    }
    // The file name is part of the message.
    let e = tsys::parse(b"thread t { a = b; }", Path::new("prog.tsys")).unwrap_err();
    assert!(e.to_string().starts_with("prog.tsys:1:16: "), "{e}");
}

#[test]
fn default_loop_bound_applies() {
    let p = tsys::parse_str("bound 2; var x; thread t { while (1) { x = 1; } }").unwrap();
    let sys = ProgramSystem::new(&p).unwrap();
    assert_eq!(sys.transition_count(), 1);
}

// ---------------------------------------------------------------------------------------------
// Random programs

/// Statement templates over shared `x`, `y`, lock `m`, handler `h` and registers `a`, `b`.
const TEMPLATES: &[&str] = &[
    "a = x;",
    "b = y;",
    "x = a + 1;",
    "y = 2;",
    "k = fetch_add(x, 1);",
    "a = fetch_add(y, 2);",
    "a = cas(x, 0, 5);",
    "lock m; x = 3; unlock m;",
    "lock m; b = y; unlock m;",
    "if (a == 0) { y = 1; } else { b = x; }",
    "post h { x = 7; c = y; }",
    "post h { k = fetch_add(x, 1); }",
    "post h p;",
    "assert(a != 1);",
    "assume(b == 0);",
    "i = 0; while (i < 2) bound 2 { i = i + 1; k = fetch_add(y, 1); }",
    "c = 1 / a;",
];

fn arb_program(threads: usize, stmts: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::collection::vec(0..TEMPLATES.len(), 1..=stmts),
        1..=threads,
    )
    .prop_map(|threads| {
        let mut text = String::from("var x, y; lock m; handler h;\nmessage p { a = y; x = a; }\n");
        for (n, body) in threads.iter().enumerate() {
            text.push_str(&format!("thread t{n} {{ a = 0; b = 0; "));
            for &s in body {
                text.push_str(TEMPLATES[s]);
                text.push(' ');
            }
            text.push_str("}\n");
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn independent_statements_commute(text in arb_program(3, 3)) {
        let program = tsys::parse_str(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let sys = ProgramSystem::new(&program).unwrap();
        let words = sys.state_words();
        let (mut a, mut b, mut ab, mut ba) =
            (vec![0; words], vec![0; words], vec![0; words], vec![0; words]);
        let n = sys.transition_count() as u32;
        let words_of = TransitionWords::new(&sys);
        prop_assert!(words_of.is_some(), "programs say where their resources lie");
        let words_of = words_of.unwrap();
        for s in states(&sys) {
            for t in 0..n {
                if !sys.is_enabled(&s, t) {
                    continue;
                }
                let local = common::check_local_firing(&sys, &words_of, &s, t);
                prop_assert!(local.is_ok(), "{}\n{}", local.unwrap_err(), text);
                sys.fire(&s, t, &mut a).unwrap();
                for u in 0..n {
                    if t == u || sys.dependent(t, u) {
                        continue;
                    }
                    prop_assert_eq!(sys.is_enabled(&s, u), sys.is_enabled(&a, u),
                        "{} changes the enabledness of {} at {}\n{}", sys.transition_name(t),
                        sys.transition_name(u), sys.describe_state(&s), text);
                    if sys.is_enabled(&s, u) {
                        sys.fire(&s, u, &mut b).unwrap();
                        sys.fire(&a, u, &mut ab).unwrap();
                        sys.fire(&b, t, &mut ba).unwrap();
                        prop_assert_eq!(&ab, &ba, "{} and {} do not commute at {}\n{}",
                            sys.transition_name(t), sys.transition_name(u),
                            sys.describe_state(&s), text);
                    }
                }
            }
        }
    }

    /// What the assembly of history states rests on (`unfolding::parts`): a firing changes
    /// only bits decided by slots of its transition, and the slots decide disjoint bits. The
    /// explorations with assembled and with fired histories agree.
    #[test]
    fn slot_parts_cover_every_change(text in arb_program(3, 3)) {
        let program = tsys::parse_str(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let sys = ProgramSystem::new(&program).unwrap();
        let (slots, changers) = SlotMap::with_cover_and_changers(&sys, SlotCover::TokenSets);
        let Some(parts) = SlotParts::with_changers(&sys, &slots, &changers) else {
            // Two pure additions to one variable (`fetch_add` whose result is unused)
            // commute: no slot decides that variable.
            prop_assert!(text.contains("fetch_add"));
            return Ok(());
        };
        let words = sys.state_words();
        let mut owner = vec![0u64; words];
        let mut decides = vec![vec![0u64; words]; slots.count()];
        for s in 0..slots.count() as u32 {
            for &(w, m) in parts.of(s) {
                prop_assert_eq!(owner[w as usize] & m, 0, "word {} decided twice", w);
                owner[w as usize] |= m;
                decides[s as usize][w as usize] |= m;
            }
        }
        let mut next = vec![0; words];
        for state in states(&sys) {
            for t in 0..sys.transition_count() as u32 {
                if !sys.is_enabled(&state, t) {
                    continue;
                }
                sys.fire(&state, t, &mut next).unwrap();
                for w in 0..words {
                    let mine = slots.of(t).iter().fold(0, |m, &s| m | decides[s as usize][w]);
                    prop_assert_eq!((state[w] ^ next[w]) & !mine, 0,
                        "{} changes word {} outside its slots' bits\n{}", sys.transition_name(t), w, text);
                }
            }
        }
        let run = |history_states| {
            let opts = UdporOptions { history_states, ..UdporOptions::default() };
            udpor::explore(&sys, &opts, &Limits::default(), &mut |_| {}).unwrap()
        };
        let (a, f) = (run(HistoryStates::Auto), run(HistoryStates::Fire));
        prop_assert!(a.assembled_histories && !f.assembled_histories);
        prop_assert_eq!(
            (a.maximal_configurations, a.events, a.deadlocks),
            (f.maximal_configurations, f.events, f.deadlocks)
        );
        // With 24 unused variables, states are too wide to be stored whole: events are built
        // from the words their transitions touch and stored as changes to a predecessor's.
        let pads: String = (0..24).map(|i| format!(", pad{i}")).collect();
        let padded = text.replacen("var x, y", &format!("var x, y{pads}"), 1);
        let program = tsys::parse_str(&padded).unwrap();
        let wide = ProgramSystem::new(&program).unwrap();
        prop_assert!(wide.state_words() > 16);
        let opts = UdporOptions::default();
        let w = udpor::explore(&wide, &opts, &Limits::default(), &mut |_| {}).unwrap();
        prop_assert_eq!(
            (w.maximal_configurations, w.events, w.deadlocks),
            (f.maximal_configurations, f.events, f.deadlocks),
            "wide states"
        );
    }
}

proptest! {
    // The brute force is exponential: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn udpor_matches_brute_force_on_programs(text in arb_program(3, 2)) {
        let program = tsys::parse_str(&text).unwrap();
        let sys = ProgramSystem::new(&program).unwrap();
        agree(&sys).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    }
}
