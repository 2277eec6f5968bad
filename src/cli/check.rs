//! `unfold check`: properties of a net (`--formula`, `--formulas`: reachability, LTL and CTL
//! formulas and place bounds, one line per property), or the brute-force oracles, every maximal run
//! enumerated (`--brute`) or runs and traces counted over the states (`--count`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};

use super::process::watchdog::Watchdog;
use super::shared::{
    LimitArgs, Outcome, OutputArgs, ReadArcs, emit_report, read_net, read_program, watch,
};
use unfold::check::{self, ltl::LtlOptions, run::CheckOptions, run::EngineChoice};
use unfold::explore::brute::{BruteOptions, BruteProgress};
use unfold::explore::traces::TraceProgress;
use unfold::mcc::Examination;
use unfold::model::net::Net;
use unfold::model::net_system::NetSystem;
use unfold::model::program_system::ProgramSystem;
use unfold::modes::{brute, properties};
use unfold::property::load::{load, parse_cli_formula};
use unfold::property::{Logic, Names, Query, refusal};
use unfold::report::progress::Progress;

/// `unfold check`.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The system.
    pub file: PathBuf,
    /// A property to check, in the text syntax (`EF tokens(p) >= 2`, `AG !deadlock`,
    /// `bound(p, q)`, optionally named `id: …`); repeatable.
    #[arg(long, value_name = "TEXT")]
    pub formula: Vec<String>,
    /// A file of properties: the contest's XML, or the text syntax with one `id: formula`
    /// per line.
    #[arg(long, value_name = "FILE")]
    pub formulas: Option<PathBuf>,
    /// Which engines decide the properties.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto, conflicts_with_all = ["brute", "count"])]
    pub engine: EngineArg,
    /// The temporal logic the formulas must be written in; a formula outside it is refused at
    /// its offending operator. `auto`: the logic of the contest's examination when the file
    /// of `--formulas` has its name (`CTLCardinality.xml` is CTL, `LTLFireability.xml` LTL),
    /// else either. Under `ctl`, a formula that is both (`A X φ`) is read as CTL.
    #[arg(long, value_enum, default_value_t = LogicArg::Auto, conflicts_with_all = ["brute", "count"])]
    pub logic: LogicArg,
    /// Print a witness run under each property that has one (for an LTL formula, the lasso
    /// that violates it: a run, then a cycle repeated forever).
    #[arg(long, conflicts_with_all = ["brute", "count"])]
    pub witness: bool,
    /// How the prefix engine unfolds read arcs: `contextual` (the contextual prefix, when the
    /// net has read arcs) or `self-loops` (the plain prefix).
    #[arg(long, value_enum, default_value = "contextual", conflicts_with_all = ["brute", "count"])]
    pub read_arcs: ReadArcs,
    /// Check LTL formulas on the full state space, without stubborn sets (refused under CTL,
    /// whose engine uses none).
    #[arg(long, conflicts_with_all = ["brute", "count"])]
    pub no_stubborn: bool,
    /// Check every property on the net as given, without first reducing the net for the
    /// properties it can answer (to compare; refused under CTL, which is never reduced).
    #[arg(long, conflicts_with_all = ["brute", "count"])]
    pub no_reduce: bool,
    /// Enumerate every maximal run: traces, events and deadlocks, and on a `.tsys` program the
    /// traces ending with a failed assertion (exponential: small systems only).
    #[arg(
        long,
        required_unless_present_any = ["count", "formula", "formulas"],
        conflicts_with_all = ["count", "formula", "formulas"]
    )]
    pub brute: bool,
    /// Count maximal runs and maximal traces without enumerating them, by dynamic
    /// programming over the states (acyclic systems only; no events or deadlocks; on a
    /// program, the traces ending with a failed assertion too).
    #[arg(long, conflicts_with_all = ["formula", "formulas"])]
    pub count: bool,
    /// Longest run enumerated (`--brute`).
    #[arg(long, value_name = "N", default_value_t = 64, conflicts_with_all = ["count", "formula", "formulas"])]
    pub max_depth: usize,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The engines of `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// What suits the net and the property, within the time left.
    Auto,
    /// Explicit reachability, stopping at the first marking that decides.
    Reach,
    /// The complete finite prefix, by SAT (1-safe nets).
    Prefix,
    /// The unfolding DPOR with cutoffs, checking every configuration it visits.
    Dpor,
    /// LTL-X on the net unfolding (safe nets, LTL formulas without next; others unknown).
    Unfolding,
}

impl From<EngineArg> for EngineChoice {
    fn from(arg: EngineArg) -> Self {
        match arg {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Reach => EngineChoice::Explicit,
            EngineArg::Prefix => EngineChoice::Prefix,
            EngineArg::Dpor => EngineChoice::Dpor,
            EngineArg::Unfolding => EngineChoice::Unfolding,
        }
    }
}

/// The logics of `--logic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogicArg {
    /// The examination's logic for a contest's formula file, else either.
    Auto,
    /// A state predicate, an LTL or a CTL formula.
    Any,
    /// LTL: one path quantifier, at the top.
    Ltl,
    /// CTL: a path quantifier right before every temporal operator.
    Ctl,
}

