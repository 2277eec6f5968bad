//! The `unfold` binary: parses arguments, runs the library, maps outcomes and errors to exit
//! codes (0 clean, 1 deadlock or assertion failure found, 2 bad input or usage, 3 stopped by a
//! limit, 4 some runs of a batch crashed or failed).

mod cli;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Parser;

fn main() -> ExitCode {
    // A reader that closes the pipe early (`unfold … | head`) ends the process quietly, as it
    // ends `cat` and `rg`: Rust ignores SIGPIPE, which turns every later write into an error
    // (and `println!` into a panic); the default action stops the process without a word.
    // SAFETY: called first, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some((word, meant)) = cli::misspelt_subcommand(&argv) {
        eprintln!(
            "error: unrecognized subcommand '{word}'\n\n  tip: a similar subcommand exists: \
             '{meant}'\n\nFor more information, try '--help'."
        );
        return ExitCode::from(2);
    }
    let args = cli::Cli::parse_from(argv);
    // SIGINT and SIGTERM stop the run cleanly: explorers see the flag, stop, and the statistics
    // gathered so far are printed as incomplete.
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    match cli::run(args, interrupt) {
        Ok(cli::Outcome::Clean) => ExitCode::SUCCESS,
        Ok(cli::Outcome::Found) => ExitCode::from(1),
        Ok(cli::Outcome::Stopped) => ExitCode::from(3),
        Ok(cli::Outcome::Failed) => ExitCode::from(4),
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line (the library's errors already name the file and the
/// position), each cause said once: an error whose message already quotes its cause (`FILE: No
/// such file or directory`) does not repeat it, and the operating system's error numbers are
/// left out.
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = strip_os_error(&cause.to_string()).replace('\n', " ");
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

/// `No such file or directory (os error 2)` without ` (os error 2)`.
fn strip_os_error(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(start) = out.find(" (os error ") {
        match out[start..].find(')') {
            Some(end) => out.replace_range(start..start + end + 1, ""),
            None => break,
        }
    }
    out
}
