#!/usr/bin/env bash
# Unfolding benchmark: for every coloured instance of ../shared (mcc folders with iscolored
# TRUE, nets/pnml/col) and larger generated sizes of two families (tools/gen_coloured.py:
# Philosophers-COL at 5 000 and 10 000, TokenRing-COL at 50 and 100), prints the unfolding
# time, the bindings tried and kept, the P/T sizes and the P/T transitions unfolded per second
# (the aim: at least a million). Uses `unfold info --json`, built in release.
#
# Usage: tools/bench_coloured.sh [BINARY]
#        tools/bench_coloured.sh BASE_BINARY NEW_BINARY
# With two binaries, each net is unfolded by both, one after the other (so that the machine's
# load weighs on both alike), and the table gives both times, the P/T transitions unfolded
# (before dead ones are dropped) and kept, both rates (unfolded per second) and the speed-up.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
shared="$root/../shared"
bin="${1:-$root/target/release/unfold}"
new="${2:-}"
gen="$(mktemp -d)"
trap 'rm -rf "$gen"' EXIT
for n in 5000 10000; do python3 "$here/gen_coloured.py" philosophers $n "$gen/Philosophers-COL-$n.pnml"; done
for n in 50 100; do python3 "$here/gen_coloured.py" tokenring $n "$gen/TokenRing-COL-$n.pnml"; done

files=()
for d in "$shared"/mcc/*/; do
  [ "$(cat "$d/iscolored" 2>/dev/null)" = TRUE ] && files+=("$d/model.pnml")
done
files+=("$shared"/nets/pnml/col/*.pnml "$gen"/*.pnml)

if [ -z "$new" ]; then
  printf '%-44s %9s %12s %12s %9s %10s %12s\n' net seconds tried kept places transitions 'trans/s'
else
  printf '%-44s %9s %9s %10s %10s %12s %12s %8s\n' net 'base s' 'new s' unfolded 'kept' \
    'base t/s' 'new t/s' speedup
fi
for f in "${files[@]}"; do
  name="$(basename "$(dirname "$f")")"
  [ "$name" = col ] || [ "$(dirname "$f")" = "$gen" ] && name="$(basename "$f" .pnml)"
  json="$("$bin" info -q --json - "$f" 2>/dev/null)" || { printf '%-44s failed\n' "$name"; continue; }
  if [ -z "$new" ]; then
    python3 - "$name" "$json" <<'PY'
import json, sys
name, j = sys.argv[1], json.loads(sys.argv[2])
s = j.get("unfolding_seconds", 0.0)
rate = j["unfolded_transitions"] / s if s > 0 else float("inf")
print(f"{name:44} {s:9.3f} {j['bindings_tried']:12} {j['bindings_kept']:12} {j['places']:9} {j['transitions']:10} {rate:12.0f}")
PY
  else
    json2="$("$new" info -q --json - "$f" 2>/dev/null)" || { printf '%-44s failed (new)\n' "$name"; continue; }
    python3 - "$name" "$json" "$json2" <<'PY'
import json, sys
name, a, b = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
sa, sb = a.get("unfolding_seconds", 0.0), b.get("unfolding_seconds", 0.0)
n = b["unfolded_transitions"]
ra = n / sa if sa > 0 else float("inf")
rb = n / sb if sb > 0 else float("inf")
speedup = sa / sb if sb > 0 else float("inf")
print(f"{name:44} {sa:9.3f} {sb:9.3f} {n:10} {b['transitions']:10} {ra:12.0f} {rb:12.0f} {speedup:8.2f}")
PY
  fi
done
