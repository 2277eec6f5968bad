//! Error messages a new user meets: a missing file said once, a misspelt subcommand with a
//! suggestion, a program given where a net is expected named as such. Each is one line (or
//! clap's short block), exit code 2.

use crate::common;

fn stderr_of(args: &[&str]) -> String {
    let out = common::unfold().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_missing_file_is_said_once() {
    let err = stderr_of(&["nets/no-such-net.pnml"]);
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    assert!(err.starts_with("error: nets/no-such-net.pnml: "), "{err}");
    assert!(!err.contains("os error"), "{err}");
    let err = stderr_of(&["check", "nets/ring-4.pnml", "--formulas", "nowhere.xml"]);
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
}

#[test]
fn a_misspelt_subcommand_gets_a_suggestion() {
    let err = stderr_of(&["prefx", "nets/pairs-3.ll_net"]);
    assert!(err.contains("unrecognized subcommand 'prefx'"), "{err}");
    assert!(err.contains("'prefix'"), "{err}");
    let err = stderr_of(&["chek", "nets/ring-4.pnml"]);
    assert!(err.contains("'check'"), "{err}");
}

#[test]
fn a_program_where_a_net_is_expected_is_named() {
    for mode in ["reach", "prefix", "info"] {
        let err = stderr_of(&[mode, "nets/programs/racy-counter.tsys"]);
        assert!(err.contains("is a .tsys program"), "{mode}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
