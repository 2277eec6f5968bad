#!/usr/bin/env bash
# Times the engines of `unfold check` that decide reachability targets — the prefix by SAT
# (check::prefix_sat), the unfolding DPOR with cutoffs (check::dpor) and the explicit pass
# (check::explicit) — on random EF targets over the large PEP nets of ../shared/nets whose
# state spaces explicit reachability cannot finish, checks that every answer two engines give
# agrees, and prints a Markdown table: per net and engine the answers (found / absent /
# unknown) and the time per formula. Each engine gets the whole set at once within 30 s; the
# DPOR also one target at a time within 3 s each.
#
# Usage: tools/bench_check_engines.sh [NETS] [FORMULAS]
#   NETS: PEP net names (default: buf100 fifo20 rrr30-1 byzagr4_2a byzagr4_0b);
#   FORMULAS: random targets per net (default 10).
# Builds the test in release mode (fat LTO: the first build takes minutes).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -n "${1:-}" ] && export BENCH_NETS="$1"
[ -n "${2:-}" ] && export BENCH_FORMULAS="$2"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! cargo test --release --quiet --test integration -- --ignored --exact \
    check_dpor::bench_engines_on_large_pep_nets --nocapture >"$out" 2>&1; then
    cat "$out" >&2
    exit 1
fi
grep '^|' "$out"
