#!/usr/bin/env bash
# Sizes and speed of the contextual unfolding (`unfold prefix` on nets with read arcs, release
# build) as a Markdown table, pairwise with Cunf where one is given:
#   - the read-arc nets of ../shared/nets/pep/cont;
#   - the contextual version of every plain net of ../shared/nets/pep, made with
#     `unfold convert --read-arcs` (every pair t→p, p→t becomes a read arc, as Cunf's
#     plain2cont.pl does); nets that get no read arc are left out.
# CUNF: a Cunf binary (the rev. 41 "eager" branch, whose figures ORACLES.tsv holds, prints its
# statistics as "hist<TAB>N" lines; run as `cunf NET -m OUT.dot`). Without it only unfold runs.
#
# Time is CPU time (user + sys, getrusage) of the whole process, parsing included, the best of
# RUNS rounds, each tool run right after the other on the same net. "sizes" says whether Cunf's
# histories/events/conditions/cutoffs equal unfold's; the ratio is unfold's time over Cunf's
# (below 1: unfold is faster). The issue's aim: identical sizes, and at most 0.5 times Cunf's
# time on every net with more than 1 000 events.
#
# Usage: tools/bench_contextual.sh [RUNS]    (env: CUNF, TIMEOUT=300)
set -euo pipefail
runs=${1:-3}
timeout_s=${TIMEOUT:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
shared="$root/../shared/nets/pep"
cd "$root"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
cunf=${CUNF:-}
if [ -n "$cunf" ] && [ ! -x "$cunf" ]; then
    echo "CUNF=$cunf is not executable" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/nets"
for net in "$shared"/cont/*.ll_net; do
    cp "$net" "$tmp/nets/cont-$(basename "$net")"
done
for net in "$shared"/*.ll_net; do
    out="$tmp/nets/$(basename "$net")"
    "$bin" convert --read-arcs "$net" "$out"
    grep -q '^RA' "$out" || rm "$out"
done

# Runs a command (output to $tmp/out) under TIMEOUT; prints "status cpu_seconds".
timed() {
    python3 -c '
import resource, subprocess, sys
limit, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "wb") as f:
    try:
        st = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=limit).returncode
    except subprocess.TimeoutExpired:
        st = "timeout"
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(st, "%.4f" % (r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime))
' "$timeout_s" "$tmp/out" "$@"
}
sizes_unfold() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["hist"], d["events"], d["cond"], d["cutoffs"])' "$tmp/out"
}
sizes_cunf() {
    awk -F'\t' '$1=="hist"{h=$2} $1=="events"{e=$2} $1=="cond"{c=$2} $1=="cutoffs"{k=$2} END {print h+0, e+0, c+0, k+0}' "$tmp/out"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "Tools: unfold=$bin cunf=${cunf:-absent}; best of $runs rounds, CPU seconds (user+sys)"
echo
if [ -n "$cunf" ]; then
    echo "| net | histories | events | conditions | cutoffs | unfold (s) | cunf (s) | unfold/cunf | sizes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
else
    echo "| net | histories | events | conditions | cutoffs | unfold (s) |"
    echo "|---|---:|---:|---:|---:|---:|"
fi
for net in "$tmp"/nets/*.ll_net; do
    name=$(basename "$net" .ll_net)
    best_u=- best_c=- su="" sc="" st_u=0 st_c=0
    for ((r = 0; r < runs; r++)); do
        if [ "$st_u" = 0 ]; then
            read -r st_u secs < <(timed "$bin" prefix -q --json - "$net")
            if [ "$st_u" = 0 ]; then
                su=$(sizes_unfold)
                if [ "$best_u" = - ] || awk -v a="$secs" -v b="$best_u" 'BEGIN{exit !(a<b)}'; then best_u=$secs; fi
            fi
        fi
        if [ -n "$cunf" ] && [ "$st_c" = 0 ]; then
            read -r st_c secs < <(timed "$cunf" "$net" -m "$tmp/cunf.dot")
            if [ "$st_c" = 0 ]; then
                sc=$(sizes_cunf)
                if [ "$best_c" = - ] || awk -v a="$secs" -v b="$best_c" 'BEGIN{exit !(a<b)}'; then best_c=$secs; fi
            fi
        fi
    done
    if [ "$st_u" != 0 ]; then
        echo "| $name | unfold: $st_u | | | | |"
        continue
    fi
    read -r h e c k <<<"$su"
    if [ -n "$cunf" ]; then
        if [ "$st_c" != 0 ]; then
            echo "| $name | $h | $e | $c | $k | $best_u | cunf: $st_c | | |"
            continue
        fi
        same=$([ "$su" = "$sc" ] && echo equal || echo "cunf: $sc")
        ratio=$(awk -v a="$best_u" -v b="$best_c" 'BEGIN{ if (b > 0.0005) printf "%.2f", a / b; else print "-" }')
        echo "| $name | $h | $e | $c | $k | $best_u | $best_c | $ratio | $same |"
    else
        echo "| $name | $h | $e | $c | $k | $best_u |"
    fi
done
