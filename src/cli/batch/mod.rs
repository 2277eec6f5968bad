//! `unfold batch PATH...`: runs unfold's modes (and other tools) over benchmark suites, one CSV
//! row per (net, mode), flushed as soon as the run ends, so that an interrupted batch can be
//! finished with `--resume`; MCC examinations run as modes on instance folders, with one more
//! row per formula, checked against the contest's known answers.
//!
//! The harness lives in the binary: it spawns `unfold` itself and knows its subcommands, flags,
//! exit codes and JSON keys. Its pieces: [`discover`] finds the nets under files and folders,
//! [`supervise`] runs one child process with a hard wall-clock limit and measures its wall time
//! and peak memory, [`job`] turns one (net, mode) pair into a [`Row`] and runs many on a pool
//! of threads, [`row`] writes and reads rows (so that an interrupted batch can be resumed),
//! [`external`] runs other unfolders and recognises their statistics lines, [`examination`]
//! runs `unfold mcc` and reads its answer lines, and [`formula`] holds the formula rows, the
//! known answers and their summary.

pub mod discover;
pub mod examination;
pub mod external;
pub mod formula;
pub mod job;
pub mod row;
pub mod supervise;

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use unfold::mcc::Examination;

use super::shared::{Outcome, parse_duration, parse_size};
use discover::discover;
use formula::{Answers, FORMULA_COLUMNS, FormulaRow, Verdict, formula_summary};
use job::{Finished, Job, RunOptions, run_jobs};
use row::{COLUMNS, Mode, Row, Status, csv_line, parse_csv, summary};

