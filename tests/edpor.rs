//! Event-DPOR against its oracles.

use std::path::Path;

use unfold::explore::brute_program;
use unfold::explore::edpor::{self, EdporOptions, EdporStats};
use unfold::explore::limits::Limits;
use unfold::formats::tsys;
use unfold::model::program::Program;
use unfold::model::program_system::ProgramSystem;

fn load(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("nets/programs")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    tsys::parse(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

fn edpor_run(sys: &ProgramSystem) -> EdporStats {
    edpor::explore(
        sys,
        &EdporOptions::default(),
        &Limits::default(),
        &mut |_| {},
    )
    .unwrap()
}

#[test]
fn paper_examples() {
    for (file, want) in [
        ("fig1.tsys", 4),
        ("fig2-top.tsys", 1),
        ("fig2-bottom.tsys", 2),
        ("fig3.tsys", 3),
    ] {
        let sys = ProgramSystem::new(&load(file)).unwrap();
        let s = edpor_run(&sys);
        let b = brute_program::count_classes(&sys, 200, &Limits::default()).unwrap();
        eprintln!("{file}: edpor {s:?} brute {b:?}");
        assert_eq!(b.classes, want, "{file} brute");
        assert_eq!((s.executions, s.blocked), (want, 0), "{file}");
    }
}

use proptest::prelude::*;

const THREAD_STMTS: &[&str] = &[
    "a = x;",
    "b = y;",
    "x = 1;",
    "y = a + 1;",
    "z = 2;",
    "k = fetch_add(x, 1);",
    "a = cas(y, 0, 3);",
    "lock m; x = a; unlock m;",
    "lock m; b = z; unlock m;",
    "if (a == 0) { y = 1; } else { b = z; }",
    "assert(a != 1);",
    "post h p1;",
    "post h p2;",
    "post g p3;",
    "post h { x = 5; }",
];
const MSG_STMTS: &[&str] = &[
    "a = x;",
    "b = y;",
    "x = 2;",
    "y = a + 1;",
    "z = 1;",
    "k = fetch_add(x, 1);",
    "lock m; x = 3; unlock m;",
    "if (a == 0) { b = z; } else { y = 4; }",
    "assert(b != 2);",
];

fn arb_program(handlers: bool) -> impl Strategy<Value = String> {
    let thread_pool = if handlers {
        THREAD_STMTS.len()
    } else {
        THREAD_STMTS.len() - 4
    };
    (
        prop::collection::vec(prop::collection::vec(0..thread_pool, 1..=3), 1..=3),
        prop::collection::vec(prop::collection::vec(0..MSG_STMTS.len(), 1..=2), 3),
        prop::bool::ANY,
    )
        .prop_map(move |(threads, msgs, nested)| {
            let mut text = String::from("var x, y, z; lock m; handler h, g;\n");
            for (n, body) in msgs.iter().enumerate() {
                text.push_str(&format!("message p{} {{ a = 0; b = 0; ", n + 1));
                for &s in body {
                    text.push_str(MSG_STMTS[s]);
                    text.push(' ');
                }
                if nested && n == 0 {
                    text.push_str("post g p3; ");
                }
                text.push_str("}\n");
            }
            for (n, body) in threads.iter().enumerate() {
                text.push_str(&format!("thread t{n} {{ a = 0; b = 0; "));
                for &s in body {
                    text.push_str(THREAD_STMTS[s]);
                    text.push(' ');
                }
                text.push_str("}\n");
            }
            text
        })
}

fn check_against_brute(text: &str) -> Result<(), TestCaseError> {
    let program = tsys::parse_str(text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let sys = ProgramSystem::new(&program).unwrap();
    let b = brute_program::count_classes(&sys, 200, &Limits::default()).unwrap();
    prop_assume!(b.stopped.is_none());
    let s = edpor_run(&sys);
    prop_assert_eq!(
        (s.executions, s.blocked, s.deadlocks, s.assertion_failures),
        (b.classes, 0, b.deadlocks, b.assertion_failures),
        "edpor (executions, blocked, deadlocks, assertion failures) vs brute force\n{}\n{:?}",
        text,
        s
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn edpor_matches_brute_force(handlers in prop::bool::ANY, text in prop::bool::ANY.prop_flat_map(arb_program)) {
        let _ = handlers;
        check_against_brute(&text)?;
    }
}
