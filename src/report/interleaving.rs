//! Witness executions of programs as readable interleavings: one line per step (its number,
//! the thread or message that takes it, the statement), the step that fails an assertion
//! marked, then the same steps grouped thread by thread and message by message, and the final
//! state.

use std::fmt::Write as _;

use crate::model::program_system::{InstanceKind, ProgramSystem, Status};
use crate::system::{Overflow, System, Transition};

/// The final state of `run` from the initial state.
pub fn final_state(sys: &ProgramSystem, run: &[Transition]) -> Result<Vec<u64>, Overflow> {
    let mut state = vec![0u64; sys.state_words()];
    let mut next = state.clone();
    sys.initial_state(&mut state);
    for &t in run {
        sys.fire(&state, t, &mut next)?;
        std::mem::swap(&mut state, &mut next);
    }
    Ok(state)
}

/// The name of an instance as shown in witnesses: a message with its handler.
fn process_name(sys: &ProgramSystem, i: u32) -> String {
    let inst = &sys.instances()[i as usize];
    match inst.kind {
        InstanceKind::Message { handler, .. } => {
            format!("{} (on {})", inst.name, sys.handler_name(handler))
        }
        InstanceKind::Thread(_) => inst.name.clone(),
    }
}

/// Renders `run`, an execution of `sys`, under the heading `title`.
pub fn render(sys: &ProgramSystem, title: &str, run: &[Transition]) -> Result<String, Overflow> {
    let state = final_state(sys, run)?;
    // The last step of each failed instance is the one that failed.
    let mut failing = vec![false; run.len()];
    for (i, _) in sys.instances().iter().enumerate() {
        if sys.status(&state, i as u32) == Status::Failed
            && let Some(p) = run
                .iter()
                .rposition(|&t| sys.transition_instance(t) == i as u32)
        {
            failing[p] = true;
        }
    }
    let names: Vec<String> = (0..sys.instances().len() as u32)
        .map(|i| process_name(sys, i))
        .collect();
    let width = run
        .iter()
        .map(|&t| names[sys.transition_instance(t) as usize].len())
        .max()
        .unwrap_or(0)
        .max("process".len());
    let mut s = String::new();
    let _ = writeln!(s, "{title} ({} steps):", run.len());
    let _ = writeln!(s, "  {:>4}  {:<width$}  statement", "step", "process");
    for (n, &t) in run.iter().enumerate() {
        let mark = if failing[n] { "   <- fails" } else { "" };
        let _ = writeln!(
            s,
            "  {:>4}  {:<width$}  {}{mark}",
            n + 1,
            names[sys.transition_instance(t) as usize],
            sys.statement(t)
        );
    }
    let _ = writeln!(s, "  by thread and message:");
    for (i, name) in names.iter().enumerate() {
        let steps: Vec<String> = run
            .iter()
            .enumerate()
            .filter(|&(_, &t)| sys.transition_instance(t) == i as u32)
            .map(|(n, &t)| format!("{}:{}", n + 1, sys.statement(t)))
            .collect();
        let status = sys.status(&state, i as u32);
        if steps.is_empty() && status == Status::Unposted {
            continue;
        }
        let end = match status {
            Status::Done => "done".to_string(),
            Status::Failed => "assertion failed".to_string(),
            Status::Blocked => "stopped by an assumption".to_string(),
            Status::Pending => "posted, never run".to_string(),
            Status::Unposted => "never posted".to_string(),
            Status::Running => match sys.next_statement(&state, i as u32) {
                Some(stmt) => format!("stuck at `{stmt}`"),
                None => "stuck".to_string(),
            },
        };
        let _ = writeln!(
            s,
            "    {:<width$}  {}  [{end}]",
            name,
            if steps.is_empty() {
                "-".to_string()
            } else {
                steps.join("; ")
            }
        );
    }
    let _ = write!(s, "  final state: {}", sys.describe_state(&state));
    Ok(s)
}
