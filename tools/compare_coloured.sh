#!/usr/bin/env bash
# Checks that two builds unfold coloured nets to the same P/T nets: for every coloured
# instance of ../shared (mcc folders with iscolored TRUE, nets/pnml/col) and the generated
# sizes of tools/gen_coloured.py (Philosophers-COL 5 000 and 10 000, TokenRing-COL 50 and 100),
# `unfold convert` to PNML with each build (places, transitions, arcs, weights, identifiers,
# labels, initial marking) must give byte-identical files, and `unfold info --json` the same
# figures apart from times (bindings tried and kept, rounds, sizes before and after dropping).
# Prints one line per net and exits 1 on any difference.
#
# Usage: tools/compare_coloured.sh BASE_BINARY [NEW_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
shared="$root/../shared"
base="${1:?usage: tools/compare_coloured.sh BASE_BINARY [NEW_BINARY]}"
new="${2:-$root/target/release/unfold}"
[ -d "$shared/mcc" ] || { echo "missing $shared/mcc" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gen"
for n in 5000 10000; do python3 "$here/gen_coloured.py" philosophers $n "$work/gen/Philosophers-COL-$n.pnml"; done
for n in 50 100; do python3 "$here/gen_coloured.py" tokenring $n "$work/gen/TokenRing-COL-$n.pnml"; done

files=()
for d in "$shared"/mcc/*/; do
  [ "$(cat "$d/iscolored" 2>/dev/null)" = TRUE ] && files+=("$d/model.pnml")
done
files+=("$shared"/nets/pnml/col/*.pnml "$work"/gen/*.pnml)

# The figures of `info --json` about the net and its unfolding (not times, nor the structural
# analysis, which has a time budget).
figures() {
  python3 -c '
import json, sys
j = json.load(sys.stdin)
keep = ("places", "transitions", "arcs", "read_arcs", "initial_tokens", "max_weight", "name")
for k in sorted(j):
    if k in keep or k.startswith(("coloured_", "unfolded_", "bindings_", "unfolding_rounds")):
        print(k, j[k])
'
}

status=0
for f in "${files[@]}"; do
  name="$(basename "$(dirname "$f")")"
  [ "$name" = col ] || [ "$(dirname "$f")" = "$work/gen" ] && name="$(basename "$f" .pnml)"
  "$base" convert "$f" "$work/base.pnml" 2>"$work/base.err" || true
  "$new" convert "$f" "$work/new.pnml" 2>"$work/new.err" || true
  "$base" info -q --json - "$f" 2>/dev/null | figures >"$work/base.info" || true
  "$new" info -q --json - "$f" 2>/dev/null | figures >"$work/new.info" || true
  if ! cmp -s "$work/base.pnml" "$work/new.pnml" || ! cmp -s "$work/base.err" "$work/new.err"; then
    printf '%-44s DIFFERENT net\n' "$name"; status=1
  elif ! cmp -s "$work/base.info" "$work/new.info"; then
    printf '%-44s DIFFERENT info\n' "$name"; diff "$work/base.info" "$work/new.info" || true; status=1
  else
    printf '%-44s same (%s bytes)\n' "$name" "$(wc -c <"$work/new.pnml")"
  fi
  rm -f "$work/base.pnml" "$work/new.pnml"
done
exit $status
