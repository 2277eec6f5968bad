#!/usr/bin/env bash
# Two builds of `unfold` side by side on the unfolding DPOR, in the same run:
#   1. runs that finish: for each net, the best user CPU time of three runs of each build, the
#      ratio new/base, and whether the answers (maximal configurations, events, cutoffs,
#      deadlocks) are identical;
#   2. event-heavy runs without cutoffs, stopped after the same work in both builds
#      (`--max-events 1000000`): events built per second of CPU time (user + system: page
#      faults are part of the cost of memory), bytes per event held by the event store, and
#      peak resident memory. Builds older than `--max-events` need HEAVY='--timeout 10s'.
#
# Usage: [HEAVY='unfold options'] tools/compare_udpor.sh BASE_BINARY [NEW_BINARY]
#   e.g. git worktree add /tmp/base OLD_COMMIT && (cd /tmp/base && cargo build --release)
#        tools/compare_udpor.sh /tmp/base/target/release/unfold
# NEW_BINARY defaults to this checkout's release build. Needs ../shared/nets, python3 and
# /usr/bin/time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nets="$root/../shared/nets"
base=${1:?usage: tools/compare_udpor.sh BASE_BINARY [NEW_BINARY]}
new=${2:-}
if [ -z "$new" ]; then
    (cd "$root" && cargo build --release --quiet)
    new="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/tools/gen_net.py" conflict 2000 --format pep -o "$tmp/conflict-2000.ll_net"
python3 "$root/tools/gen_net.py" pairs 16 --format pep -o "$tmp/pairs-16.ll_net"

# best_of BINARY ARGS...: "user_seconds answers" of the fastest of three runs.
best_of() {
    local bin=$1 best="" answers=""
    shift
    for _ in 1 2 3; do
        /usr/bin/time -f "%U" -o "$tmp/t" "$bin" "$@" --json "$tmp/j" -q --no-fail >/dev/null 2>&1 || true
        local t
        t=$(tail -1 "$tmp/t")
        answers=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("/".join(str(d[k]) for k in ("maximal_configurations","events","cutoffs","deadlocks")))' "$tmp/j")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done
    echo "$best $answers"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d)"
echo
echo "| input | options | answers (configurations/events/cutoffs/deadlocks) | base CPU (s) | new CPU (s) | new/base |"
echo "|---|---|---|---:|---:|---:|"
while read -r file opts; do
    [ -z "$file" ] && continue
    case $file in /*) path=$file ;; *) path="$nets/$file" ;; esac
    # shellcheck disable=SC2086
    read -r tb ab < <(best_of "$base" "$path" $opts)
    # shellcheck disable=SC2086
    read -r tn an < <(best_of "$new" "$path" $opts)
    same=$([ "$ab" = "$an" ] && echo "$an" || echo "DIFFER: base $ab, new $an")
    awk -v f="$(basename "$file")" -v o="$opts" -v s="$same" -v a="$tb" -v b="$tn" 'BEGIN {
        printf "| %s | %s | %s | %.2f | %.2f | %.2f |\n", f, o, s, a, b, (a > 0 ? b / a : 0) }'
done <<EOF
pnml/Peterson-PT-2.pnml --cutoffs
pnml/Dekker-PT-010.pnml --cutoffs
pnml/TokenRing-PT-005.pnml --cutoffs
pep/dijkstra_2.ll_net --cutoffs
pep/elevator_2.ll_net --cutoffs
pep/rw_1w2r.ll_net --cutoffs
pep/knuth_2.ll_net --cutoffs
pep/key_2.ll_net --cutoffs
pnml/Philosophers-PT-000010.pnml --cutoffs
pnml/Raft-PT-02.pnml --cutoffs
pep/key_3.sync.ll_net --cutoffs
pep/rw_1w2r.ll_net --cutoffs --order size
pep/knuth_2.ll_net --cutoffs --order size
$tmp/conflict-2000.ll_net
$tmp/pairs-16.ll_net
EOF

# heavy BINARY NET: "events events_per_cpu_second store_bytes_per_event peak_rss_MiB".
heavy_args=${HEAVY:---max-events 1000000 --timeout 60s}
heavy() {
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$1" "$2" $heavy_args --json "$tmp/j" -q --no-fail >/dev/null 2>&1 || true
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); u, s, m = open(sys.argv[2]).read().split()[-3:]
cpu = float(u) + float(s)
print(d["events"], round(d["events"] / cpu), round(d["store_bytes"] / max(1, d["events"])), round(int(m) / 1024))' "$tmp/j" "$tmp/t"
}

echo
echo "| input (no cutoffs, $heavy_args) | base events | base events/CPU s | base bytes/event | base peak RSS (MiB) | new events | new events/CPU s | new bytes/event | new peak RSS (MiB) | events/CPU s new/base |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for file in pnml/Dekker-PT-010.pnml pnml/Raft-PT-02.pnml pnml/TokenRing-PT-005.pnml pep/dijkstra_2.ll_net; do
    read -r eb rb bb mb < <(heavy "$base" "$nets/$file")
    read -r en rn bn mn < <(heavy "$new" "$nets/$file")
    awk -v f="$(basename "$file")" -v eb="$eb" -v rb="$rb" -v bb="$bb" -v mb="$mb" -v en="$en" -v rn="$rn" -v bn="$bn" -v mn="$mn" 'BEGIN {
        printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %.2f |\n", f, eb, rb, bb, mb, en, rn, bn, mn, rn / rb }'
done