/// The logic the formulas must be written in.
fn logic(args: &CheckArgs) -> Logic {
    match args.logic {
        LogicArg::Any => Logic::Any,
        LogicArg::Ltl => Logic::Ltl,
        LogicArg::Ctl => Logic::Ctl,
        LogicArg::Auto => args
            .formulas
            .as_deref()
            .and_then(|p| p.file_name()?.to_str())
            .and_then(Examination::of_formula_file)
            .and_then(Examination::logic)
            .unwrap_or(Logic::Any),
    }
}

/// Reads the properties of `--formula` and `--formulas`, each with where it was read (for
/// the errors of name resolution); a formula outside `logic` is an error at its offending
/// operator.
fn read_properties(args: &CheckArgs, logic: Logic) -> Result<Vec<(Query, String)>> {
    let mut queries = Vec::new();
    for (i, text) in args.formula.iter().enumerate() {
        let source = format!("--formula '{text}'");
        let q = parse_cli_formula(text, i + 1).map_err(|e| anyhow!("{source}: {e}"))?;
        if let Some(e) = refusal(&q, logic) {
            return Err(anyhow!("{source}: {e}"));
        }
        queries.push((q, source));
    }
    if let Some(path) = &args.formulas {
        let source = path.display().to_string();
        for q in load(path)? {
            if let Some(e) = refusal(&q, logic) {
                return Err(anyhow!("{source}:{e} (property {})", q.id));
            }
            queries.push((q, source.clone()));
        }
    }
    Ok(queries)
}

