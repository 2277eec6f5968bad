//! Other unfolders (Cunf, Mole, Punf…) run from a command template on the same nets: the net
//! converted to the format they read, their statistics lines recognised, their `.mci` prefix
//! measured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::discover::strip_net_ext;
use super::job::{Job, RunOptions, first_line};
use super::row::{Figures, Row, Status};
use super::supervise::{Ended, supervise};

/// Quotes `s` for `sh`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn is_pep(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".ll_net")
}

/// Converts `net` with `unfold convert` into `dir`; the error is the row's message.
fn convert(
    net: &Path,
    to_pep: bool,
    dir: &Path,
    tag: usize,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Result<PathBuf, (Status, String)> {
    let stem = net
        .file_name()
        .map(|n| strip_net_ext(&n.to_string_lossy()).to_string())
        .unwrap_or_else(|| "net".into());
    let out = dir.join(format!(
        "{tag}-{stem}.{}",
        if to_pep { "ll_net" } else { "pnml" }
    ));
    let mut cmd = Command::new(&opts.exe);
    cmd.arg("convert").arg(net).arg(&out);
    let run = supervise(cmd, opts.timeout, interrupt)
        .map_err(|e| (Status::Error, format!("cannot run unfold convert: {e}")))?;
    match run.ended {
        Ended::Exited(0) => Ok(out),
        Ended::Exited(2) => Err((
            Status::Refused,
            format!("convert: {}", first_line(&run.stderr)),
        )),
        other => Err((Status::Error, format!("convert ended: {other:?}"))),
    }
}

static JOB_TAG: AtomicUsize = AtomicUsize::new(0);

/// Fills the placeholders `{key}` of `template` in one pass (a value is never searched for
/// further placeholders); unknown `{...}` are left as they are.
pub fn fill_template(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'scan: while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        for (key, value) in values {
            if let Some(after) = rest.strip_prefix(key) {
                out.push_str(value);
                rest = after;
                continue 'scan;
            }
        }
        out.push('{');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

pub(super) fn external_row(
    mut row: Row,
    template: &str,
    job: &Job,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Option<Row> {
    let tag = JOB_TAG.fetch_add(1, Ordering::Relaxed);
    let file = job.net.path.as_path();
    let mut temps = Vec::new();
    let mut values = vec![("{file}", shell_quote(&file.to_string_lossy()))];
    for (key, want_pep) in [("{pep}", true), ("{pnml}", false)] {
        if !template.contains(key) {
            continue;
        }
        let path = if is_pep(file) == want_pep {
            file.to_path_buf()
        } else {
            let _ = std::fs::create_dir_all(&opts.work_dir);
            match convert(file, want_pep, &opts.work_dir, tag, opts, interrupt) {
                Ok(p) => {
                    temps.push(p.clone());
                    p
                }
                Err((status, message)) => {
                    if interrupt.load(Ordering::Relaxed) {
                        return None;
                    }
                    row.status = status;
                    row.message = message;
                    return Some(row);
                }
            }
        };
        values.push((key, shell_quote(&path.to_string_lossy())));
    }
    // `{mci}`: a fresh path for the prefix the tool writes; its sizes are read after the run.
    let mci = template.contains("{mci}").then(|| {
        let _ = std::fs::create_dir_all(&opts.work_dir);
        let path = opts.work_dir.join(format!("{tag}.mci"));
        let _ = std::fs::remove_file(&path);
        path
    });
    if let Some(path) = &mci {
        values.push(("{mci}", shell_quote(&path.to_string_lossy())));
        temps.push(path.clone());
    }
    let command = fill_template(template, &values);
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&command);
    let result = supervise(cmd, opts.timeout, interrupt);
    let prefix_sizes = match (&result, &mci) {
        (Ok(run), Some(path)) if run.ended == Ended::Exited(0) => Some(mci_sizes(path)),
        _ => None,
    };
    for t in temps {
        let _ = std::fs::remove_file(t);
    }
    let run = match result {
        Ok(run) => run,
        Err(e) => {
            row.status = Status::Error;
            row.message = format!("cannot start sh: {e}");
            return Some(row);
        }
    };
    if run.ended == Ended::Interrupted {
        return None;
    }
    row.wall_s = run.wall.as_secs_f64();
    row.peak_mb = run.peak_bytes.map(|b| b as f64 / (1u64 << 20) as f64);
    let mut text = String::from_utf8_lossy(&run.stdout).into_owned();
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(&run.stderr));
    row.figures = parse_tool_output(&text);
    match run.ended {
        Ended::Exited(code) => {
            row.exit_code = Some(code);
            if code == 0 {
                row.status = Status::Ok;
            } else if (129..=159).contains(&code) {
                // The shell's report of a command killed by signal `code - 128`.
                row.status = Status::Crash;
                row.message = format!("killed by signal {}", code - 128);
            } else {
                row.status = Status::Error;
                let line = first_line(&run.stderr);
                row.message = if line.is_empty() {
                    format!("exit code {code}")
                } else {
                    line
                };
            }
        }
        Ended::Signaled(sig) => {
            row.status = Status::Crash;
            row.message = format!("killed by signal {sig}");
        }
        Ended::KilledAtLimit => {
            row.status = Status::Timeout;
            row.message = "killed at the time limit".into();
        }
        Ended::Interrupted => return None,
    }
    match prefix_sizes {
        Some(Ok((events, conditions, cutoffs))) => {
            row.figures.events = Some(events);
            row.figures.conditions = Some(conditions);
            row.figures.cutoffs = Some(cutoffs);
        }
        Some(Err(message)) => {
            row.status = Status::Error;
            row.message = message;
        }
        None => {}
    }
    Some(row)
}

