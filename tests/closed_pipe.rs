//! A reader that closes its end of the pipe early (`unfold … | head`) ends the run quietly, as
//! it ends `cat`: no panic, no error message, for every output (the human report, JSON, DOT,
//! PNML and PEP, the batch's table) on standard output and on standard error.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Runs `unfold args` with standard output (or error, with `stderr`) read by nobody: the pipe
/// is closed before the run writes. The run must end by SIGPIPE (or, when it wrote nothing,
/// normally), never with a panic's exit code or message.
fn closed(args: &[&str], stderr: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_unfold"));
    cmd.args(args).stdin(Stdio::null());
    if stderr {
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    } else {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    let kept = if stderr {
        drop(child.stderr.take());
        None
    } else {
        drop(child.stdout.take());
        child.stderr.take()
    };
    let status = child.wait().unwrap();
    let said = kept.map_or(String::new(), |mut e| {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut e, &mut s).unwrap();
        s
    });
    assert!(!said.contains("panicked"), "{args:?}: {said}");
    assert!(!said.contains("Broken pipe"), "{args:?}: {said}");
    assert!(
        status.signal() == Some(libc::SIGPIPE) || matches!(status.code(), Some(0 | 1)),
        "{args:?}: {status:?} {said}"
    );
    assert_ne!(status.code(), Some(101), "{args:?}");
}

#[test]
fn every_output_to_a_closed_pipe_ends_quietly() {
    let net = "nets/philosophers-5.pnml";
    let pep = "nets/pairs-3.ll_net";
    closed(&[net, "--cutoffs", "-q"], false);
    closed(&["info", net], false);
    closed(&["reach", net, "--json", "-"], false);
    closed(&["run", net, "--cutoffs", "--dot", "-", "-q"], false);
    closed(&["prefix", pep, "--dot", "-", "-q"], false);
    closed(&["prefix", pep, "--dot", "-", "-q"], true);
    closed(&["convert", net, "-", "--to", "pep"], false);
    closed(&["convert", pep, "-", "--to", "pnml"], false);
    closed(&["check", net, "--formula", "EF deadlock", "-q"], false);
    closed(&["batch", net, "--modes", "reach", "-q"], false);
}
