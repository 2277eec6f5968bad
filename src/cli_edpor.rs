//! `unfold edpor FILE` (and `unfold FILE --edpor`): Event-DPOR on a `.tsys` program.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::Args;
use serde_json::Value;

use crate::cli::{LimitArgs, Outcome, OutputArgs, common_head, common_tail, describe_stop, emit};
use crate::cli_guard::Guard;
use unfold::explore::edpor::{self, EdporOptions, EdporProgress};
use unfold::model::program_system::ProgramSystem;
use unfold::report::interleaving;
use unfold::report::progress::Progress;
use unfold::report::stats::Stats;
use unfold::system::{System, Transition};

/// `unfold edpor`.
#[derive(Args, Debug, Clone)]
pub struct EdporArgs {
    /// The program (`.tsys`).
    pub file: PathBuf,
    /// Steps the search for a non-redundant completion of a wakeup sequence may take before
    /// the sequence is parked (explored freely, possibly blocked).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub search_budget: u64,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn witness_json(sys: &ProgramSystem, run: &[Transition]) -> Value {
    let state = interleaving::final_state(sys, run)
        .map(|s| sys.describe_state(&s))
        .unwrap_or_default();
    let steps: Vec<&str> = run.iter().map(|&t| sys.transition_name(t)).collect();
    serde_json::json!({ "run": steps, "state": state })
}

/// Runs Event-DPOR.
pub fn run(args: &EdporArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let file = &args.file;
    let guard = Guard::start(
        args.limits.limits(interrupt),
        "edpor",
        file,
        Some(&args.output),
    );
    guard.weigh_input(file);
    let bytes = unfold::formats::load(file)?;
    let program = unfold::formats::tsys::parse(&bytes, file)?;
    drop(bytes);
    guard.phase("building the system");
    let sys = ProgramSystem::new(&program).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    guard.phase("exploring");
    let limits = guard.limits();
    let opts = EdporOptions {
        search_budget: args.search_budget.max(1),
        record: false,
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
    guard.phase("writing the report");

    let complete = stats.complete();
    let mut out = Stats::new();
    common_head(&mut out, file, "edpor", complete);
    out.add("executions", "executions", stats.executions);
    out.add("blocked", "blocked", stats.blocked);
    out.add(
        "assertion_failures",
        "assertion failures",
        stats.assertion_failures,
    );
    out.add("deadlocks", "deadlocks", stats.deadlocks);
    out.add("races", "race reversals", stats.races);
    out.add(
        "wakeup_sequences",
        "wakeup sequences",
        stats.wakeup_inserted,
    );
    out.add("parked", "parked sequences", stats.parked);
    out.add_json("completion_retries", stats.completion_retries);
    out.add_json("completion_steps", stats.completion_steps);
    out.add_json("completions_exhausted", stats.completions_exhausted);
    out.add("longest_execution", "longest execution", stats.max_depth);
    out.add_json("peak_tree_nodes", stats.peak_tree_nodes);
    out.add_json(
        "assertion_witness",
        stats
            .assertion_witness
            .as_deref()
            .map_or(Value::Null, |r| witness_json(&sys, r)),
    );
    out.add_json(
        "deadlock_witness",
        stats
            .deadlock_witness
            .as_deref()
            .map_or(Value::Null, |r| witness_json(&sys, r)),
    );
    out.add_json(
        "stopped",
        stats.stopped.map_or(Value::Null, |s| {
            serde_json::to_value(s).unwrap_or(Value::Null)
        }),
    );
    common_tail(&mut out, limits.elapsed().as_secs_f64());
    let mut extra = Vec::new();
    if let Some(run) = &stats.assertion_witness {
        extra.push(
            interleaving::render(&sys, "assertion failure", run)
                .map_err(|o| anyhow!("{}: {o}", file.display()))?,
        );
    }
    if let Some(run) = &stats.deadlock_witness {
        extra.push(
            interleaving::render(&sys, "deadlock", run)
                .map_err(|o| anyhow!("{}: {o}", file.display()))?,
        );
    }
    if let Some(reason) = stats.stopped {
        extra.push(describe_stop(reason));
    }
    emit(&out, &args.output, &extra)?;
    let found = stats.assertion_failures > 0 || stats.deadlocks > 0;
    Ok(if found && !args.limits.no_fail {
        Outcome::Found
    } else if !complete {
        Outcome::Stopped
    } else {
        Outcome::Clean
    })
}
