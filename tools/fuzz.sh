#!/usr/bin/env bash
# Runs each cargo-fuzz target (fuzz/fuzz_targets) for SECONDS, one after the other, one process
# each. Usage: tools/fuzz.sh SECONDS [TARGET...]   (targets: pnml pep tsys; default all)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). The corpora live in
# fuzz/corpus/TARGET (git-ignored); they are seeded from nets/, ../shared/nets (read-only, copied
# only there) and tests/fuzz_regressions. Crashes, hangs (-timeout) and out-of-memory runs
# (-rss_limit_mb) are written to fuzz/artifacts/TARGET; each must become a regression input under
# tests/fuzz_regressions/READER/ once the reader is fixed. Exit status 1 when a target failed.
set -uo pipefail
cd "$(dirname "$0")/.."

secs=${1:?usage: tools/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pnml pep tsys)

# Seeds: small files only (and inputs cut at 16 KiB), so that runs stay fast.
seed() { # TARGET PATTERN DIR...
  local target=$1 pattern=$2
  shift 2
  mkdir -p "fuzz/corpus/$target"
  for dir in "$@"; do
    [ -d "$dir" ] || continue
    find "$dir" -type f -name "$pattern" -size -64k -exec cp -n -t "fuzz/corpus/$target" {} + 2>/dev/null
  done
}
seed pnml '*.pnml' nets ../shared/nets/pnml tests/fuzz_regressions/pnml
seed pep '*.ll_net' nets ../shared/nets/pep tests/fuzz_regressions/pep
seed tsys '*.tsys' nets/programs tests/fuzz_regressions/tsys

failed=()
for t in "${targets[@]}"; do
  echo "== fuzz target $t for ${secs}s"
  # -a: debug assertions and overflow checks on, so that an arithmetic wrap is a crash.
  if ! cargo +nightly fuzz run -a "$t" -- \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
      -dict="fuzz/dict/$t.dict" -print_final_stats=1; then
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz targets that failed: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
