#!/usr/bin/env bash
# Speed of `unfold prefix` (release build, default Mole order) on every plain PEP net of
# ../shared/nets/pep, as a Markdown table, side by side with the peer unfolders found on the
# machine, each run on the same net right after unfold in the same round (pairwise):
#   Cunf: $CUNF, else `cunf` on PATH; run as `cunf -c mole -i NET` (its statistics give the sizes);
#   Mole: $MOLE, else `mole` on PATH; run as `mole NET -m OUT.mci` (sizes read from the .mci;
#         Mole always writes its prefix, unfold and Cunf here do not);
#   BASE: another `unfold` binary (e.g. an older build) to compare with, when set.
# Set CUNF=none or MOLE=none to leave a peer out. The read-arc nets of pep/cont are left out
# (Cunf's contextual unfolding and a plain unfolder build different prefixes for them).
#
# Time is CPU time (user + sys, getrusage) of the whole process, parsing included, the best of
# RUNS rounds; on a loaded machine CPU time is steadier than wall time. A ratio column is
# unfold's time over the other tool's (below 1: unfold is faster); "sizes" says whether that
# tool's events/conditions/cutoffs equal unfold's. "aim" (nets above 10 000 events, with a peer):
# unfold's time at most 0.8x that of the faster peer. Nets whose prefix has fewer than
# MIN_EVENTS events are left out. A tool that fails or exceeds TIMEOUT seconds shows its status.
#
# Usage: tools/bench_prefix.sh [RUNS]    (env: CUNF, MOLE, BASE, TIMEOUT=300, MIN_EVENTS=0)
#        tools/bench_prefix.sh scale [RUNS] (env: SIZES="10000 100000 1000000", BASE)
# Needs python3 and ../shared/nets beside the checkout.
#
# `scale`: generated chains (one token through N transitions, tools/gen_net.py chain) and rings
# (the same token on a cycle of N places: N events, the last a cutoff) for each N of SIZES, as
# a table of CPU seconds and microseconds per event; a linear construction keeps that last
# column flat. BASE, when set, is timed beside (its column left empty past TIMEOUT).
set -euo pipefail
scale=false
if [ "${1:-}" = scale ]; then
    scale=true
    shift
fi
runs=${1:-3}
timeout_s=${TIMEOUT:-300}
min_events=${MIN_EVENTS:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
nets="$root/../shared/nets/pep"
cd "$root"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$root/target}/release/unfold"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

peer() { # NAME VALUE -> the executable, or nothing
    local v=$2
    if [ "$v" = none ]; then return; fi
    if [ -n "$v" ]; then
        if [ -x "$v" ]; then echo "$v"; else echo "$1=$v is not executable" >&2; exit 2; fi
        return
    fi
    command -v "$1" || true
}
cunf=$(peer cunf "${CUNF:-}")
mole=$(peer mole "${MOLE:-}")
base=$(peer "" "${BASE:-none}")

# Runs a command (output to $tmp/out) under TIMEOUT; prints "status cpu_seconds", the child's
# CPU time (user + sys) from getrusage, finer than /usr/bin/time's 10 ms.
timed() {
    python3 -c '
import resource, subprocess, sys
limit, out, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # python3 may be a shim with children
with open(out, "wb") as f:
    try:
        st = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=limit).returncode
    except subprocess.TimeoutExpired:
        st = "timeout"
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(st, "%.4f" % (r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime))
' "$timeout_s" "$tmp/out" "$@"
}

