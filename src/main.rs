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
    let args = cli::Cli::parse();
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
            // One line: the library's errors already name the file and the position.
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
