//! `unfold info`: describe a net.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use unfold::structural::summary::Summary;

use super::shared::{Outcome, OutputArgs, ReadLimitArgs, emit_report, read_net, watch};

/// The most time the structural summary takes: 5 % of the contest's 20 s, the aim of
/// `tools/bench_structural.sh`.
const STRUCTURAL_TIME: Duration = Duration::from_secs(1);

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
    // The structural analysis within a second (less when a timeout leaves less).
    let time = limits
        .remaining()
        .map_or(STRUCTURAL_TIME, |r| (r / 2).min(STRUCTURAL_TIME));
    let summary = Summary::of(&net, time);
    let report = unfold::modes::info::report(&net, format, &args.file, &summary, limits.elapsed());
    emit_report(&report, &args.output, false)
}
