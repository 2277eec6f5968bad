//! `info`: a net's sizes, arcs, weights and structural class.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Report, head, tail};
use crate::formats::Format;
use crate::model::net::Net;
use crate::report::stats::Stats;
use crate::structural::summary::Summary;

/// The description of `net`, read from `file` in `format`, with its structural `summary`,
/// `elapsed` after the run started.
pub fn report(
    net: &Net,
    format: Format,
    file: &Path,
    summary: &Summary,
    elapsed: Duration,
) -> Report {
    let s = net.structure();
    let mut stats = Stats::new();
    head(&mut stats, file, "info", true);
    stats.add("format", "format", format.to_string());
    stats.add("name", "name", net.name.clone());
    stats.add("places", "places", net.places.len());
    stats.add("transitions", "transitions", net.transitions.len());
    stats.add("arcs", "arcs", net.arc_count());
    stats.add("read_arcs", "read arcs", net.read_arc_count());
    stats.add("max_weight", "largest arc weight", net.max_weight());
    stats.add("weighted", "weights above 1", net.max_weight() > 1);
    stats.add("initial_tokens", "initial tokens", net.initial_tokens());
    stats.add(
        "nupn_safe",
        "NUPN safe flag",
        net.nupn
            .as_ref()
            .and_then(|n| n.safe)
            .map_or(Value::Null, Value::Bool),
    );
    if let Some(f) = &net.folding {
        // The net is the unfolding of a coloured net: its own sizes and what unfolding did.
        let (c, u) = (&f.coloured, &f.stats);
        stats.add("coloured_places", "coloured places", c.places);
        stats.add(
            "coloured_transitions",
            "coloured transitions",
            c.transitions,
        );
        stats.add("coloured_arcs", "coloured arcs", c.arcs);
        stats.add("coloured_variables", "coloured variables", c.variables);
        stats.add(
            "unfolded_places",
            "places before dead ones dropped",
            u.places_before,
        );
        stats.add(
            "unfolded_transitions",
            "transitions before dead ones dropped",
            u.transitions_before,
        );
        stats.add("bindings_tried", "bindings tried", u.bindings_tried);
        stats.add("bindings_kept", "bindings kept", u.bindings_kept);
        stats.add("unfolding_rounds", "unfolding rounds", u.rounds);
        stats.add(
            "unfolding_seconds",
            "unfolding time (s)",
            u.micros as f64 / 1e6,
        );
    }
    stats.add("ordinary", "ordinary", s.ordinary);
    stats.add("free_choice", "free-choice", s.free_choice);
    stats.add("state_machine", "state machine", s.state_machine);
    stats.add("marked_graph", "marked graph", s.marked_graph);
    structural(&mut stats, summary);
    tail(&mut stats, elapsed);
    Report {
        stats,
        notes: Vec::new(),
        found: false,
        complete: true,
    }
}

/// The fields of the structural summary.
fn structural(stats: &mut Stats, s: &Summary) {
    stats.add("p_semiflows", "P-semiflows", s.p_semiflows);
    stats.add(
        "p_semiflows_complete",
        "P-semiflows all found",
        s.p_complete,
    );
    stats.add(
        "places_covered",
        "places covered by P-semiflows",
        s.places_covered,
    );
    stats.add(
        "structurally_bounded",
        "structurally bounded (P-semiflows)",
        s.structurally_bounded,
    );
    stats.add("bounded", "bounded (invariants)", s.bounded);
    stats.add("safe_certificate", "1-safe (invariants)", s.safe);
    stats.add(
        "max_place_bound",
        "largest place bound",
        s.max_bound.map_or(Value::Null, Value::from),
    );
    stats.add("dead_transitions", "dead transitions", s.dead_transitions);
    stats.add("t_semiflows", "T-semiflows", s.t_semiflows);
    stats.add(
        "t_semiflows_complete",
        "T-semiflows all found",
        s.t_complete,
    );
    stats.add(
        "transitions_covered",
        "transitions covered by T-semiflows",
        s.transitions_covered,
    );
    stats.add(
        "deadlock_free_by_traps",
        "deadlock-free (siphons and traps)",
        match s.deadlock_free_by_traps {
            Some(true) => "yes",
            _ => "unknown",
        },
    );
    stats.add(
        "deadlock_free_by_equation",
        "deadlock-free (traps and state equation)",
        match s.deadlock_free_by_equation {
            Some(true) => "yes",
            _ => "unknown",
        },
    );
    stats.add(
        "structural_s",
        "structural analysis (s)",
        s.time.as_secs_f64(),
    );
    stats.add(
        "structural_facts_s",
        "  P-semiflows, bounds, dead transitions (s)",
        s.parts.facts.as_secs_f64(),
    );
    stats.add(
        "structural_t_semiflows_s",
        "  T-semiflows (s)",
        s.parts.t_semiflows.as_secs_f64(),
    );
    stats.add(
        "structural_traps_s",
        "  siphons and traps (s)",
        s.parts.traps.as_secs_f64(),
    );
    stats.add(
        "structural_equation_s",
        "  traps and state equation (s)",
        s.parts.equation.as_secs_f64(),
    );
}
