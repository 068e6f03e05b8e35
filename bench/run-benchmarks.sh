#!/usr/bin/env bash
# Runs every benchmark against the build in $1 and prints their figures.
set -euo pipefail
BUILD="${1:?usage: run-benchmarks.sh BUILD_DIR [SECONDS]}"
SECONDS_PER_RUN="${2:-5}"
OUT="$(mktemp -d /tmp/nfv-bench-XXXXXX)"
"$BUILD/bench/pod_throughput" "$BUILD/dataplane/nfv-pod" "$SECONDS_PER_RUN" "$OUT"
echo
"$BUILD/bench/replay_rate" "$BUILD/traces/replay/nfv-replay" "$SECONDS_PER_RUN" "$OUT"
echo
"$BUILD/bench/control_plane" "$BUILD/dataplane/nfv-pod" "$SECONDS_PER_RUN" "$OUT"
echo
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
(cd "$ROOT" && NFV_SHARED_DATA="${NFV_SHARED_DATA:-$ROOT/../shared/data}" "$BUILD/bench/sim_steps")
echo "(work files in $OUT)"
