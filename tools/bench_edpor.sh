#!/usr/bin/env bash
# Event-DPOR against the unfolding DPOR (handlers serialised, no cutoffs) on the scalable
# program families of tools/gen_tsys.py, as a Markdown table: executions (maximal
# configurations for the unfolding DPOR), time, executions per second and time per execution.
# A run stopped by the time limit shows its count so far with ">" and the limit as its time.
# Figures are single runs of `unfold ... --json - -q --no-fail` (time_s includes parsing).
#
# Usage: tools/bench_edpor.sh [LIMIT]   (LIMIT per run, default 60s; needs python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
limit=${1:-60s}
cd "$root"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(" ".join(str(d.get(k, "")) for k in sys.argv[1:]))' "$@"; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?'); limit $limit per run"
echo
echo "| family | n | k | Event-DPOR executions | time (s) | executions/s | µs per execution | unfolding DPOR configurations | time (s) | configurations/s | µs per configuration |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# One cell group: count (">" when stopped), time, rate, time per unit.
cells() {
    awk -v c="$1" -v n="$2" -v t="$3" 'BEGIN {
        mark = (c == "True") ? "" : "> ";
        if (n > 0 && t > 0) printf "%s%d | %.3f | %.0f | %.1f", mark, n, t, n / t, t / n * 1e6;
        else printf "%s%d | %.3f | - | -", mark, n, t }'
}
for spec in "posts 6 1" "posts 8 1" "posts 10 1" "posts 8 2" "posts 10 3" "posts 12 4" \
    "readers 8 -" "readers 12 -" "readers 14 -" \
    "readers-msg 5 -" "readers-msg 7 -" "readers-msg 9 -" "readers-msg 12 -" \
    "counter 5 -" "counter 6 -" "counter 7 -" "counter 8 -"; do
    set -- $spec
    f="$tmp/$1-$2-$3.tsys"
    if [ "$3" = "-" ]; then
        python3 tools/gen_tsys.py "$1" "$2" -o "$f"
    else
        python3 tools/gen_tsys.py "$1" "$2" "$3" -o "$f"
    fi
    read -r ec en et < <("$bin" edpor "$f" --timeout "$limit" --json - -q --no-fail | json complete executions time_s)
    read -r uc un ut < <("$bin" "$f" --timeout "$limit" --json - -q --no-fail | json complete maximal_configurations time_s)
    echo "| $1 | $2 | $3 | $(cells "$ec" "$en" "$et") | $(cells "$uc" "$un" "$ut") |"
done
