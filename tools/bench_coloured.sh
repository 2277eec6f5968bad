#!/usr/bin/env bash
# Unfolding benchmark: for every coloured instance of ../shared (mcc folders with iscolored
# TRUE, nets/pnml/col) and larger generated sizes of two families (tools/gen_coloured.py:
# Philosophers-COL at 5 000 and 10 000, TokenRing-COL at 50 and 100), prints the unfolding
# time, the bindings tried and kept, the P/T sizes and the P/T transitions unfolded per second
# (the aim: at least a million). Uses `unfold info --json`, built in release.
#
# Usage: tools/bench_coloured.sh [BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
shared="$root/../shared"
bin="${1:-$root/target/release/unfold}"
gen="$(mktemp -d)"
trap 'rm -rf "$gen"' EXIT
for n in 5000 10000; do python3 "$here/gen_coloured.py" philosophers $n "$gen/Philosophers-COL-$n.pnml"; done
for n in 50 100; do python3 "$here/gen_coloured.py" tokenring $n "$gen/TokenRing-COL-$n.pnml"; done

files=()
for d in "$shared"/mcc/*/; do
  [ "$(cat "$d/iscolored" 2>/dev/null)" = TRUE ] && files+=("$d/model.pnml")
done
files+=("$shared"/nets/pnml/col/*.pnml "$gen"/*.pnml)

printf '%-44s %9s %12s %12s %9s %10s %12s\n' net seconds tried kept places transitions 'trans/s'
for f in "${files[@]}"; do
  name="$(basename "$(dirname "$f")")"
  [ "$name" = col ] || [ "$(dirname "$f")" = "$gen" ] && name="$(basename "$f" .pnml)"
  json="$("$bin" info -q --json - "$f" 2>/dev/null)" || { printf '%-44s failed\n' "$name"; continue; }
  python3 - "$name" "$json" <<'PY'
import json, sys
name, j = sys.argv[1], json.loads(sys.argv[2])
s = j.get("unfolding_seconds", 0.0)
rate = j["unfolded_transitions"] / s if s > 0 else float("inf")
print(f"{name:44} {s:9.3f} {j['bindings_tried']:12} {j['bindings_kept']:12} {j['places']:9} {j['transitions']:10} {rate:12.0f}")
PY
done