/// Events (cutoffs included), conditions and cutoffs of the `.mci` file a tool wrote at `path`;
/// the error is the row's message.
fn mci_sizes(path: &Path) -> Result<(u64, u64, u64), String> {
    if !path.exists() {
        return Err("the tool exited 0 but wrote no .mci file at {mci}".into());
    }
    let m = unfold::formats::mci::read_mci(path).map_err(|e| e.to_string())?;
    Ok((
        m.event_count() as u64,
        m.condition_count() as u64,
        m.cutoff_count() as u64,
    ))
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Num(u64),
    Open,
    Close,
    Sep,
}

fn tokens(line: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '-')
            {
                i += 1;
            }
            let w: String = chars[start..i].iter().collect();
            out.push(Tok::Word(w.to_ascii_lowercase()));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            // A decimal fraction (a time, a ratio) is no count.
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                out.push(Tok::Sep);
                continue;
            }
            match digits.parse() {
                Ok(n) => out.push(Tok::Num(n)),
                Err(_) => out.push(Tok::Sep),
            }
            continue;
        }
        match c {
            '(' | '[' => out.push(Tok::Open),
            ')' | ']' => out.push(Tok::Close),
            // Separators inside "key: value", "key = value", "|E|=11", "#events 11".
            ' ' | '\t' | ':' | '=' | '|' | '#' => {}
            _ => out.push(Tok::Sep),
        }
        i += 1;
    }
    out
}

fn key_of(words: &[&str]) -> Option<&'static str> {
    let mut phrase: String = words.concat();
    phrase.retain(|c| c != '-' && c != '_');
    for prefix in ["numberof", "noof", "nrof", "total", "all"] {
        if let Some(rest) = phrase.strip_prefix(prefix)
            && !rest.is_empty()
        {
            phrase = rest.to_string();
        }
    }
    Some(match phrase.as_str() {
        "events" | "event" | "e" | "ev" => "events",
        "conditions" | "condition" | "cond" | "conds" | "b" => "conditions",
        "cutoffs" | "cutoff" | "cutoffevents" | "cutoffevent" | "ecut" | "cutoffhistories"
        | "cut" => "cutoffs",
        "histories" | "history" | "hist" => "histories",
        "states" | "markings" | "reachablestates" | "reachablemarkings" => "states",
        _ => return None,
    })
}

/// Whether `word` in front of a count's name makes it another count: Cunf's "white events",
/// "generating cond.", our "non-cutoff events", "queued events" of progress lines.
fn qualifies(word: &str) -> bool {
    matches!(
        word,
        "non"
            | "noncutoff"
            | "non-cutoff"
            | "white"
            | "gray"
            | "grey"
            | "black"
            | "generating"
            | "reading"
            | "compound"
            | "queued"
            | "pending"
            | "possible"
            | "max"
            | "avg"
            | "mean"
            | "average"
    )
}

