#!/usr/bin/env bash
# Times the prefix engine (check::prefix_sat: reachability targets and place bounds decided by
# SAT on the complete prefix) on the large PEP nets of ../shared/nets whose state spaces explicit
# reachability cannot finish, and prints a Markdown table: per net the prefix's size and build
# time, the encoding's build time, random targets (EF of conjunctions of token counts and
# fireability: answers, median and largest time), the deadlock target, bounds of random sets
# of places and the bound of all places. Every call gets 30 s.
#
# Usage: tools/bench_prefix_sat.sh [NETS] [FORMULAS]
#   NETS: PEP net names (default: buf100 fifo20 rrr30-1 byzagr4_2a byzagr4_0b rw_12 furnace_3
#   dpd_7.sync key_3.sync q_1.sync); FORMULAS: random targets per net (default 100).
# Builds the test in release mode (fat LTO: the first build takes minutes).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -n "${1:-}" ] && export BENCH_NETS="$1"
[ -n "${2:-}" ] && export BENCH_FORMULAS="$2"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! cargo test --release --quiet --test integration -- --ignored --exact \
    check_prefix_sat::bench_large_pep_nets --nocapture >"$out" 2>&1; then
    cat "$out" >&2
    exit 1
fi
grep '^|' "$out"
