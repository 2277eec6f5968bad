#!/usr/bin/env bash
# Reduction rate and time of `unfold reduce` on the dev instances, and prefix sizes of the
# PEP nets before and after (deadlock-preserving reduction).
#
# Usage: tools/bench_reduce.sh [UNFOLD] [SHARED]   (defaults: target/release/unfold, ../shared)
# Prints one TSV row per net: net, class, places before→after, transitions before→after,
# time of the reduction (s), and for PEP nets the prefix events of the original and reduced
# nets (`-` when `unfold prefix` does not finish within 20 s).
set -u
UNFOLD=${1:-target/release/unfold}
SHARED=${2:-../shared}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

field() { # JSON field $2 of file $1 (flat objects only)
  sed -n "s/^ *\"$2\": *\([^,]*\),\{0,1\}$/\1/p" "$1" | head -n 1
}

events() { # prefix events of net $1, or -
  if timeout 20 "$UNFOLD" prefix "$1" --json "$TMP/prefix.json" -q >/dev/null 2>&1; then
    field "$TMP/prefix.json" events
  else
    echo -
  fi
}

printf 'net\tclass\tplaces\ttransitions\ttime_s\tprefix_events\n'
row() { # net file, class, output extension
  local net=$1 class=$2 ext=$3 out="$TMP/reduced.$3"
  if ! timeout 60 "$UNFOLD" reduce "$net" "$out" --preserve "$class" --json "$TMP/r.json" \
      >/dev/null 2>&1; then
    printf '%s\t%s\tfailed\n' "$net" "$class"
    return
  fi
  local pb pa tb ta time ev
  pb=$(field "$TMP/r.json" places_before); pa=$(field "$TMP/r.json" places_after)
  tb=$(field "$TMP/r.json" transitions_before); ta=$(field "$TMP/r.json" transitions_after)
  time=$(field "$TMP/r.json" time_s)
  ev=""
  if [ "$ext" = ll_net ]; then
    ev="$(events "$net") → $(events "$out")"
  fi
  printf '%s\t%s\t%s → %s\t%s → %s\t%.3f\t%s\n' "${net#"$SHARED"/}" "$class" \
    "$pb" "$pa" "$tb" "$ta" "$time" "$ev"
}

for net in "$SHARED"/nets/pep/*.ll_net; do row "$net" deadlock ll_net; done
for net in "$SHARED"/nets/pnml/*.pnml; do row "$net" deadlock pnml; done
for dir in "$SHARED"/mcc/*/; do
  [ "$(cat "$dir/iscolored" 2>/dev/null)" = FALSE ] || continue
  row "$dir/model.pnml" deadlock pnml
done