/// `unfold batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    /// Nets and programs, or folders searched recursively for `*.pnml`, `*.ll_net`,
    /// `MODEL/model.pnml` and `*.tsys` (programs run in the `dpor` and `edpor` modes only).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Comma-separated modes: `dpor` (`unfold run --cutoffs`), `prefix`, `reach`, `edpor`
    /// (`unfold edpor`, on programs), and MCC examinations (`UpperBounds`,
    /// `ReachabilityDeadlock`, ...: `unfold mcc` on instance folders). Default:
    /// `dpor,prefix,reach`, or none besides the examinations of `--mcc`.
    #[arg(long, value_delimiter = ',', value_name = "MODES")]
    pub modes: Option<Vec<String>>,
    /// MCC examinations run on the instance folders (`MODEL/model.pnml`): `all` (every
    /// examination `unfold mcc` answers) or a comma-separated list of names.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub mcc: Vec<String>,
    /// Another tool on the same nets: `NAME='COMMAND {pep}'` (also `{pnml}`, `{file}`; nets
    /// are converted where the template asks for the other format). `{mci}` is a temporary
    /// path for the tool's `.mci` prefix, whose sizes go into the row (`mole {pep} -m {mci}`);
    /// otherwise Cunf-style printed statistics are read. Repeatable.
    #[arg(long, value_name = "NAME=COMMAND")]
    pub external: Vec<String>,
    /// Time limit of each run (passed to unfold, which is killed 10 s later if still running;
    /// external tools are killed when it passes).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Memory limit of each unfold run (`512M`, `4G`).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mem_limit: Option<u64>,
    /// Runs at once.
    #[arg(long, short, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Write one row per run to this CSV file (flushed after every row).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write one JSON object per run to this file.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Write one row per formula of the examination modes to this CSV file (instance,
    /// examination, id, answer, engine, time_s, status, verdict, ...; flushed after every run).
    #[arg(long, value_name = "FILE")]
    pub formulas_csv: Option<PathBuf>,
    /// The contest's known answers, tab-separated `instance examination id answer` (the layout
    /// of `oracle.tsv`, `?` for unknown): every formula row gets a verdict, right, wrong,
    /// unanswered or unknown, and a wrong answer makes the batch exit 4.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Keep the rows already in `--csv` and `--formulas-csv`, skip their (net, mode) pairs,
    /// append the rest.
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The records of an existing CSV whose first column is `first` (the header first; none when
/// the file is missing or empty), cutting off a last line whose writing was cut short.
fn read_records(path: &Path, first: &str) -> Result<Vec<Vec<String>>> {
    let mut text = String::new();
    match File::open(path) {
        Ok(mut f) => {
            f.read_to_string(&mut text)
                .with_context(|| format!("cannot read {}", path.display()))?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    if !text.is_empty() && !text.ends_with('\n') {
        // A row cut short (the batch was killed while writing): drop it so it is redone.
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot repair {}", path.display()))?;
        f.set_len(keep as u64)?;
        text.truncate(keep);
    }
    let records = parse_csv(&text);
    if let Some(header) = records.first()
        && header.first().map(String::as_str) != Some(first)
    {
        bail!(
            "{}: not a batch CSV of this kind (the first column is not `{first}`)",
            path.display()
        );
    }
    Ok(records)
}

/// Reads the rows of an existing CSV.
fn read_existing(path: &Path) -> Result<Vec<Row>> {
    let mut records = read_records(path, COLUMNS[0])?.into_iter();
    let Some(header) = records.next() else {
        return Ok(Vec::new());
    };
    Ok(records
        .filter_map(|r| Row::from_record(&header, &r))
        .collect())
}

/// Reads the formula rows of an existing `--formulas-csv`.
fn read_existing_formulas(path: &Path) -> Result<Vec<FormulaRow>> {
    let mut records = read_records(path, FORMULA_COLUMNS[0])?.into_iter();
    let Some(header) = records.next() else {
        return Ok(Vec::new());
    };
    Ok(records
        .filter_map(|r| FormulaRow::from_record(&header, &r))
        .collect())
}

/// Replaces the content of `path` by `header` and `records` (written beside it, then renamed:
/// an interruption leaves the old file or the new one).
fn rewrite(path: &Path, header: &[&str], records: impl Iterator<Item = Vec<String>>) -> Result<()> {
    let mut text = csv_line(header);
    for r in records {
        text.push_str(&csv_line(&r));
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".rewrite");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The output files, written and flushed one whole run at a time.
struct Sinks {
    csv: Option<File>,
    jsonl: Option<File>,
    formulas: Option<File>,
}

/// Whether `path` is a file with something in it (whose header is then written already).
fn has_content(path: Option<&Path>) -> bool {
    path.and_then(|p| std::fs::metadata(p).ok())
        .is_some_and(|m| m.len() > 0)
}

impl Sinks {
    fn open(args: &BatchArgs) -> Result<Sinks> {
        let open = |path: &Path| -> Result<File> {
            let mut o = OpenOptions::new();
            o.create(true);
            if args.resume {
                o.append(true);
            } else {
                o.write(true).truncate(true);
            }
            o.open(path)
                .with_context(|| format!("cannot write {}", path.display()))
        };
        let with_header = |path: Option<&Path>, header: &[&str]| -> Result<Option<File>> {
            let Some(p) = path else { return Ok(None) };
            let have_header = args.resume && has_content(Some(p));
            let mut f = open(p)?;
            if !have_header {
                f.seek(SeekFrom::End(0))?;
                f.write_all(csv_line(header).as_bytes())?;
                f.flush()?;
            }
            Ok(Some(f))
        };
        let csv = with_header(args.csv.as_deref(), &COLUMNS)?;
        let formulas = with_header(args.formulas_csv.as_deref(), &FORMULA_COLUMNS)?;
        let jsonl = args.jsonl.as_deref().map(open).transpose()?;
        Ok(Sinks {
            csv,
            jsonl,
            formulas,
        })
    }

    /// Writes a run: its formula rows first, then its row, so that a run whose row is in
    /// `--csv` has its formulas in `--formulas-csv` too.
    fn write(&mut self, done: &Finished) -> io::Result<()> {
        if let Some(f) = &mut self.formulas
            && !done.formulas.is_empty()
        {
            let text: String = done
                .formulas
                .iter()
                .map(|r| csv_line(&r.record()))
                .collect();
            f.write_all(text.as_bytes())?;
            f.flush()?;
            f.sync_data()?;
        }
        let row = &done.row;
        if let Some(f) = &mut self.csv {
            // One write of the whole line, then to disk: an interruption loses no finished row.
            f.write_all(csv_line(&row.record()).as_bytes())?;
            f.flush()?;
            f.sync_data()?;
        }
        if let Some(f) = &mut self.jsonl {
            // An examination's run carries its formulas, as `--formulas-csv` has them.
            let mut value = serde_json::to_value(row).map_err(io::Error::other)?;
            if !done.formulas.is_empty()
                && let serde_json::Value::Object(map) = &mut value
            {
                let formulas = serde_json::to_value(&done.formulas).map_err(io::Error::other)?;
                map.insert("formulas".into(), formulas);
            }
            let mut line = serde_json::to_string(&value).map_err(io::Error::other)?;
            line.push('\n');
            f.write_all(line.as_bytes())?;
            f.flush()?;
        }
        Ok(())
    }
}

/// The modes named by `--modes`, `--mcc` and `--external`, in that order, without repeats.
fn modes_of(args: &BatchArgs) -> Result<Vec<Mode>> {
    let mut names: Vec<String> = match &args.modes {
        Some(list) => list.clone(),
        None if args.mcc.is_empty() => vec!["dpor".into(), "prefix".into(), "reach".into()],
        None => Vec::new(),
    };
    for name in &args.mcc {
        match name.trim() {
            "" => {}
            "all" => names.extend(Examination::ALL.map(|e| e.name().to_string())),
            other if Examination::from_name(other).is_some() => names.push(other.to_string()),
            other => bail!(
                "unknown examination '{other}' (use all or some of {})",
                examination_names()
            ),
        }
    }
    let mut modes = Vec::new();
    for m in &names {
        if m.trim().is_empty() {
            continue;
        }
        match Mode::builtin(m) {
            Some(mode) if !modes.contains(&mode) => modes.push(mode),
            Some(_) => {}
            None => bail!(
                "unknown mode '{m}' (use dpor, prefix, reach, edpor, an examination ({}), or \
                 --external)",
                examination_names()
            ),
        }
    }
    for e in &args.external {
        let mode = Mode::external(e).map_err(anyhow::Error::msg)?;
        if modes.iter().any(|m| m.name() == mode.name()) {
            bail!("two tools are named '{}'", mode.name());
        }
        modes.push(mode);
    }
    if modes.is_empty() {
        bail!(
            "no mode to run: --modes dpor,prefix,reach,edpor, --mcc all or --external NAME=COMMAND"
        );
    }
    Ok(modes)
}

/// The examinations' names, comma-separated.
fn examination_names() -> String {
    Examination::ALL.map(|e| e.name()).join(", ")
}

/// Runs the batch.
pub fn run(args: &BatchArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    if args.resume && args.csv.is_none() && args.formulas_csv.is_none() {
        bail!("--resume needs --csv or --formulas-csv");
    }
    let modes = modes_of(args)?;
    let answers = args
        .answers
        .as_deref()
        .map(Answers::read)
        .transpose()?
        .map(Arc::new);
    let nets = discover(&args.paths).context("cannot list the nets")?;
    if nets.is_empty() {
        bail!("no net (*.pnml, *.ll_net) under the given paths");
    }
    let examinations = modes.iter().any(|m| matches!(m, Mode::Examination(_)));
    if examinations && !nets.iter().any(|n| examination::is_instance_model(&n.path)) {
        eprintln!(
            "no MCC instance folder (MODEL/model.pnml) under the given paths: the examination \
             modes have nothing to run"
        );
    }
    let mut previous = match (&args.csv, args.resume) {
        (Some(path), true) => read_existing(path)?,
        _ => Vec::new(),
    };
    let mut previous_formulas = match (&args.formulas_csv, args.resume) {
        (Some(path), true) => read_existing_formulas(path)?,
        _ => Vec::new(),
    };
    let run_pairs: HashSet<(String, String)> = previous
        .iter()
        .map(|r| (r.net.clone(), r.mode.clone()))
        .collect();
    let formula_pairs: HashSet<(String, String)> = previous_formulas
        .iter()
        .map(|r| (r.instance.clone(), r.examination.clone()))
        .collect();
    // An examination run is done when it is in every file it writes to: the formula rows are
    // written before the run's row, so a run cut short between the two is redone.
    let done = |pair: &(String, String), mode: &Mode| match mode {
        Mode::Examination(_) => {
            (args.csv.is_none() || run_pairs.contains(pair))
                && (args.formulas_csv.is_none() || formula_pairs.contains(pair))
        }
        _ => run_pairs.contains(pair),
    };
    let jobs: Vec<Job> = nets
        .iter()
        .flat_map(|n| {
            modes
                .iter()
                .filter(|m| m.applies_to(&n.path))
                .map(move |m| Job {
                    net: n.clone(),
                    mode: m.clone(),
                })
        })
        .filter(|j| {
            !(args.resume && done(&(j.net.name.clone(), j.mode.name().to_string()), &j.mode))
        })
        .collect();
    // The rows of runs done again are left out of the files, so that no run has two.
    let todo: HashSet<(String, String)> = jobs
        .iter()
        .map(|j| (j.net.name.clone(), j.mode.name().to_string()))
        .collect();
    let redone = |pair: (&String, &String)| todo.contains(&(pair.0.clone(), pair.1.clone()));
    if let Some(path) = args.csv.as_deref().filter(|_| args.resume)
        && previous.iter().any(|r| redone((&r.net, &r.mode)))
    {
        previous.retain(|r| !redone((&r.net, &r.mode)));
        rewrite(path, &COLUMNS, previous.iter().map(Row::record))?;
    }
    if let Some(path) = args.formulas_csv.as_deref().filter(|_| args.resume)
        && previous_formulas
            .iter()
            .any(|r| redone((&r.instance, &r.examination)))
    {
        previous_formulas.retain(|r| !redone((&r.instance, &r.examination)));
        rewrite(
            path,
            &FORMULA_COLUMNS,
            previous_formulas.iter().map(FormulaRow::record),
        )?;
    }
    let mut sinks = Sinks::open(args)?;
    let work_dir = std::env::temp_dir().join(format!("unfold-batch-{}", std::process::id()));
    let opts = RunOptions {
        exe: std::env::current_exe().context("cannot find the unfold binary")?,
        timeout: args.timeout,
        mem_limit: args.mem_limit,
        work_dir: work_dir.clone(),
        answers: answers.clone(),
    };
    let bar = if args.quiet || !io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(jobs.len() as u64), ProgressDrawTarget::hidden())
    } else {
        let bar = ProgressBar::new(jobs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "[{elapsed_precise}] {bar:30} {pos}/{len} runs, eta {eta} {msg}",
            )
            .expect("static template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    };
    let kept = if args.csv.is_some() {
        previous.len()
    } else {
        let pairs: HashSet<(&str, &str)> = previous_formulas
            .iter()
            .map(|r| (r.instance.as_str(), r.examination.as_str()))
            .collect();
        pairs.len()
    };
    if kept > 0 {
        bar.println(format!(
            "resuming: {kept} runs already in the CSV, {} to do",
            jobs.len()
        ));
    }
    let mut rows = previous;
    let mut formulas = previous_formulas;
    let mut write_error = None;
    let complete = run_jobs(&jobs, &opts, args.jobs, &interrupt, |mut done| {
        for f in &mut done.formulas {
            f.verdict = answers.as_deref().map(|a| a.verdict(f));
        }
        if write_error.is_none()
            && let Err(e) = sinks.write(&done)
        {
            write_error = Some(e);
            // Stop the batch: rows that cannot be recorded are not worth computing.
            interrupt.store(true, Ordering::Relaxed);
        }
        let row = done.row;
        bar.set_message(format!("{} {}: {}", row.net, row.mode, row.status.as_str()));
        bar.inc(1);
        rows.push(row);
        formulas.extend(done.formulas);
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work_dir);
    if let Some(e) = write_error {
        return Err(e).context("cannot write the results");
    }
    // Verdicts against the answers given now, resumed rows included.
    for f in &mut formulas {
        f.verdict = answers.as_deref().map(|a| a.verdict(f));
    }
    let names: Vec<String> = modes.iter().map(|m| m.name().to_string()).collect();
    let mut out = io::stdout().lock();
    write!(out, "{}", summary(&rows, &names))?;
    if !formulas.is_empty() {
        write!(
            out,
            "\n{}",
            formula_summary(&formulas, &names, answers.as_deref())
        )?;
    }
    out.flush()?;
    let wrong: Vec<&str> = formulas
        .iter()
        .filter(|f| f.verdict == Some(Verdict::Wrong))
        .map(|f| f.id.as_str())
        .collect();
    if !wrong.is_empty() {
        eprintln!(
            "{} wrong answers (verdict wrong in the formula rows): {}",
            wrong.len(),
            wrong.join(", ")
        );
    }
    if !complete {
        eprintln!(
            "interrupted: {} of {} runs recorded; run again with --resume to finish",
            rows.len(),
            nets.len() * modes.len()
        );
    }
    Ok(if !wrong.is_empty() {
        Outcome::Failed
    } else if !complete {
        Outcome::Stopped
    } else {
        outcome_of(&rows)
    })
}

/// The exit status of a finished batch, from all its rows (those of a resumed CSV included):
/// 4 when a run crashed or failed, else 3 when a run was stopped by a limit, else 0. Deadlocks
/// and refusals (a net out of a mode's scope) are answers, not failures.
fn outcome_of(rows: &[Row]) -> Outcome {
    let count = |st: &[Status]| rows.iter().filter(|r| st.contains(&r.status)).count();
    let failed = count(&[Status::Error, Status::Crash]);
    let limited = count(&[Status::Timeout, Status::Memory]);
    if failed > 0 {
        eprintln!("{failed} runs crashed or failed (status error or crash in the rows)");
        Outcome::Failed
    } else if limited > 0 {
        eprintln!("{limited} runs stopped at a limit (status timeout or memory in the rows)");
        Outcome::Stopped
    } else {
        Outcome::Clean
    }
}
