#!/bin/bash
# Builds MCC-style instance folders (NAME/model.pnml, NAME/iscolored) from PNML files, as the
# contest lays them out, for `unfold mcc`, BenchKit_head.sh and tools/benchexec/unfold.xml,
# and beside each a BenchExec task definition NAME.yml naming its model.pnml (so that runs and
# their log files are named after the instance, not after `model.pnml`).
#   tools/mcc/make_instances.sh [DEST [SRC]]
# DEST defaults to target/mcc-instances, SRC to ../shared/nets/pnml (its col/ subfolder holds
# coloured nets: iscolored TRUE). Existing folders are refreshed.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=${1:-target/mcc-instances}
src=${2:-../shared/nets/pnml}
test -d "$src" || { echo "$src is missing" >&2; exit 1; }
mkdir -p "$dest"
count=0
for net in "$src"/*.pnml "$src"/col/*.pnml; do
  [ -f "$net" ] || continue
  name=$(basename "$net" .pnml)
  mkdir -p "$dest/$name"
  cp "$net" "$dest/$name/model.pnml"
  case "$net" in */col/*) echo TRUE ;; *) echo FALSE ;; esac > "$dest/$name/iscolored"
  printf "format_version: '2.0'\ninput_files: '%s/model.pnml'\n" "$name" > "$dest/$name.yml"
  count=$((count + 1))
done
echo "$count instances in $dest"
