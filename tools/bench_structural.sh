#!/usr/bin/env bash
# Time of the structural analysis (P-semiflows and bounds, dead transitions, T-semiflows, the
# siphon-trap search: `unfold info`'s summary, each part capped at 1 s) per dev instance,
# against the contest's time limits of 5 s and 20 s.
#
# Usage: tools/bench_structural.sh [UNFOLD] [SHARED]
#        (defaults: target/release/unfold, ../shared)
# Prints one TSV row per P/T instance of SHARED/mcc and per net of SHARED/nets: net, places,
# transitions, structural time (s), its share of 5 s and of 20 s (%), and what it proved
# (bounded, 1-safe, deadlock-free by traps), then the time of each part (facts: P-semiflows,
# bounds, dead transitions; T-semiflows; siphon-trap search; traps with the state equation)
# and the part that took longest; a last line gives the largest time and how many
# nets stay under 5 % of each limit.
set -u
UNFOLD=${1:-target/release/unfold}
SHARED=${2:-../shared}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

field() { # JSON field $2 of file $1 (flat objects only)
  sed -n "s/^ *\"$2\": *\([^,]*\),\{0,1\}$/\1/p" "$1" | head -n 1 | tr -d '"'
}

nets() {
  for dir in "$SHARED"/mcc/*/; do
    [ "$(cat "$dir/iscolored" 2>/dev/null)" = FALSE ] && echo "${dir%/}/model.pnml"
  done
  find "$SHARED/nets" -name '*.ll_net' -o -name '*.pnml' | sort
}

printf 'net\tplaces\ttransitions\tstructural_s\tof_5s_%%\tof_20s_%%\tbounded\tsafe\ttraps'
printf '\tfacts_s\tt_semiflows_s\ttraps_s\tequation_s\tlongest\n'
count=0 under5=0 under20=0 worst=0
while read -r net; do
  timeout 60 "$UNFOLD" info "$net" --json "$TMP/info.json" -q >/dev/null 2>&1 || continue
  s=$(field "$TMP/info.json" structural_s)
  [ -n "$s" ] || continue
  name=${net#"$SHARED"/}
  name=${name%/model.pnml}
  read -r p5 p20 <<<"$(awk -v s="$s" 'BEGIN { printf "%.1f %.1f", s / 5 * 100, s / 20 * 100 }')"
  parts=""
  for part in facts t_semiflows traps equation; do
    parts="$parts$(printf '\t%.3f' "$(field "$TMP/info.json" "structural_${part}_s")")"
  done
  longest=$(printf '%s\n' "$parts" | awk -F'\t' '{
    split("facts t_semiflows traps equation", n, " "); best = 2
    for (i = 3; i <= 5; i++) if ($i + 0 > $best + 0) best = i
    print n[best - 1] }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\t%s\n' "$name" \
    "$(field "$TMP/info.json" places)" "$(field "$TMP/info.json" transitions)" "$s" "$p5" "$p20" \
    "$(field "$TMP/info.json" bounded)" "$(field "$TMP/info.json" safe_certificate)" \
    "$(field "$TMP/info.json" deadlock_free_by_traps)" "$parts" "$longest"
  count=$((count + 1))
  awk -v s="$s" 'BEGIN { exit !(s < 0.25) }' && under5=$((under5 + 1))
  awk -v s="$s" 'BEGIN { exit !(s < 1.0) }' && under20=$((under20 + 1))
  worst=$(awk -v s="$s" -v w="$worst" 'BEGIN { print (s > w ? s : w) }')
done < <(nets)
printf '# %d nets; largest %s s; under 5 %% of 5 s: %d; under 5 %% of 20 s: %d\n' \
  "$count" "$worst" "$under5" "$under20"