/// Checks the properties of `--formula` and `--formulas` on the net.
fn properties(args: &CheckArgs, watchdog: &Watchdog, net: &Net) -> Result<Outcome> {
    let names = Names::of(net);
    let logic = logic(args);
    if logic == Logic::Ctl {
        // Nothing would differ: say so rather than run as if the flag had been heeded.
        for (given, flag, why) in [
            (
                args.no_stubborn,
                "--no-stubborn",
                "the CTL engine uses no stubborn sets",
            ),
            (
                args.no_reduce,
                "--no-reduce",
                "CTL formulas are never checked on a reduced net",
            ),
        ] {
            if given {
                return Err(anyhow!(
                    "{flag} has no effect on CTL formulas ({why}); leave it out"
                ));
            }
        }
    }
    let resolved = read_properties(args, logic)?
        .iter()
        .map(|(q, source)| {
            names
                .resolve(q)
                .map_err(|e| anyhow!("{source}: {e} (property {})", q.id))
        })
        .collect::<Result<Vec<_>>>()?;
    watchdog.phase("checking properties");
    let limits = watchdog.limits();
    let options = CheckOptions {
        ltl: LtlOptions {
            stubborn: !args.no_stubborn,
            ..LtlOptions::default()
        },
        read_arcs: args.read_arcs.into(),
    };
    let overflow = |overflow| anyhow!("{}: {overflow}", args.file.display());
    let answers = if logic == Logic::Ctl {
        // CTL is not preserved by the reductions; `A X φ` is read as CTL reads it.
        check::run::check_ctl(net, &resolved, args.engine.into(), &limits, options)
            .map_err(overflow)?
    } else if args.no_reduce {
        check::run::check_with(net, &resolved, args.engine.into(), &limits, options)
            .map_err(overflow)?
    } else {
        let checked = check::reduced::check(net, &resolved, args.engine.into(), &limits, options)
            .map_err(overflow)?;
        for note in &checked.notes {
            eprintln!("unfold check: {note}");
        }
        checked.answers
    };
    watchdog.phase("writing the report");
    let report = properties::report(&answers, net, &args.file, args.witness, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}

/// Shows the enumeration's progress (`check --brute`).
fn show_runs(progress: &Progress, p: BruteProgress) {
    progress.set_message(|| format!("{} runs, {} traces, {} visits", p.runs, p.traces, p.visits));
}

/// Shows the count's progress (`check --count`).
fn show_count(progress: &Progress, p: TraceProgress) {
    progress.set_message(|| format!("{} steps, {} table entries", p.steps, p.entries));
}

/// Counts maximal runs and traces (`check --count`).
fn count(args: &CheckArgs, watchdog: &Watchdog, sys: NetSystem) -> Result<Outcome> {
    watchdog.phase("counting runs and traces");
    let limits = watchdog.limits();
    let progress = Progress::spinner(args.output.quiet);
    let (count, sys_after) = brute::count_net(sys, &limits, &mut |p| show_count(&progress, p))
        .map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    progress.finish();
    watchdog.phase("writing the report");
    let report = brute::count_report(&sys_after, &count, &args.file, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}

/// The brute-force oracles on a program (`--brute`, `--count`): its failed assertions and
/// deadlocks.
fn program(args: &CheckArgs, watchdog: &Watchdog) -> Result<Outcome> {
    let program = read_program(&args.file, watchdog)?;
    watchdog.phase("building the system");
    let sys = ProgramSystem::new(&program).map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    let limits = watchdog.limits();
    let overflow = |e: &dyn std::fmt::Display| anyhow!("{}: {e}", args.file.display());
    let report = if args.count {
        watchdog.phase("counting runs and traces");
        let progress = Progress::spinner(args.output.quiet);
        let count = brute::count_system(&sys, &limits, &mut |p| show_count(&progress, p))
            .map_err(|e| overflow(&e))?;
        progress.finish();
        brute::count_report(&sys, &count, &args.file, limits.elapsed())
    } else {
        watchdog.phase("enumerating runs");
        let progress = Progress::spinner(args.output.quiet);
        let options = BruteOptions {
            max_len: args.max_depth,
        };
        let b = unfold::explore::brute::explore(&sys, &options, &limits, &mut |p| {
            show_runs(&progress, p)
        })
        .map_err(|e| overflow(&e))?;
        progress.finish();
        brute::brute_report(&sys, &b, &args.file, limits.elapsed())
    };
    watchdog.phase("writing the report");
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
    let is_program =
        unfold::formats::detect_file(&args.file) == Some(unfold::formats::Format::Tsys);
    if is_program && (args.brute || args.count) {
        return program(args, &watchdog);
    }
    let (net, _) = read_net(&args.file, &watchdog)?;
    if !args.formula.is_empty() || args.formulas.is_some() {
        return properties(args, &watchdog, &net);
    }
    let sys = NetSystem::new(&net);
    if args.count {
        return count(args, &watchdog, sys);
    }
    watchdog.phase("enumerating runs");
    let limits = watchdog.limits();
    let progress = Progress::spinner(args.output.quiet);
    let options = BruteOptions {
        max_len: args.max_depth,
    };
    let (b, sys) = brute::enumerate_net(sys, &options, &limits, &mut |p| show_runs(&progress, p))
        .map_err(|overflow| anyhow!("{}: {overflow}", args.file.display()))?;
    progress.finish();
    watchdog.phase("writing the report");
    let report = brute::brute_report(&sys, &b, &args.file, limits.elapsed());
    emit_report(&report, &args.output, args.limits.no_fail)
}
