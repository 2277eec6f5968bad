#!/bin/sh
# The CTL engine on every P/T instance of ../shared/mcc (CTLCardinality, CTLFireability):
# the share of the contest's known answers given, per instance and in total, and every wrong
# answer (the run fails on one). The library is called directly (tests/mcc_ctl.rs); once
# `unfold mcc` answers the CTL examinations, tools/mcc/properties.py scores the binary.
#
# Usage: tools/ctl_share.sh [SECONDS per instance and examination, default 60]
#        tools/ctl_share.sh rules   # both rules for deadlocks, and the answers each contradicts
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = rules ]; then
    exec cargo test --release --test integration mcc_ctl::deadlock_rules_over_every_instance -- --ignored --nocapture
fi
CTL_BUDGET_SECS="${1:-60}" exec cargo test --release --test integration mcc_ctl::ctl_share_over_every_instance -- --ignored --nocapture
