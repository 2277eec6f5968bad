//! `unfold batch PATH...`: runs unfold's modes (and other tools) over benchmark suites, one CSV
//! row per (net, mode), flushed as soon as the run ends, so that an interrupted batch can be
//! finished with `--resume`.
//!
//! The harness lives in the binary: it spawns `unfold` itself and knows its subcommands, flags,
//! exit codes and JSON keys. Its pieces: [`discover`] finds the nets under files and folders,
//! [`supervise`] runs one child process with a hard wall-clock limit and measures its wall time
//! and peak memory, [`job`] turns one (net, mode) pair into a [`Row`] and runs many on a pool
//! of threads, [`row`] writes and reads rows (so that an interrupted batch can be resumed),
//! and [`external`] runs other unfolders and recognises their statistics lines.

pub mod discover;
pub mod external;
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

use super::shared::{Outcome, parse_duration, parse_size};
use discover::discover;
use job::{Job, RunOptions, run_jobs};
use row::{COLUMNS, Mode, Row, Status, csv_line, parse_csv, summary};

/// `unfold batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    /// Nets and programs, or folders searched recursively for `*.pnml`, `*.ll_net`,
    /// `MODEL/model.pnml` and `*.tsys` (programs run in the `dpor` and `edpor` modes only).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Comma-separated modes: `dpor` (`unfold run --cutoffs`), `prefix`, `reach`, `edpor`
    /// (`unfold edpor`, on programs).
    #[arg(long, value_delimiter = ',', default_value = "dpor,prefix,reach")]
    pub modes: Vec<String>,
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
    /// Keep the rows already in `--csv`, skip their (net, mode) pairs, append the rest.
    #[arg(long, requires = "csv")]
    pub resume: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Reads the rows of an existing CSV, cutting off a last line whose writing was cut short.
fn read_existing(path: &Path) -> Result<Vec<Row>> {
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
    let mut records = parse_csv(&text).into_iter();
    let Some(header) = records.next() else {
        return Ok(Vec::new());
    };
    if header.first().map(String::as_str) != Some("net") {
        bail!(
            "{}: not a batch CSV (the first column is not `net`)",
            path.display()
        );
    }
    Ok(records
        .filter_map(|r| Row::from_record(&header, &r))
        .collect())
}

/// The output files, written and flushed one whole row at a time.
struct Sinks {
    csv: Option<File>,
    jsonl: Option<File>,
}

impl Sinks {
    fn open(args: &BatchArgs, have_header: bool) -> Result<Sinks> {
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
        let csv = match &args.csv {
            Some(p) => {
                let mut f = open(p)?;
                if !have_header {
                    f.seek(SeekFrom::End(0))?;
                    f.write_all(csv_line(&COLUMNS).as_bytes())?;
                    f.flush()?;
                }
                Some(f)
            }
            None => None,
        };
        let jsonl = args.jsonl.as_deref().map(open).transpose()?;
        Ok(Sinks { csv, jsonl })
    }

    fn write(&mut self, row: &Row) -> io::Result<()> {
        if let Some(f) = &mut self.csv {
            // One write of the whole line, then to disk: an interruption loses no finished row.
            f.write_all(csv_line(&row.record()).as_bytes())?;
            f.flush()?;
            f.sync_data()?;
        }
        if let Some(f) = &mut self.jsonl {
            let mut line = serde_json::to_string(row).map_err(io::Error::other)?;
            line.push('\n');
            f.write_all(line.as_bytes())?;
            f.flush()?;
        }
        Ok(())
    }
}

/// Runs the batch.
pub fn run(args: &BatchArgs, interrupt: Arc<AtomicBool>) -> Result<Outcome> {
    let mut modes = Vec::new();
    for m in &args.modes {
        if m.trim().is_empty() {
            continue;
        }
        match Mode::builtin(m) {
            Some(mode) if !modes.contains(&mode) => modes.push(mode),
            Some(_) => {}
            None => bail!("unknown mode '{m}' (use dpor, prefix, reach, or --external)"),
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
        bail!("no mode to run: --modes dpor,prefix,reach,edpor or --external NAME=COMMAND");
    }
    let nets = discover(&args.paths).context("cannot list the nets")?;
    if nets.is_empty() {
        bail!("no net (*.pnml, *.ll_net) under the given paths");
    }
    let previous = match (&args.csv, args.resume) {
        (Some(path), true) => read_existing(path)?,
        _ => Vec::new(),
    };
    let have_header = args.resume
        && args
            .csv
            .as_deref()
            .and_then(|p| std::fs::metadata(p).ok())
            .is_some_and(|m| m.len() > 0);
    let done: HashSet<(String, String)> = previous
        .iter()
        .map(|r| (r.net.clone(), r.mode.clone()))
        .collect();
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
        .filter(|j| !done.contains(&(j.net.name.clone(), j.mode.name().to_string())))
        .collect();
    let mut sinks = Sinks::open(args, have_header)?;
    let work_dir = std::env::temp_dir().join(format!("unfold-batch-{}", std::process::id()));
    let opts = RunOptions {
        exe: std::env::current_exe().context("cannot find the unfold binary")?,
        timeout: args.timeout,
        mem_limit: args.mem_limit,
        work_dir: work_dir.clone(),
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
    if !previous.is_empty() {
        bar.println(format!(
            "resuming: {} runs already in the CSV, {} to do",
            previous.len(),
            jobs.len()
        ));
    }
    let mut rows = previous;
    let mut write_error = None;
    let complete = run_jobs(&jobs, &opts, args.jobs, &interrupt, |row| {
        if write_error.is_none()
            && let Err(e) = sinks.write(&row)
        {
            write_error = Some(e);
            // Stop the batch: rows that cannot be recorded are not worth computing.
            interrupt.store(true, Ordering::Relaxed);
        }
        bar.set_message(format!("{} {}: {}", row.net, row.mode, row.status.as_str()));
        bar.inc(1);
        rows.push(row);
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&work_dir);
    if let Some(e) = write_error {
        return Err(e).context("cannot write the results");
    }
    let names: Vec<String> = modes.iter().map(|m| m.name().to_string()).collect();
    let mut out = io::stdout().lock();
    write!(out, "{}", summary(&rows, &names))?;
    out.flush()?;
    if !complete {
        eprintln!(
            "interrupted: {} of {} runs recorded; run again with --resume to finish",
            rows.len(),
            nets.len() * modes.len()
        );
        return Ok(Outcome::Stopped);
    }
    Ok(outcome_of(&rows))
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
