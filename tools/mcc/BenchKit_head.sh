#!/bin/bash
# Model Checking Contest entry point: in the instance folder, answers $BK_EXAMINATION within $BK_TIME_CONFINEMENT s and $BK_MEMORY_CONFINEMENT MiB (an `unfold` beside this script or in bin/ first, then PATH).
export PATH="$(dirname "$0"):$(dirname "$0")/bin:$PATH"; exec unfold mcc "$@"
