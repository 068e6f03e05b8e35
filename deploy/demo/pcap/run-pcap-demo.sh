#!/usr/bin/env bash
# The demo of the pod stage: three pods (NYCM, CHIN, KSCY: three Abilene
# sites), joined by memif, carry two chains of real traffic (a Netflix and a
# Teams capture) across the emulated WAN, then print what went through.
# (./nfv demo runs the scaler demo; this one, ./nfv demo --pcap, replays captures.)
#
#   run-pcap-demo.sh BUILD_DIR [RUN_DIR]   (./nfv demo --pcap)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
BUILD="${1:?usage: run-pcap-demo.sh BUILD_DIR [RUN_DIR]}"
RUN="${2:-$(mktemp -d /tmp/nfv-demo-XXXXXX)}"
DATA="${NFV_DATA:-$ROOT/../shared/data}"
POD="$BUILD/dataplane/nfv-pod"
mkdir -p "$RUN"
[ -d "$DATA/pcaps" ] || { echo "no traffic data at $DATA (set NFV_DATA)"; exit 1; }

# Each pod config = its own part + the shared sites, links and chains.
for site in nycm chin kscy; do
  { sed -e "s|@DATA@|$DATA|g" -e "s|@RUN@|$RUN|g" "$HERE/pod-$site.yaml.in"; cat "$HERE/sites.yaml.in"; } > "$RUN/pod-$site.yaml"
done

echo "== geo-NFV demo: 3 pods, 3 sites (NYCM -> CHIN -> KSCY), 2 chains of real traffic"
echo "   work dir: $RUN"
# Every pod is stopped on any way out (an error, ^C, SIGTERM) and reaped.
. "$HERE/../../lib/processes.sh"
pids=()
# Downstream first; every pod waits for its memif links before forwarding.
# Two cores for three pods: CHIN on core 0, NYCM and KSCY share core 1
# (idle loops back off, so pods that share a core both make progress).
for site in kscy chin nycm; do
  case $site in chin) core=0 ;; *) core=1 ;; esac
  track_start "$POD" -l "$core" --log-level=lib.eal:warning -- --config "$RUN/pod-$site.yaml" --stop-when-idle-ms 1500 \
    --stats-interval-s 0 --stats-json "$RUN/$site.json" > "$RUN/$site.out" 2> "$RUN/$site.log"
  pids+=($!)
  sleep 0.2
done
status=0
# They stop on their own once the captures are through (idle 1.5 s).
for pid in "${pids[@]}"; do finish "$pid" 120 || status=$?; done
for site in nycm chin kscy; do
  echo
  cat "$RUN/$site.out"
done
[ "$status" -eq 0 ] || { echo "a pod failed (exit $status); logs in $RUN/*.log"; exit "$status"; }

echo
echo "== the NYCM->CHIN link, as tshark decodes it (first 3 frames)"
tshark -r "$RUN/nycm-chin.pcapng" -c 3 -T fields -E header=y -e frame.len -e nsh.spi -e nsh.si -e ip.src -e ip.dst -e _ws.col.Protocol 2>/dev/null
echo
python3 - "$RUN" <<'PY'
import json, sys
run = sys.argv[1]
stats = {s: json.load(open(f"{run}/{s}.json")) for s in ("nycm", "chin", "kscy")}
for chain in ("video", "calls"):
    entered = next(c for c in stats["nycm"]["chains"] if c["name"] == chain)
    left = next(c for c in stats["kscy"]["chains"] if c["name"] == chain)
    print(f"{chain:6s}: {int(entered['in_packets']):5d} packets entered at NYCM, {int(left['out_packets']):5d} left at KSCY, "
          f"one-way latency p50 {left['latency']['p50_us'] / 1000:.2f} ms, p99 {left['latency']['p99_us'] / 1000:.2f} ms")
leaks = sum(int(s["mempool_in_use_after_close"]) for s in stats.values())
print(f"mbufs still in use after the pods closed: {leaks}")
PY
echo "(configs, logs, captures and JSON counters are in $RUN)"
