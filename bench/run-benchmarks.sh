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
"$BUILD/bench/vnf_throughput" "$BUILD/dataplane/nfv-pod" "$SECONDS_PER_RUN" "$OUT"
echo
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export NFV_SHARED_DATA="${NFV_SHARED_DATA:-$ROOT/../shared/data}"
(cd "$ROOT" && "$BUILD/bench/sim_steps")
echo
# Decision times are part of the figures: run the policy comparison ahead of
# other work on the machine (root may raise its priority).
(cd "$ROOT" && nice -n -10 "$BUILD/bench/policy_costs" --site-capacity 128 2>/dev/null || "$BUILD/bench/policy_costs" --site-capacity 128)
echo
(cd "$ROOT" && "$BUILD/bench/predictor_accuracy" --out "$OUT/predictor")
echo
# The MARL placement agents, one per site of the default scenario (Abilene,
# trained on March), next to threshold and online on the test slots.
(cd "$ROOT" && "$BUILD/scaler/nfv-train" marl --volume-scale 200 --site-capacity 64 --quiet --out "$OUT/marl-placement" &&
  "$BUILD/bench/policy_costs" --site-capacity 64 --policies threshold,online --forecasts "" --no-bound --marl "$OUT/marl-placement")
echo
"$BUILD/bench/marl_spread" --out "$OUT/marl" 2>/dev/null
echo
# One marl/ training iteration, stacked vs looped (and CUDA where there is
# one): about 20 s an iteration on two cores with the reference BLAS.
"$BUILD/bench/marl_iteration" --warmup 1 --min-iterations 2 --out "$OUT/marl"
echo
# A pod and the scaler killed mid-run, and back: packets lost, slots until recovery.
"$ROOT/bench/failover-figures.sh" "$BUILD"
echo "(work files in $OUT)"
