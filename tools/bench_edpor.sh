#!/usr/bin/env bash
# Event-DPOR against the unfolding DPOR (handlers serialised, no cutoffs) on the scalable
# program families of tools/gen_tsys.py, side by side in one run, as a Markdown table:
# executions (maximal configurations for the unfolding DPOR), time, mean execution length,
# executions per second and time per execution, and the ratio of the two times per unit.
# The lock-protected counter (`counter N`, N! executions, the Pi(N) family of the QPOR paper)
# runs for N = 4…10. A run stopped by the time limit shows its count so far with ">" and the
# limit as its time. Figures are single runs of `unfold ... --json - -q --no-fail` (time_s
# includes parsing).
#
# Usage: tools/bench_edpor.sh [LIMIT] [FAMILY...]   (LIMIT per run, default 60s; FAMILY
#        restricts the table to those families: counter posts readers readers-msg; needs python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
limit=${1:-60s}
shift || true
families=" ${*:-counter posts readers readers-msg} "
cd "$root"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(" ".join(str(d.get(k, "")) for k in sys.argv[1:]))' "$@"; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?'); limit $limit per run"
echo
echo "| family | n | k | Event-DPOR executions | time (s) | mean length | executions/s | µs per execution | unfolding DPOR configurations | time (s) | configurations/s | µs per configuration | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# One cell group: count (">" when stopped), time, mean length (when given), rate, time per
# unit.
cells() {
    awk -v c="$1" -v n="$2" -v t="$3" -v l="${4-}" 'BEGIN {
        mark = (c == "True") ? "" : "> ";
        len = (l == "") ? "" : sprintf(" %.1f |", l);
        if (n > 0 && t > 0) printf "%s%d | %.3f |%s %.0f | %.1f", mark, n, t, len, n / t, t / n * 1e6;
        else printf "%s%d | %.3f |%s - | -", mark, n, t, len }'
}
# Event-DPOR's time per execution over the unfolding DPOR's per configuration.
ratio() {
    awk -v a="$1" -v b="$2" -v s="$3" -v t="$4" 'BEGIN {
        if (a > 0 && b > 0 && s > 0 && t > 0) printf "%.2f", (s / a) / (t / b); else printf "-" }'
}
for spec in "counter 4 -" "counter 5 -" "counter 6 -" "counter 7 -" "counter 8 -" \
    "counter 9 -" "counter 10 -" \
    "posts 6 1" "posts 8 1" "posts 10 1" "posts 8 2" "posts 10 3" "posts 12 4" \
    "readers 8 -" "readers 12 -" "readers 14 -" \
    "readers-msg 5 -" "readers-msg 7 -" "readers-msg 9 -" "readers-msg 12 -"; do
    set -- $spec
    case "$families" in *" $1 "*) ;; *) continue ;; esac
    f="$tmp/$1-$2-$3.tsys"
    if [ "$3" = "-" ]; then
        python3 tools/gen_tsys.py "$1" "$2" -o "$f"
    else
        python3 tools/gen_tsys.py "$1" "$2" "$3" -o "$f"
    fi
    read -r ec en eb et el < <("$bin" edpor "$f" --timeout "$limit" --json - -q --no-fail |
        json complete executions blocked time_s mean_length)
    read -r uc un ut < <("$bin" "$f" --timeout "$limit" --json - -q --no-fail |
        json complete maximal_configurations time_s)
    runs=$((en + eb))
    echo "| $1 | $2 | $3 | $(cells "$ec" "$en" "$et" "$el") | $(cells "$uc" "$un" "$ut") | $(ratio "$runs" "$un" "$et" "$ut") |"
done
