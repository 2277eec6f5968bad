#!/usr/bin/env bash
# Builds the release binary and prints a Markdown table of its speed on this machine:
#   - parse throughput (MB/s) of PNML and PEP, dining philosophers n=1000 and n=10000 from
#     tools/gen_net.py: `unfold info --json -`, median of RUNS runs of its `time_s` (read +
#     parse + the statistics of `info`, without process start-up);
#   - reachability (`unfold reach FILE --json - -q`) on shared nets: states/s and edges/s from
#     its `states`, `edges` and `time_s` (median of RUNS runs; time_s includes parsing).
#
# Usage: tools/bench.sh [RUNS]   (default 5; needs python3 and ../shared/nets beside the
# checkout). Set CARGO_TARGET_DIR to build elsewhere.
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
nets="$root/../shared/nets"
cd "$root"

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Field $2 of the JSON object in $1.
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| input | size | runs | median time (s) | throughput |"
echo "|---|---:|---:|---:|---:|"
for n in 1000 10000; do
    for format in pnml pep; do
        f="$tmp/philosophers-$n.$format"
        python3 tools/gen_net.py philosophers "$n" --format "$format" -o "$f"
        bytes=$(stat -c %s "$f")
        t=$(for _ in $(seq "$runs"); do field "$("$bin" info "$f" --json -)" time_s; done | median)
        awk -v n="$n" -v fmt="$format" -v b="$bytes" -v t="$t" -v r="$runs" 'BEGIN {
            printf "| parse %s, philosophers n=%d | %.2f MB | %d | %.4f | %.1f MB/s |\n", fmt, n, b / 1e6, r, t, b / 1e6 / t }'
    done
done

echo
echo "| net | states | edges | runs | median time (s) | states/s | edges/s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for net in pnml/Philosophers-PT-000010.pnml pnml/Dekker-PT-015.pnml pnml/Peterson-PT-2.pnml \
    pnml/RefineWMG-PT-002002.pnml pnml/Kanban-PT-00005.pnml pep/dpd_7.sync.ll_net \
    pep/dph_7.dlmcs.ll_net pep/q_1.ll_net pep/furnace_3.ll_net; do
    [ -f "$nets/$net" ] || { echo "| $net | missing | | | | | |"; continue; }
    times=()
    for _ in $(seq "$runs"); do
        json=$("$bin" reach "$nets/$net" --json - -q --no-fail)
        times+=("$(field "$json" time_s)")
    done
    states=$(field "$json" states)
    edges=$(field "$json" edges)
    t=$(printf '%s\n' "${times[@]}" | median)
    awk -v net="$net" -v s="$states" -v e="$edges" -v t="$t" -v r="$runs" 'BEGIN {
        printf "| %s | %d | %d | %d | %.4f | %.0f | %.0f |\n", net, s, e, r, t, s / t, e / t }'
done