/// Words right before token `i` (skipping one parenthesised group), nearest last.
fn words_before(toks: &[Tok], i: usize) -> Vec<&str> {
    let mut j = i;
    if j > 0 && toks[j - 1] == Tok::Close {
        while j > 0 && toks[j - 1] != Tok::Open {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    let mut words = Vec::new();
    while j > 0 && words.len() < 3 {
        match &toks[j - 1] {
            Tok::Word(w) => words.push(w.as_str()),
            _ => break,
        }
        j -= 1;
    }
    words.reverse();
    words
}

fn words_after(toks: &[Tok], i: usize) -> Vec<&str> {
    toks[i + 1..]
        .iter()
        .map_while(|t| match t {
            Tok::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .take(3)
        .collect()
}

/// Recognises the statistics lines of unfolding tools in their output and returns the counts
/// found: Cunf's tab-separated `events 11` / `cond 20` / `cutoffs 3` / `hist 11`, Punf-like
/// `|E|=11, |E_cut|=3, |B|=20`, and prose like `11 events, 3 cut-off events, 20 conditions` or
/// `Number of events: 11`. Tolerant: unknown lines are skipped, fractions (times, ratios) are
/// never counts, and the last figure of a kind wins.
pub fn parse_tool_output(text: &str) -> Figures {
    let mut found: BTreeMap<&'static str, u64> = BTreeMap::new();
    for line in text.lines() {
        let toks = tokens(line);
        // Words already taken as the name of the number before them ("11 events 3 cutoffs").
        let mut taken_upto = 0;
        for (i, t) in toks.iter().enumerate() {
            let Tok::Num(n) = t else { continue };
            let before = if i > taken_upto {
                words_before(&toks, i)
            } else {
                Vec::new()
            };
            // The longest phrase ending right before the number, then the one right after. A
            // phrase with a qualifier in front ("white events", "non-cutoff events") counts
            // something else.
            let mut key = (0..before.len())
                .find_map(|s| key_of(&before[s..]).filter(|_| s == 0 || !qualifies(before[s - 1])));
            if key.is_none() {
                let after = words_after(&toks, i);
                if let Some(l) = (1..=after.len())
                    .rev()
                    .find(|&l| key_of(&after[..l]).is_some())
                {
                    key = key_of(&after[..l]);
                    taken_upto = i + l + 1;
                }
            }
            if let Some(k) = key {
                found.insert(k, *n);
            }
        }
    }
    Figures {
        states: found.get("states").copied(),
        events: found.get("events").copied(),
        cutoffs: found.get("cutoffs").copied(),
        conditions: found.get("conditions").copied(),
        histories: found.get("histories").copied(),
        ..Figures::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cunf_statistics() {
        let text = "time\t0.010\nmem\t1\nhist\t11\nevents\t11\ncond\t20\ngen\t11\n\
                    r(h)\t1.00\npre(e)\t1.73\ncutoffs\t3\newhite\t0\nnet\tdo_od.ll_net\n";
        let f = parse_tool_output(text);
        assert_eq!(f.events, Some(11));
        assert_eq!(f.conditions, Some(20));
        assert_eq!(f.cutoffs, Some(3));
        assert_eq!(f.histories, Some(11));
    }

    /// Cunf 1.6.1's `-i` statistics, as it printed them for pep/do_od.ll_net (11 events, 20
    /// conditions, 1 cutoff in ORACLES.tsv).
    #[test]
    fn cunf_1_6_statistics() {
        let text = "cpu time             : 0.001\nmax memory (rss)     : 5\n\
                    histories            : 11\nevents               : 11\n\
                    conditions           : 20\ngenerating cond.     : 18\n\
                    reading cond.        : 0\ncompound cond.       : 0\n\
                    vector r(h) [avg]    : 0.00\nvector co(r) [avg]   : 1.11\n\
                    pre-set(e) [avg]     : 0.00\ncutoffs              : 1\n\
                    white events         : 0\ngray events          : 0\n\
                    black events         : 0\nnet                  : do_od.ll_net\n";
        let f = parse_tool_output(text);
        assert_eq!(
            (f.events, f.conditions, f.cutoffs, f.histories),
            (Some(11), Some(20), Some(1), Some(11))
        );
        // Our own human report: "non-cutoff events" is not the events.
        let f = parse_tool_output("events  11\ncutoffs  1\nnon-cutoff events  10\n");
        assert_eq!((f.events, f.cutoffs), (Some(11), Some(1)));
    }

    #[test]
    fn templates_are_filled_once() {
        let values = [
            ("{pep}", "'a{mci}.ll_net'".to_string()),
            ("{mci}", "'o.mci'".into()),
        ];
        assert_eq!(
            fill_template("mole {pep} -m {mci} {x} {", &values),
            "mole 'a{mci}.ll_net' -m 'o.mci' {x} {"
        );
    }

    #[test]
    fn punf_and_mole_statistics() {
        let f = parse_tool_output("Prefix: |B|=20, |E|=11, |E_cut|=3\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(11), Some(20), Some(3))
        );
        let f = parse_tool_output(
            "mole 060323: dpd_7.ll_net\n1234 events, 56 cut-off events, 3000 conditions\n\
             Time: 0.52 s\n",
        );
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(1234), Some(3000), Some(56))
        );
        let f = parse_tool_output("Number of events: 7 (2 cutoffs)\nConditions = 9\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(7), Some(9), Some(2))
        );
        let f = parse_tool_output("11 events 3 cutoffs 20 conditions\n");
        assert_eq!(
            (f.events, f.conditions, f.cutoffs),
            (Some(11), Some(20), Some(3))
        );
        let f = parse_tool_output("nothing to see: version 1.6, 2.5 s\n");
        assert_eq!(f, Figures::default());
    }
}