# Each tool: how to run it on $net, and how to read "events conditions cutoffs" afterwards.
run_unfold() { timed "$bin" prefix -q --json - "$net"; }
run_base() { timed "$base" prefix -q --json - "$net"; }
run_cunf() { timed "$cunf" -c mole -i "$net"; }
run_mole() { timed "$mole" "$net" -m "$tmp/mole.mci"; }
sizes_unfold() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["events"], d["conditions"], d["cutoffs"])' "$tmp/out"
}
sizes_base() { sizes_unfold; }
sizes_cunf() {
    awk -F: '/^events / {e=$2} /^conditions / {c=$2} /^cutoffs / {k=$2} END {print e+0, c+0, k+0}' "$tmp/out"
}
sizes_mole() { # .mci: #conditions #events, events, condition lists (0-ended), cutoff pairs
    python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
w = struct.unpack("<%di" % (len(b) // 4), b[:len(b) // 4 * 4])
nco, nev = w[0], w[1]
i = 2 + nev
for _ in range(nco):
    i += 2
    while w[i]: i += 1
    i += 1
cut = 0
while w[i]:
    cut += 1; i += 2
print(nev, nco, cut)
' "$tmp/mole.mci"
}

machine() { # the line saying where and when the table was made
    local cpu
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
}

if $scale; then
    ring() { # N -> a PEP net: one token on a cycle of N places
        python3 -c '
import sys
n = int(sys.argv[1])
w = sys.stdout.write
w("PEP\nPTNet\nFORMAT_N2\nPL\n")
for i in range(n):
    w("%d\"s_%d\"%s\n" % (i + 1, i, "M1" if i == 0 else ""))
w("TR\n")
for i in range(n):
    w("%d\"t_%d\"\n" % (i + 1, i))
w("TP\n")
for i in range(n):
    w("%d<%d\n" % (i + 1, (i + 1) % n + 1))
w("PT\n")
for i in range(n):
    w("%d>%d\n" % (i + 1, i + 1))
' "$1"
    }
    machine
    echo "unfold prefix, best of $runs rounds, CPU seconds (user+sys), parsing included"
    echo
    head="| net | N | events | unfold (s) | µs/event |"
    rule="|---|---:|---:|---:|---:|"
    if [ -n "$base" ]; then
        head="$head base (s) | base µs/event |"
        rule="$rule---:|---:|"
    fi
    echo "$head"
    echo "$rule"
    for family in chain ring; do
        for n in ${SIZES:-10000 30000 100000 300000 1000000}; do
            net="$tmp/$family-$n.ll_net"
            if [ $family = chain ]; then
                python3 tools/gen_net.py chain "$n" --format pep -o "$net"
            else
                ring "$n" >"$net"
            fi
            row=""
            for t in unfold base; do
                [ $t = base ] && [ -z "$base" ] && continue
                best=-
                for ((r = 0; r < runs; r++)); do
                    read -r st secs < <("run_$t")
                    [ "$st" = 0 ] || { best=$st; break; }
                    ev=$(sizes_unfold | cut -d' ' -f1)
                    if [ "$best" = - ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
                        best=$secs
                    fi
                done
                if [ $t = unfold ]; then row="| $family | $n | ${ev:-?} |"; fi
                if [[ "$best" =~ ^[0-9.]+$ ]]; then
                    row="$row$(awk -v t="$best" -v e="$ev" 'BEGIN { printf " %.3f | %.2f |", t, 1e6 * t / e }')"
                else
                    row="$row $best | |"
                fi
            done
            echo "$row"
            rm -f "$net"
        done
    done
    exit 0
fi

tools=(unfold)
[ -n "$base" ] && tools+=(base)
[ -n "$cunf" ] && tools+=(cunf)
[ -n "$mole" ] && tools+=(mole)

machine
echo "Tools: unfold=$bin base=${base:-none} cunf=${cunf:-absent} mole=${mole:-absent}; best of $runs rounds, CPU seconds (user+sys)"
echo
head="| net | events | conditions | cutoffs | unfold (s) | events/s |"
rule="|---|---:|---:|---:|---:|---:|"
for t in "${tools[@]:1}"; do
    head="$head $t (s) | unfold/$t | sizes |"
    rule="$rule---:|---:|---|"
done
if [ -n "$cunf$mole" ]; then
    head="$head aim |"
    rule="$rule---|"
fi
echo "$head"
echo "$rule"

for net in "$nets"/*.ll_net; do
    name=$(basename "$net" .ll_net)
    declare -A time=() status=() size=()
    for t in "${tools[@]}"; do time[$t]=-; status[$t]=0; size[$t]=""; done
    for ((r = 0; r < runs; r++)); do
        for t in "${tools[@]}"; do
            [ "${status[$t]}" = 0 ] || continue
            read -r st secs < <("run_$t")
            status[$t]=$st
            [ "$st" = 0 ] || continue
            if [ "${time[$t]}" = - ] || awk -v a="$secs" -v b="${time[$t]}" 'BEGIN { exit !(a < b) }'; then
                time[$t]=$secs
            fi
            size[$t]=$("sizes_$t")
            [ "$t" = unfold ] && [ "$(echo "${size[unfold]}" | cut -d' ' -f1)" -lt "$min_events" ] && break 2
        done
    done
    if [ "${status[unfold]}" != 0 ]; then
        echo "| $name | unfold: ${status[unfold]} | | | | |"
        continue
    fi
    read -r ev co cut <<<"${size[unfold]}"
    [ "$ev" -lt "$min_events" ] && continue
    tu=${time[unfold]}
    row=$(awk -v n="$name" -v e="$ev" -v c="$co" -v k="$cut" -v t="$tu" 'BEGIN {
        printf "| %s | %d | %d | %d | %.3f | %s |", n, e, c, k, t, (t >= 0.005) ? sprintf("%.0f", e / t) : "-" }')
    fastest=-
    for t in "${tools[@]:1}"; do
        if [ "${status[$t]}" != 0 ]; then
            row="$row ${status[$t]} | | |"
            continue
        fi
        same=yes
        [ "${size[$t]}" = "${size[unfold]}" ] || same="NO (${size[$t]})"
        row="$row$(awk -v u="$tu" -v p="${time[$t]}" -v s="$same" 'BEGIN {
            printf " %.3f | %s | %s |", p, (p >= 0.005) ? sprintf("%.2f", u / p) : "-", s }')"
        if [ "$t" != base ] && { [ "$fastest" = - ] || awk -v a="${time[$t]}" -v b="$fastest" 'BEGIN { exit !(a < b) }'; }; then
            fastest=${time[$t]}
        fi
    done
    if [ -n "$cunf$mole" ]; then
        if [ "$ev" -le 10000 ] || [ "$fastest" = - ]; then
            row="$row |"
        else
            row="$row $(awk -v u="$tu" -v p="$fastest" 'BEGIN { print (u <= 0.8 * p) ? "met" : "NOT met" }') |"
        fi
    fi
    echo "$row"
    unset time status size
done
