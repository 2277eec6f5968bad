#!/bin/sh
# LTL-X on the net unfolding against the explicit LTL checker with stubborn sets, the same
# limit per formula and engine, in one run: the LTL formulas of every P/T instance of
# ../shared/mcc (answers checked against oracle.tsv) and generated formulas on the PEP nets of
# ../shared/nets (the two engines must agree); the explicit checker only on the formulas the
# unfolding takes (no next, a safe net). Prints one line per formula and the totals.
#
# Usage: tools/bench_ltl_unfolding.sh [SECONDS per formula and engine, default 5]
set -eu
cd "$(dirname "$0")/.."
LTLX_SECS="${1:-5}" exec cargo test --release --test integration ltl_unfolding::measure -- --ignored --nocapture
