//! `unfold check`: the brute-force oracles, every maximal run enumerated (`--brute`) or runs
//! and traces counted over the states (`--count`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::Args;

use super::process::watchdog::Watchdog;
use super::shared::{LimitArgs, Outcome, OutputArgs, emit_report, read_net, watch};
use unfold::model::net_system::NetSystem;
use unfold::modes::brute;

/// `unfold check`.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The system.
    pub file: PathBuf,
    /// Enumerate every maximal run: traces, events and deadlocks (exponential: small systems
    /// only).
    #[arg(long, required_unless_present = "count", conflicts_with = "count")]
    pub brute: bool,
    /// Count maximal runs and maximal traces without enumerating them, by dynamic
    /// programming over the states (acyclic systems only; no events or deadlocks).
    #[arg(long)]
    pub count: bool,
    /// Longest run enumerated (`--brute`).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_depth: usize,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Counts maximal runs and traces (`check --count`).
fn count(args: &CheckArgs, watchdog: &Watchdog, sys: NetSystem) -> Result<Outcome> {
    watchdog.phase("counting runs and traces");
    let limits = watchdog.limits();
    let count =
        brute::count_net(sys, &limits).map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    watchdog.phase("writing the report");
    let report = brute::count_report(&count, &args.file, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}

/// Runs `unfold check`.
pub fn run(args: &CheckArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let watchdog = watch(
        args.limits.limits(interrupt),
        "brute",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &watchdog)?;
    let sys = NetSystem::new(&net);
    if args.count {
        return count(args, &watchdog, sys);
    }
    watchdog.phase("enumerating runs");
    let limits = watchdog.limits();
    let b = brute::enumerate_net(sys, args.max_depth, &limits)
        .map_err(|overflow| anyhow!("{}: {overflow}", args.file.display()))?;
    watchdog.phase("writing the report");
    let report = brute::brute_report(&b, &args.file, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}
