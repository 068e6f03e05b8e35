#!/usr/bin/env bash
# overload: the demo's three pods offered 3x their deployed capacity with
# nfv-scaler's ceiling held at the deployed instances, between two stretches
# at half the capacity. Prints the drops by reason, the latency against the
# bound the queues set, the control API's round trips (pods and scaler)
# during the overload against those at rest in the same run, and the slots
# the pods take to recover once the load falls.
#
#   overload.sh BUILD_DIR [--seconds N] [--rest N] [--factor F] [RUN_DIR]
#
# --seconds: the overload's length (default 60; one slot = one second);
# --rest: slots at half the capacity before and after it (default 8);
# --factor: the overload as a multiple of the capacity (default 3).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEMO="$HERE/../deploy/demo"
BUILD="${1:?usage: overload.sh BUILD_DIR [--seconds N] [--rest N] [--factor F] [RUN_DIR]}"
shift
SECONDS_OVER=60 REST=8 FACTOR=3 RUN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_OVER="${2:?--seconds N}"; shift 2 ;;
    --rest) REST="${2:?--rest N}"; shift 2 ;;
    --factor) FACTOR="${2:?--factor F}"; shift 2 ;;
    *) RUN="$1"; shift ;;
  esac
done
RUN="${RUN:-$(mktemp -d /tmp/nfv-overload-XXXXXX)}"
mkdir -p "$RUN"
SLOTS=$((REST + SECONDS_OVER + REST))
export NFV_SHARED_DATA="${NFV_SHARED_DATA:-$HERE/../../shared/data}"

. "$DEMO/../lib/processes.sh"
. "$DEMO/../lib/capacity_run.sh"
fill() { sed -e "s|@RUN@|$RUN|g" -e "s|@HERE@|$DEMO|g" -e "s|@SLOTS@|$SLOTS|g" "$@"; }
for site in nycm chin kscy; do
  { fill "$DEMO/pod-$site.yaml.in"; fill "$DEMO/chains.yaml.in"; } > "$RUN/pod-$site.yaml"
done
# The trace: packets/s per slot and chain, from each chain's deployed
# capacity (its slowest hop: instances x service_rate_pps).
python3 "$HERE/capacity_trace.py" "$RUN/pod-nycm.yaml" "0.5x$REST" "${FACTOR}x$SECONDS_OVER" "0.5x$REST" > "$RUN/trace.csv"
capacity_replay_config overload-replay
# The scaler as in the demo, its ceiling held at the deployed instances per site.
fill "$DEMO/scaler.yaml.in" | sed -e "s|^journal: .*|journal: $RUN/journal.jsonl|" > "$RUN/scaler.yaml"
echo "limits: [{site: NYCMng, max_instances: 5}, {site: CHINng, max_instances: 8}]" >> "$RUN/scaler.yaml"

echo "== overload: the demo's 3 pods, ${REST} slots at 0.5x capacity, ${SECONDS_OVER} at ${FACTOR}x, ${REST} at 0.5x; scaler ceiling = the deployed instances"
echo "   work dir: $RUN"
rm -f "$RUN/probe.stop"
start_capacity_run "$SLOTS"
# Control round trips from before slot 0 to the end: every 20 ms, to each pod and the scaler.
track_start python3 "$HERE/control_probe.py" "$RUN/control.csv" "$RUN/probe.stop" 20 \
  nycm=127.0.0.1:9920:pod chin=127.0.0.1:9921:pod kscy=127.0.0.1:9922:pod scaler=127.0.0.1:9930:scaler
probe=$!
wait "$scaler" || { echo "nfv-scaler failed; logs in $RUN"; exit 1; }
untrack "$scaler"
finish_replay || exit 1
touch "$RUN/probe.stop"
finish "$probe" 10 || true
stop_capacity_pods || exit 1
echo
python3 "$HERE/overload_report.py" "$RUN" "$REST" "$SECONDS_OVER"
