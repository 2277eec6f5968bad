//! `unfold mcc`: the Model Checking Contest's BenchKit entry point.
//!
//! In an instance folder (`model.pnml`, `iscolored`) it answers the examination named by
//! `BK_EXAMINATION` (or `--examination`) within `BK_TIME_CONFINEMENT` seconds and
//! `BK_MEMORY_CONFINEMENT` MiB, printing the contest's answer lines on standard output and
//! nothing else there; how the answer was found goes to standard error. The answer itself
//! comes from [`unfold::mcc`].
//!
//! Exit codes: 0 answered (or `DO_NOT_COMPETE`), 3 `CANNOT_COMPUTE` because a limit stopped
//! the run, 2 bad input or usage (`CANNOT_COMPUTE` is printed too).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};

use super::shared::{LimitArgs, Outcome, parse_duration, parse_size, read_net, watch};
use unfold::explore::limits::Limits;
use unfold::mcc::answer::{
    CANNOT_COMPUTE, DO_NOT_COMPETE, ENV_EXAMINATION, ENV_MEMORY, ENV_TIME, MODEL_FILE,
};
use unfold::mcc::instance::{Confinement, is_colored};
use unfold::mcc::{DeadlockMethod, Examination, Options, examine_with};
use unfold::property::load::load;

/// How ReachabilityDeadlock is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeadlockMethodArg {
    /// The complete prefix on nets that look 1-safe (half the time budget), else or then the
    /// explicit state space.
    Auto,
    /// Explicit state space (stops at the first deadlock).
    Reach,
    /// The complete finite prefix (1-safe nets; others fall back to `reach`).
    Prefix,
    /// The unfolding DPOR with cutoffs (ERV order).
    Dpor,
}

impl From<DeadlockMethodArg> for DeadlockMethod {
    fn from(arg: DeadlockMethodArg) -> Self {
        match arg {
            DeadlockMethodArg::Auto => DeadlockMethod::Auto,
            DeadlockMethodArg::Reach => DeadlockMethod::Reach,
            DeadlockMethodArg::Prefix => DeadlockMethod::Prefix,
            DeadlockMethodArg::Dpor => DeadlockMethod::Dpor,
        }
    }
}

/// `unfold mcc`.
#[derive(Args, Debug)]
pub struct MccArgs {
    /// The instance folder, holding `model.pnml` and `iscolored`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// The examination (default: `$BK_EXAMINATION`).
    #[arg(long, value_name = "NAME")]
    pub examination: Option<String>,
    /// How ReachabilityDeadlock is decided.
    #[arg(long, value_enum, default_value_t = DeadlockMethodArg::Auto)]
    pub deadlock_method: DeadlockMethodArg,
    /// Time budget (default: `$BK_TIME_CONFINEMENT` seconds, less 5 % for answering).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Memory budget of the explorers' data (default: three quarters of
    /// `$BK_MEMORY_CONFINEMENT` MiB, the rest being the net, the allocator and the process).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
    /// Run the engines on the net as given, without the structural reductions (to compare).
    #[arg(long)]
    pub no_reduce: bool,
}

/// The limits of the run (flags first, then the BenchKit variables), and its time budget.
fn limits(args: &MccArgs, interrupt: Arc<AtomicBool>) -> Result<(Limits, Option<Duration>)> {
    // A variable a flag overrides is not read (nor refused when malformed).
    let overridden = |name: &str| {
        (name == ENV_TIME && args.timeout.is_some())
            || (name == ENV_MEMORY && args.mem_limit.is_some())
    };
    let confinement = Confinement::from_vars(|name| {
        (!overridden(name))
            .then(|| std::env::var(name).ok())
            .flatten()
    })?;
    let timeout = args.timeout.or(confinement.time);
    let limits = LimitArgs {
        timeout,
        mem_limit: args.mem_limit.or(confinement.memory),
        no_fail: false,
    }
    .limits(interrupt);
    Ok((limits, timeout))
}

/// Prints one line of the answer.
fn answer(line: &str) {
    println!("{line}");
}

/// Logs how the answer was found (standard error: standard output is the contest's).
fn note(exam: Examination, text: &str) {
    eprintln!("unfold mcc: {exam}: {text}");
}

/// Runs `unfold mcc`.
pub fn run(args: &MccArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let name = match &args.examination {
        Some(n) => n.clone(),
        None => std::env::var(ENV_EXAMINATION)
            .map_err(|_| anyhow!("no examination: set {ENV_EXAMINATION} or give --examination"))?,
    };
    let result = run_examination(args, &name, interrupt);
    if result.is_err() {
        // The contest reads standard output only: say that no answer is coming.
        answer(CANNOT_COMPUTE);
    }
    result
}

fn run_examination(args: &MccArgs, name: &str, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    // Coloured (symmetric) nets are unfolded to P/T by the reader, and formulas on their
    // coloured nodes resolved through the folding: they compete like P/T nets.
    if is_colored(&args.dir)? {
        eprintln!("unfold mcc: coloured net, unfolded to P/T");
    }
    let Some(exam) = Examination::from_name(name) else {
        eprintln!("unfold mcc: examination {name} is not supported");
        answer(DO_NOT_COMPETE);
        return Ok(Outcome::Clean);
    };
    let (limits, budget) = limits(args, interrupt)?;
    let model = args.dir.join(MODEL_FILE);
    // The watchdog holds the time limit while the model is read; memory is left to the
    // engines, which answer CANNOT_COMPUTE (the watchdog would end the process without an
    // answer line, and the contest reads answer lines only).
    let watchdog = watch(limits.clone().with_mem_limit(None), "mcc", &model, None);
    let net = match read_net(&model, &watchdog) {
        Ok((net, _)) => net,
        // A high-level net other than a symmetric one: the reader refuses it by name.
        Err(e) if format!("{e:#}").contains("coloured nets are not supported") => {
            eprintln!("unfold mcc: {e:#}");
            answer(DO_NOT_COMPETE);
            return Ok(Outcome::Clean);
        }
        Err(e) => return Err(e),
    };
    let formulas = match exam.formula_file() {
        Some(file) => load(&args.dir.join(file)).map_err(|e| anyhow!("{e}"))?,
        None => Vec::new(),
    };
    // From here on the engines check the limits themselves and answer CANNOT_COMPUTE.
    drop(watchdog);
    let options = Options {
        method: args.deadlock_method.into(),
        reduce: !args.no_reduce,
    };
    let found = examine_with(exam, &net, &formulas, &options, &limits, budget)
        .map_err(|o| anyhow!("{MODEL_FILE}: {o}"))?;
    for text in &found.notes {
        note(exam, text);
    }
    for line in &found.lines {
        answer(line);
    }
    note(exam, &format!("{:.3} s", limits.elapsed().as_secs_f64()));
    Ok(match found.stopped {
        Some(reason) => {
            note(exam, &format!("stopped: {reason}"));
            Outcome::Stopped
        }
        None => Outcome::Clean,
    })
}
