//! `unfold edpor`: Event-DPOR on a `.tsys` program.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::Args;

use super::shared::{LimitArgs, Outcome, OutputArgs, emit_report, read_program, watch};
use unfold::explore::edpor::{self, EdporOptions, EdporProgress};
use unfold::model::program_system::ProgramSystem;
use unfold::report::progress::Progress;

/// `unfold edpor`.
#[derive(Args, Debug, Clone)]
pub struct EdporArgs {
    /// The program (`.tsys`).
    pub file: PathBuf,
    /// Steps the search for a non-redundant completion of a wakeup sequence may take before
    /// the sequence is parked (explored freely, possibly blocked).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub search_budget: u64,
    /// Stop after N executions (explored plus blocked; the statistics are then incomplete): a
    /// bound on the work that gives the same run on every machine, unlike `--timeout`.
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs Event-DPOR.
pub fn run(args: &EdporArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let file = &args.file;
    let watchdog = watch(
        args.limits.limits(interrupt),
        "edpor",
        file,
        Some(&args.output),
    );
    let program = read_program(file, &watchdog)?;
    watchdog.phase("building the system");
    let sys = ProgramSystem::new(&program).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    watchdog.phase("exploring");
    let limits = watchdog.limits();
    let opts = EdporOptions {
        search_budget: args.search_budget.max(1),
        record: false,
        max_executions: args.max_executions,
    };
    let progress = Progress::spinner(args.output.quiet);
    let mut on_progress = |p: EdporProgress| {
        progress.set_message(|| {
            format!(
                "{} executions, {} blocked, last length {}",
                p.executions, p.blocked, p.depth
            )
        })
    };
    let stats = edpor::explore(&sys, &opts, &limits, &mut on_progress)
        .map_err(|o| anyhow!("{}: {o}", file.display()))?;
    progress.finish();
    watchdog.phase("writing the report");
    let report = unfold::modes::edpor::report(&sys, &stats, file, limits.elapsed())
        .map_err(|o| anyhow!("{}: {o}", file.display()))?;
    emit_report(&report, &args.output, args.limits.no_fail)
}
