#!/usr/bin/env bash
# Trains the demo's drl checkpoint (deploy/demo/drl.pt) the way it was made:
# the demo's two chains over March of the Abilene trace (the demo replays
# April), rows averaged to 30 minutes as the demo's slots are, the pods'
# packet size, queue and traffic volume, a per-packet SLA penalty (per GB,
# 128-byte packets are nearly free to drop), 30% more instances than the
# forecast needs (near the third more of the online policy's utilisation
# 0.75), seed 1. Takes about
# 10 s on two cores; the best validation checkpoint is written to OUT.
#
#   train-drl.sh BUILD_DIR [OUT (default deploy/demo/drl.pt)] [nfv-train options, e.g. --steps 60]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:?usage: train-drl.sh BUILD_DIR [OUT] [nfv-train options]}"
shift
OUT="$HERE/drl.pt"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then OUT="$1"; shift; fi
for option in "$@"; do
  case "$option" in --out|--out=*) echo "train-drl.sh: give the checkpoint as OUT, not --out"; exit 1 ;; esac
done
export NFV_SHARED_DATA="${NFV_SHARED_DATA:-$HERE/../../../shared/data}"
WORK="$(mktemp -d /tmp/nfv-demo-drl-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
"$BUILD/tools/nfv-trace" columns --trace "$NFV_SHARED_DATA/traffic/abilene/abilene_tm_5min_mbps.csv" \
  --trace-unit Mbit/s --block 0 --column 'NYCMng->IPLSng=video' --column 'CHINng->NYCMng=calls' > "$WORK/march.csv"
"$BUILD/scaler/nfv-train" drl --topology "$HERE/topology.yaml" --trace "$WORK/march.csv" --resample 1800 \
  --slot-seconds 1 --packet-bytes 128 --queue-packets 512 --volume-scale 0.256 --sla-basis packet --sla-penalty 0.01 \
  --forecast persistence --horizon 1 --headroom 1.3 --envs 4 --steps 400 --validate-every 50 --hidden 32 --seed 1 \
  --quiet --out "$WORK/drl.pt" "$@"
cp "$WORK/drl.pt.best" "$OUT"
cp "$WORK/drl.pt.curve.csv" "${OUT%.pt}.curve.csv"
echo "checkpoint $OUT (best validation), curve ${OUT%.pt}.curve.csv"
