#!/usr/bin/env bash
# Reduction rate and time of `unfold reduce` on the dev instances, prefix sizes of the PEP nets
# and DPOR sizes of the PEP and PNML nets before and after (deadlock-preserving reduction).
#
# Usage: tools/bench_reduce.sh [--deadlock] [UNFOLD] [SHARED]
#        (defaults: target/release/unfold, ../shared)
# Prints one TSV row per net: net, class, places before→after, transitions before→after,
# time of the reduction (s), for PEP nets the prefix events of the original and reduced nets
# (`-` when `unfold prefix` does not finish within 20 s), and for the nets of ../shared/nets the
# events and maximal configurations of the DPOR with cutoffs (`unfold run --cutoffs`, `-` when
# it does not finish within 20 s).
# With --deadlock: for every P/T instance of ../shared/mcc, the ReachabilityDeadlock answer of
# `unfold reach` (10 s) on the original and on the reduced net, and the contest's answer; a
# last line counts the answers and the disagreements with the oracle (there must be none).
set -u
DEADLOCK=0
if [ "${1:-}" = --deadlock ]; then DEADLOCK=1; shift; fi
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

dpor() { # "events/maximal configurations" of the DPOR with cutoffs on $1, or -
  if timeout 20 "$UNFOLD" run "$1" --cutoffs --no-fail --json "$TMP/dpor.json" -q >/dev/null 2>&1 &&
    [ "$(field "$TMP/dpor.json" complete)" = true ]; then
    echo "$(field "$TMP/dpor.json" events)/$(field "$TMP/dpor.json" maximal_configurations)"
  else
    echo -
  fi
}

reach_deadlock() { # TRUE, FALSE or ? from unfold reach on $1 within 10 s
  local json
  json=$(timeout 10 "$UNFOLD" reach "$1" --json - -q 2>/dev/null | tr -d ' \n')
  case "$json" in
    *'"deadlocks":0,'*'"complete":true'* | *'"complete":true'*'"deadlocks":0,'*) echo FALSE ;;
    *'"deadlocks":'[1-9]*) echo TRUE ;;
    *) echo '?' ;;
  esac
}

if [ "$DEADLOCK" = 1 ]; then
  printf 'instance\toracle\tbefore\tafter\n'
  before=0 after=0 wrong=0 total=0
  for dir in "$SHARED"/mcc/*/; do
    [ "$(cat "$dir/iscolored" 2>/dev/null)" = FALSE ] || continue
    name=$(basename "$dir")
    oracle=$(awk -F'\t' -v n="$name" '$1 == n && $2 == "ReachabilityDeadlock" {print $4}' \
      "$SHARED/mcc/oracle.tsv")
    "$UNFOLD" reduce "$dir/model.pnml" "$TMP/reduced.pnml" --preserve deadlock -q \
      >/dev/null 2>&1 || continue
    b=$(reach_deadlock "$dir/model.pnml")
    a=$(reach_deadlock "$TMP/reduced.pnml")
    total=$((total + 1))
    [ "$b" != '?' ] && before=$((before + 1))
    [ "$a" != '?' ] && after=$((after + 1))
    for x in "$b" "$a"; do
      if [ "$x" != '?' ] && [ "$oracle" != '?' ] && [ "$x" != "$oracle" ]; then
        wrong=$((wrong + 1))
      fi
    done
    printf '%s\t%s\t%s\t%s\n' "$name" "$oracle" "$b" "$a"
  done
  printf 'answered\t%s instances\tbefore %s\tafter %s\twrong %s\n' "$total" "$before" "$after" "$wrong"
  exit 0
fi

printf 'net\tclass\tplaces\ttransitions\ttime_s\tprefix_events\tdpor_events/configurations\n'
row() { # net file, class, output extension, whether to run the DPOR (1)
  local net=$1 class=$2 ext=$3 run_dpor=${4:-0} out="$TMP/reduced.$3"
  if ! timeout 60 "$UNFOLD" reduce "$net" "$out" --preserve "$class" --json "$TMP/r.json" \
      >/dev/null 2>&1; then
    printf '%s\t%s\tfailed\n' "$net" "$class"
    return
  fi
  local pb pa tb ta time ev dp
  pb=$(field "$TMP/r.json" places_before); pa=$(field "$TMP/r.json" places_after)
  tb=$(field "$TMP/r.json" transitions_before); ta=$(field "$TMP/r.json" transitions_after)
  time=$(field "$TMP/r.json" time_s)
  ev=""
  if [ "$ext" = ll_net ]; then
    ev="$(events "$net") → $(events "$out")"
  fi
  dp=""
  if [ "$run_dpor" = 1 ]; then
    dp="$(dpor "$net") → $(dpor "$out")"
  fi
  printf '%s\t%s\t%s → %s\t%s → %s\t%.3f\t%s\t%s\n' "${net#"$SHARED"/}" "$class" \
    "$pb" "$pa" "$tb" "$ta" "$time" "$ev" "$dp"
}

for net in "$SHARED"/nets/pep/*.ll_net; do row "$net" deadlock ll_net 1; done
for net in "$SHARED"/nets/pnml/*.pnml; do row "$net" deadlock pnml 1; done
for dir in "$SHARED"/mcc/*/; do
  [ "$(cat "$dir/iscolored" 2>/dev/null)" = FALSE ] || continue
  row "$dir/model.pnml" deadlock pnml
done
