//! `unfold reach`: explicit-state reachability of a net.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::Args;

use super::shared::{LimitArgs, Outcome, OutputArgs, emit_report, read_net, watch};
use unfold::check::unbounded::{PumpSearch, find_pumping};
use unfold::explore::reach::explore_net;
use unfold::report::progress::Progress;
use unfold::report::stats::human_bytes;

/// The most time the search for a pumping run takes (at most a twentieth of `--timeout`).
const PUMP_TIME: std::time::Duration = std::time::Duration::from_millis(500);

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
    let limits = watchdog.limits();
    // A few random walks first: on an unbounded net they find a pumping run in milliseconds,
    // where the exploration would run to the limit. A net certified safe is bounded.
    if !net.certified_safe() {
        watchdog.phase("looking for a pumping run");
        let search = PumpSearch {
            time: limits
                .remaining()
                .map_or(PUMP_TIME, |r| (r / 20).min(PUMP_TIME)),
            ..PumpSearch::default()
        };
        if let Some(pumping) = find_pumping(&net, search) {
            watchdog.phase("writing the report");
            let report = unfold::modes::reach::unbounded_report(
                &net,
                &pumping,
                &args.file,
                limits.elapsed(),
            );
            return emit_report(&report, &args.output, args.limits.no_fail);
        }
    }
    watchdog.phase("exploring");
    let progress = Progress::spinner(args.output.quiet);
    let r = explore_net(&net, &limits, &mut |p| {
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
