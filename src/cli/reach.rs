//! `unfold reach`: explicit-state reachability of a net.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::Args;

use super::shared::{LimitArgs, Outcome, OutputArgs, emit_report, read_net, watch};
use unfold::explore::reach::reach_net;
use unfold::report::progress::Progress;
use unfold::report::stats::human_bytes;

/// `unfold reach`.
#[derive(Args, Debug)]
pub struct ReachArgs {
    /// The net (PNML or PEP).
    pub file: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `unfold reach`.
pub fn run(args: &ReachArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let watchdog = watch(
        args.limits.limits(interrupt),
        "reach",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &watchdog)?;
    watchdog.phase("exploring");
    let limits = watchdog.limits();
    let progress = Progress::spinner(args.output.quiet);
    let r = reach_net(&net, &limits, &mut |p| {
        progress.set_message(|| {
            format!(
                "{} states, {} expanded, {}",
                p.states,
                p.expanded,
                human_bytes(p.bytes)
            )
        })
    })
    .map_err(|o| anyhow!("{}: {o}", args.file.display()))?;
    progress.finish();
    watchdog.phase("writing the report");
    let report = unfold::modes::reach::report(&r, &args.file, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}
