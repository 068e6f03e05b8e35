#!/usr/bin/env bash
# Failures on real pods, in figures: a pod killed and restarted (by hand,
# then by deploy/supervise.sh), a pod killed while the plans move off it,
# and nfv-scaler killed and restarted. Runs those integration tests of
# scaler_pods (three pods, nfv-replay, nfv-scaler; about 2 minutes on two
# cores) and prints, per chain, the packets lost over the run (and their
# share of the packets sent) and the slots until a slot loses under 1%
# again.
#
#   bench/failover-figures.sh BUILD_DIR
set -euo pipefail
BUILD="${1:?usage: failover-figures.sh BUILD_DIR}"
LOG="$(mktemp /tmp/nfv-failover-XXXXXX.log)"
status=0
meson test -C "$BUILD" scaler_pods --verbose \
  --test-args='--gtest_filter=PodsWithoutAPeer.*:ScalerWithPods.APodKilled*:ScalerWithPods.AScalerKilled*' > "$LOG" 2>&1 || status=$?
grep -o 'figure: .*' "$LOG" || true
grep -E '^\[  (PASSED|FAILED) ' "$LOG" | sed 's/^/tests: /' || true
echo "(log in $LOG)"
exit "$status"
