#!/usr/bin/env bash
# The prefix engine on nets with read arcs, contextual prefix against self-loops: on the nets
# of ../shared/nets/pep/cont and on the contextual versions (self-loops made read arcs, as
# `unfold convert --read-arcs` does) of larger PEP nets, random targets (EF of conjunctions of
# token counts and fireability), the deadlock target and bounds of random sets of places,
# answered by both engines (and checked against each other and against `reach` where it
# finishes), as a Markdown table: sizes, the time of each engine (prefix, encoding and every
# call together, the prefix alone in parentheses) and their ratio, contextual over
# self-loops. Every call gets 30 s.
#
# Usage: tools/bench_prefix_contextual.sh [NETS] [FORMULAS]
#   NETS: names under pep/ (`cont/mutual` for a read-arc net; default: the pep/cont nets with
#   more than 3 events, elevator_3 rw_1w2r rw_2w1r key_3.sync q_1 q_1.sync dpd_7.sync
#   furnace_3 rw_12); FORMULAS: random targets per net (default 50).
# Builds the test in release mode (fat LTO: the first build takes minutes).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -n "${1:-}" ] && export BENCH_NETS="$1"
[ -n "${2:-}" ] && export BENCH_FORMULAS="$2"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! cargo test --release --quiet --test integration -- --ignored --exact \
    check_prefix_sat::bench_contextual_against_self_loops --nocapture >"$out" 2>&1; then
    cat "$out" >&2
    exit 1
fi
grep '^|' "$out"
