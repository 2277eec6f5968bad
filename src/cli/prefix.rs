//! `unfold prefix`: the complete finite prefix of a safe net, its deadlock answer, and its
//! pictures (DOT) and `.mci` file.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::shared::{
    LimitArgs, OrderArg, Outcome, OutputArgs, ReadArcs, check_output_paths, emit_to, read_net,
    watch, write_output,
};
use unfold::explore::prefix::{self, Order, PrefixOptions};
use unfold::report::dot::{refusal, refusal_ahead};
use unfold::report::progress::Progress;
use unfold::report::stats::human_bytes;

/// `unfold prefix`.
#[derive(Args, Debug)]
pub struct PrefixArgs {
    /// The net (PNML or PEP; must be 1-safe).
    pub file: PathBuf,
    /// How read arcs are unfolded: `contextual` (the default, when the net has read arcs)
    /// or `self-loops` (a plain prefix).
    #[arg(long, value_enum, default_value = "contextual")]
    pub read_arcs: ReadArcs,
    /// The contextual unfolding even when the net has no read arcs (its figures then equal
    /// the plain prefix's, with histories counted).
    #[arg(long, conflicts_with = "read_arcs")]
    pub contextual: bool,
    /// Adequate order (mole reproduces the prefix sizes of Mole and Cunf).
    #[arg(long, value_enum, default_value_t = OrderArg::Mole)]
    pub order: OrderArg,
    /// Decide deadlock freedom from the prefix (exit 1 and a witness when a deadlock exists).
    #[arg(long)]
    pub deadlock: bool,
    /// Write the occurrence net as DOT to OUT (`-` for standard output).
    #[arg(long, value_name = "OUT")]
    pub dot: Option<PathBuf>,
    /// Refuse DOT renderings with more nodes than this.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub dot_limit: usize,
    /// Write the prefix in Mole/Punf's binary .mci format to OUT (`-` for standard output; the
    /// human report then goes to standard error).
    #[arg(long, value_name = "OUT")]
    pub mci: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `unfold prefix`.
pub fn run(args: &PrefixArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    // At most one output on standard output; a drawing or a prefix there sends the human
    // report to standard error, so that `--mci - > x.mci` is a clean file.
    let dash = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
    let on_stdout = [&args.dot, &args.mci, &args.output.json]
        .into_iter()
        .filter(|p| dash(p))
        .count();
    if on_stdout > 1 {
        bail!("only one of --dot -, --mci - and --json - can write to standard output");
    }
    let stdout_taken = dash(&args.dot) || dash(&args.mci);
    check_output_paths([
        ("--dot", args.dot.as_deref()),
        ("--mci", args.mci.as_deref()),
        ("--json", args.output.json.as_deref()),
    ])?;
    let watchdog = watch(
        args.limits.limits(interrupt),
        "prefix",
        &args.file,
        Some(&args.output),
    );
    let (net, _) = read_net(&args.file, &watchdog)?;
    watchdog.phase("unfolding");
    let limits = watchdog.limits();
    if args.contextual || (args.read_arcs == ReadArcs::Contextual && net.read_arc_count() > 0) {
        return run_contextual(args, &net, &watchdog, stdout_taken);
    }
    let order = Order::from(args.order);
    // The deadlock search is its own phase, timed and shown apart from the unfolding.
    let options = PrefixOptions {
        order,
        deadlock: false,
    };
    let progress = Progress::spinner(args.output.quiet);
    let start = std::time::Instant::now();
    // A drawing too large is said at once, as the prefix passes the limit; the run goes on.
    let mut ahead = DotLimitAhead::new(args);
    let r = prefix::explore(&net, &options, &limits, &mut |p| {
        ahead.check(p.events + p.conditions, &progress);
        progress.set_message(|| {
            format!(
                "{} events, {} conditions, {} queued, {}",
                p.events,
                p.conditions,
                p.queue,
                human_bytes(p.bytes)
            )
        })
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let unfold_seconds = start.elapsed().as_secs_f64();
    let mut r = r;
    if args.deadlock {
        watchdog.phase("searching for a deadlock");
        progress.set_message(|| "deadlock search".to_string());
        r.decide_deadlock(&limits, &mut |p| {
            progress.set_message(|| {
                format!(
                    "deadlock search: {} nodes, configuration of {} events",
                    p.nodes, p.depth
                )
            })
        });
    }
    progress.finish();
    watchdog.phase("writing the report");
    let report = unfold::modes::prefix::report(
        &net,
        &r,
        order,
        unfold_seconds,
        &args.file,
        limits.elapsed(),
    );
    let nodes = r.prefix.conditions.len() + r.prefix.events.len();
    // A drawing refused keeps the run's answer (and exit code): it is said after the report.
    let refused = args.dot.is_some() && nodes > args.dot_limit;
    if let Some(path) = args.dot.as_ref().filter(|_| !refused) {
        let mut buf = Vec::new();
        let deadlock = match &r.deadlock {
            Some(unfold::explore::prefix::DeadlockAnswer::Found(config)) => &config[..],
            _ => &[],
        };
        unfold::report::occurrence_dot::write_occurrence_net(
            &net,
            &r.prefix,
            deadlock,
            args.dot_limit,
            &mut buf,
        )?;
        write_output(path, &buf)?;
    }
    if let Some(path) = &args.mci {
        if dash(&args.mci) {
            unfold::report::mci::write_mci(&net, &r.prefix, &mut io::stdout().lock())
                .context("cannot write the .mci prefix to standard output")?;
        } else {
            let mut file = std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            unfold::report::mci::write_mci(&net, &r.prefix, &mut file)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    emit_to(&report.stats, &args.output, &report.notes, stdout_taken)?;
    if refused {
        eprintln!(
            "warning: {}",
            refusal("the occurrence net", nodes, args.dot_limit)
        );
    }
    Ok(Outcome::of(&report, args.limits.no_fail))
}

/// Says once, as the prefix grows past `--dot-limit`, that it will not be drawn.
struct DotLimitAhead {
    limit: Option<usize>,
    said: bool,
}

impl DotLimitAhead {
    fn new(args: &PrefixArgs) -> Self {
        DotLimitAhead {
            limit: args.dot.as_ref().map(|_| args.dot_limit),
            said: false,
        }
    }

    fn check(&mut self, nodes: u64, progress: &Progress) {
        if let Some(limit) = self.limit
            && !self.said
            && nodes as usize > limit
        {
            self.said = true;
            progress.suspend(|| {
                eprintln!("warning: {}", refusal_ahead("the occurrence net", limit));
            });
        }
    }
}

/// `unfold prefix` on the contextual unfolding.
fn run_contextual(
    args: &PrefixArgs,
    net: &unfold::model::net::Net,
    watchdog: &super::process::watchdog::Watchdog,
    stdout_taken: bool,
) -> Result<Outcome> {
    if args.mci.is_some() {
        bail!(
            "{}: the .mci format has no read arcs, so it cannot hold a contextual prefix \
             (--read-arcs self-loops writes the plain prefix, read arcs as self-loops)",
            args.file.display()
        );
    }
    let limits = watchdog.limits();
    let progress = Progress::spinner(args.output.quiet);
    let start = std::time::Instant::now();
    let mut ahead = DotLimitAhead::new(args);
    let options = unfold::explore::contextual::ContextualOptions {
        order: Order::from(args.order),
    };
    let mut r = unfold::explore::contextual::explore(net, &options, &limits, &mut |p| {
        ahead.check(p.events + p.conditions, &progress);
        progress.set_message(|| {
            format!(
                "{} histories, {} events, {} conditions, {} queued, {}",
                p.histories,
                p.events,
                p.conditions,
                p.queue,
                human_bytes(p.bytes)
            )
        })
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let unfold_seconds = start.elapsed().as_secs_f64();
    if args.deadlock {
        watchdog.phase("searching for a deadlock");
        progress.set_message(|| "deadlock search".to_string());
        r.decide_deadlock(net, &limits);
    }
    progress.finish();
    watchdog.phase("writing the report");
    let report = unfold::modes::prefix::contextual_report(
        net,
        &r,
        unfold_seconds,
        &args.file,
        limits.elapsed(),
    );
    let nodes = r.prefix.conditions.len() + r.prefix.events.len();
    let refused = args.dot.is_some() && nodes > args.dot_limit;
    if let Some(path) = args.dot.as_ref().filter(|_| !refused) {
        let mut buf = Vec::new();
        let deadlock = match &r.deadlock {
            Some(unfold::explore::prefix::DeadlockAnswer::Found(run)) => run.as_slice(),
            _ => &[],
        };
        unfold::report::contextual_dot::write_contextual_net(net, &r.prefix, deadlock, &mut buf)?;
        write_output(path, &buf)?;
    }
    emit_to(&report.stats, &args.output, &report.notes, stdout_taken)?;
    if refused {
        eprintln!(
            "warning: {}",
            refusal("the occurrence net", nodes, args.dot_limit)
        );
    }
    Ok(Outcome::of(&report, args.limits.no_fail))
}
