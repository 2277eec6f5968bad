//! `unfold info`: describe a net.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use clap::Args;

use super::shared::{Outcome, OutputArgs, ReadLimitArgs, emit_report, read_net, watch};

/// `unfold info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The net (PNML or PEP; the format is sniffed from the content).
    pub file: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: ReadLimitArgs,
}

/// Runs `unfold info`.
pub fn run(args: &InfoArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let watchdog = watch(
        args.limits.limits(interrupt),
        "info",
        &args.file,
        Some(&args.output),
    );
    let (net, format) = read_net(&args.file, &watchdog)?;
    watchdog.phase("describing the net");
    let limits = watchdog.limits();
    let report = unfold::modes::info::report(&net, format, &args.file, limits.elapsed());
    emit_report(&report, &args.output, false)
}
