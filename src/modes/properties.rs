//! `check --formula` / `--formulas`: the report of a property check, one line per property
//! (id, answer, engine, time) and, when asked, its witness run; in JSON one object per
//! property.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value as Json, json};

use super::{Report, head, tail};
use crate::check::run::{Answer, Engine, Unknown, Value};
use crate::model::net::Net;
use crate::report::stats::Stats;

/// The answer as the report prints it: `TRUE`, `FALSE`, the bound, or `unknown`.
pub fn answer_text(a: &Answer) -> String {
    match a.value {
        Some(Value::Bool(true)) => "TRUE".into(),
        Some(Value::Bool(false)) => "FALSE".into(),
        Some(Value::Bound(b)) => b.to_string(),
        None => "unknown".into(),
    }
}

fn run_names(net: &Net, run: &[u32]) -> Vec<String> {
    run.iter()
        .map(|&t| net.transitions[t as usize].label.to_string())
        .collect()
}

/// The report of `answers` to the properties read from `file` on `net`; `with_witness` adds a
/// witness line under each property that has one.
pub fn report(
    answers: &[Answer],
    net: &Net,
    file: &Path,
    with_witness: bool,
    elapsed: Duration,
) -> Report {
    let decided = answers.iter().filter(|a| a.value.is_some()).count();
    let complete = decided == answers.len();
    let mut stats = Stats::new();
    head(&mut stats, file, "properties", complete);
    stats.add("properties", "properties", answers.len() as u64);
    stats.add("decided", "decided", decided as u64);
    let objects: Vec<Json> = answers
        .iter()
        .map(|a| {
            json!({
                "id": a.id,
                "answer": match a.value {
                    Some(Value::Bool(b)) => json!(b),
                    Some(Value::Bound(n)) => json!(n),
                    None => Json::Null,
                },
                "engine": a.engine.map(|e| e.name()),
                "time_s": a.time.as_secs_f64(),
                "witness": a.witness.as_ref().map(|w| run_names(net, w)),
                "cycle": a.cycle.as_ref().map(|c| run_names(net, c)),
                "explored": a.explored,
                "unknown": a.unknown.as_ref().map(|u| u.to_string()),
            })
        })
        .collect();
    stats.add_json("results", Json::Array(objects));
    tail(&mut stats, elapsed);
    let width = answers.iter().map(|a| a.id.len()).max().unwrap_or(0);
    let mut notes = Vec::new();
    for a in answers {
        let line = match (&a.engine, &a.unknown) {
            (Some(e), _) => format!(
                "{:width$}  {:7}  {:10}  {:.3} s{}",
                a.id,
                answer_text(a),
                e.name(),
                a.time.as_secs_f64(),
                // The CTL engine explores markings, the LTL engine product states; a
                // structural answer explores nothing.
                match (a.explored, e) {
                    (None, _) | (_, Engine::Structural) => String::new(),
                    (Some(n), Engine::Ctl) => format!("  {n} markings"),
                    (Some(n), _) => format!("  {n} product states"),
                }
            ),
            (None, Some(why)) => format!("{:width$}  unknown  ({why})", a.id),
            (None, None) => format!("{:width$}  unknown", a.id),
        };
        notes.push(line);
        if with_witness && let Some(w) = &a.witness {
            let run = run_names(net, w);
            let shown = if run.is_empty() {
                "(the initial marking)".to_string()
            } else {
                run.join(" ")
            };
            match &a.cycle {
                None => notes.push(format!("{:width$}  witness: {shown}", "")),
                Some(cycle) => {
                    // An LTL lasso: the run, then the cycle forever (or the deadlock).
                    let cycle = run_names(net, cycle);
                    notes.push(format!("{:width$}  lasso: {shown}", ""));
                    notes.push(format!(
                        "{:width$}  then forever: {}",
                        "",
                        if cycle.is_empty() {
                            "(the deadlock it ends in)".to_string()
                        } else {
                            cycle.join(" ")
                        }
                    ));
                }
            }
        }
    }
    if answers
        .iter()
        .any(|a| matches!(a.unknown, Some(Unknown::Stopped(_))))
    {
        notes.push("a limit stopped the engines: the unknown properties are undecided".into());
    }
    Report {
        stats,
        notes,
        found: false,
        complete,
    }
}
