#!/usr/bin/env bash
# Speed of the unfolding DPOR on this machine, as Markdown tables:
#   1. scalable families from tools/gen_net.py without cutoffs (pairs: 2^n maximal
#      configurations of depth n; conflict: n configurations of depth 1 over n + 1 places;
#      chain: one configuration of depth n over n + 1 places): events/s and maximal
#      configurations/s of the whole run and of the exploration alone (reading the net and
#      building the system left out), bytes per event, peak bytes held (store, log and state
#      table), and time per maximal configuration as n grows;
#   2. shared nets with cutoffs in the ERV and size orders, without cutoffs (stopped after
#      10 s on cyclic nets), and with the cache of events off (`--cache off`: every event
#      outside U dropped at each Remove): time, maximal configurations, events, creations,
#      evictions, cutoffs, deadlocks, peak memory.
# Figures are runs of `unfold ... --json - -q --no-fail` (time_s includes parsing): for the families
# the best of three, for the shared nets single runs.
#
# Usage: tools/bench_udpor.sh   (needs python3 and ../shared/nets beside the checkout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nets="$root/../shared/nets"
cd "$root"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(" ".join(str(d.get(k, "")) for k in sys.argv[1:]))' "$@"; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| family | n | maximal configurations | events | time (s) | exploration (s) | events/s | events/s of exploration | configurations/s | µs per configuration | bytes/event | peak held |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for spec in "pairs 10" "pairs 14" "pairs 16" "pairs 18" "conflict 1000" "conflict 4000" "conflict 16000" \
    "conflict 64000" "conflict 256000" "chain 10000" "chain 30000" "chain 100000" "chain 1000000"; do
    set -- $spec
    f="$tmp/$1-$2.ll_net"
    python3 tools/gen_net.py "$1" "$2" --format pep -o "$f"
    # Best of three runs (least exploration time): single runs move by a quarter here.
    best=""
    for _ in 1 2 3; do
        run=$("$bin" "$f" --max-depth 2000000 --json - -q --no-fail |
            json maximal_configurations events time_s explore_time_s store_bytes peak_bytes)
        if [ -z "$best" ] || awk -v a="$(cut -d' ' -f4 <<<"$run")" -v b="$(cut -d' ' -f4 <<<"$best")" \
            'BEGIN { exit !(a < b) }'; then
            best=$run
        fi
    done
    read -r mc ev t x bytes peak <<<"$best"
    awk -v fam="$1" -v n="$2" -v mc="$mc" -v ev="$ev" -v t="$t" -v x="$x" -v b="$bytes" -v p="$peak" 'BEGIN {
        printf "| %s | %d | %d | %d | %.3f | %.3f | %.0f | %.0f | %.0f | %.2f | %.0f | %.1f MiB |\n", fam, n, mc, ev, t, x, ev / t, ev / x, mc / t, t / mc * 1e6, b / ev, p / 1048576 }'
done

echo
echo "| net | cutoffs | cache | complete | maximal configurations | events | creations | evictions | cutoffs | deadlocks | time (s) | peak memory |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for net in pnml/Philosophers-PT-000005.pnml pnml/Philosophers-PT-000010.pnml pnml/Peterson-PT-2.pnml \
    pnml/Dekker-PT-010.pnml pnml/TokenRing-PT-005.pnml pnml/Raft-PT-02.pnml pep/dijkstra_2.ll_net \
    pep/elevator_2.ll_net pep/elevator_3.ll_net pep/key_2.ll_net pep/key_3.sync.ll_net pep/knuth_2.ll_net \
    pep/rw_1w2r.ll_net pep/furnace_3.ll_net pep/byzagr4_2a.ll_net; do
    [ -f "$nets/$net" ] || continue
    for run in "erv on" "size on" "erv off" "none on"; do
        set -- $run
        if [ "$1" = none ]; then opts=(); else opts=(--cutoffs --order "$1"); fi
        read -r c mc ev cr evi cut dl t peak < <("$bin" "$nets/$net" "${opts[@]}" --cache "$2" --timeout 10s \
            --json - -q --no-fail | json complete maximal_configurations events event_creations cache_evictions cutoffs deadlocks time_s peak_bytes)
        awk -v net="$net" -v o="$1" -v ca="$2" -v c="$c" -v mc="$mc" -v ev="$ev" -v cr="$cr" -v evi="$evi" -v cut="$cut" -v dl="$dl" -v t="$t" -v p="$peak" 'BEGIN {
            printf "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %.3f | %.1f MiB |\n", net, o, ca, c, mc, ev, cr, evi, cut, dl, t, p / 1048576 }'
    done
done
