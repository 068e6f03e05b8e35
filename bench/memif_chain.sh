#!/usr/bin/env bash
# memif_chain: a chain spanning three pods joined by memif, against two
# testpmds joined by memif, in the same run.
#
#   memif_chain.sh BUILD_DIR [--seconds N] [--runs N] [RUN_DIR]
#
# Both set-ups get their frames from the same source, a testpmd that replays
# a capture of 64-byte UDP frames (60 bytes and the FCS; 1,024 flows)
# forever into a memif port,
# and count them at the same sink, a testpmd in rxonly mode on a memif port:
#   reference: source -> sink
#   pods:      source -> pod A -> pod B -> pod C -> sink
# The chain has one hop per pod (forward), so the pods' cost is the
# framework's: memif in and out, NSH between pods, the WAN links (no delay).
# The figure is the sink's median Rx rate, the median of --runs runs of
# --seconds each (defaults 8 and 3), and the ratio of the two.
#
# Each process polls its own cpu, named with --lcores: on a machine with fewer
# cores than the five pollers of the pods' set-up (three pod workers, the
# source and the sink) they share cores, which the reference (two pollers)
# does not have to; the script prints how they were placed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:?usage: memif_chain.sh BUILD_DIR [--seconds N] [--runs N] [RUN_DIR]}"
shift
SECONDS_RUN=8 RUNS=3 RUN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_RUN="${2:?--seconds N}"; shift 2 ;;
    --runs) RUNS="${2:?--runs N}"; shift 2 ;;
    *) RUN="$1"; shift ;;
  esac
done
RUN="${RUN:-$(mktemp -d /tmp/nfv-memif-chain-XXXXXX)}"
mkdir -p "$RUN"
POD="$BUILD/dataplane/nfv-pod"
[ -x "$POD" ] || { echo "memif_chain: $POD not built (ninja -C $BUILD)" >&2; exit 1; }
command -v dpdk-testpmd > /dev/null || { echo "memif_chain: dpdk-testpmd not found (./nfv setup installs dpdk)" >&2; exit 1; }
command -v bc > /dev/null || { echo "memif_chain: bc not found (apt-get install bc)" >&2; exit 1; }
. "$HERE/../deploy/lib/processes.sh"

CORES=$(nproc)
# EAL's lcores 0 (main) and 1 (the poller) on cpus MAIN and POLLER, each
# wrapped around the machine's cpus 0..nproc-1 (they may then share one).
lcores() { echo "0@$(($1 % CORES)),1@$(($2 % CORES))"; }

python3 - "$RUN/frames.pcap" <<'EOF'
import struct, sys
# 64-byte Ethernet/IPv4/UDP frames, 1,024 flows to 10.1.0.0/16 (the chain's match).
def checksum(header):
    s = sum(struct.unpack('!10H', header))
    s = (s & 0xffff) + (s >> 16)
    return (~((s & 0xffff) + (s >> 16))) & 0xffff
with open(sys.argv[1], 'wb') as out:
    out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for flow in range(1024):
        payload = bytes(18)
        udp = struct.pack('!HHHH', 1024 + flow, 5000, 8 + len(payload), 0)
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp) + len(payload), 0, 0, 64, 17, 0,
                         bytes([172, 16, flow >> 8, flow & 255]), bytes([10, 1, flow >> 8, flow & 255]))
        ip = ip[:10] + struct.pack('!H', checksum(ip)) + ip[12:]
        frame = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]) + b'\x08\x00' + ip + udp + payload
        out.write(struct.pack('<IIII', 0, 0, len(frame), len(frame)) + frame)
EOF

# testpmd on LCORES (lcores above): the source replays the capture into a
# memif server, the sink counts what its memif client gets.
start_source() {  # SOCKET LCORES NAME
  track_start dpdk-testpmd --lcores "$2" --no-pci --file-prefix="$3" --huge-unlink --log-level=lib.eal:warning \
    --vdev "net_pcap0,rx_pcap=$RUN/frames.pcap,infinite_rx=1" \
    --vdev "net_memif0,role=server,socket=$1,socket-abstract=no,rsize=12" \
    -- --forward-mode=io --nb-cores=1 --stats-period=1 > "$RUN/$3.log" 2>&1
}
start_sink() {  # SOCKET LCORES NAME
  track_start dpdk-testpmd --lcores "$2" --no-pci --file-prefix="$3" --huge-unlink --log-level=lib.eal:warning \
    --vdev "net_memif0,role=client,socket=$1,socket-abstract=no,rsize=12" \
    -- --forward-mode=rxonly --nb-cores=1 --stats-period=1 > "$RUN/$3.log" 2>&1
}
# The sink's median Rx-pps over the run: its readings once packets arrive,
# the first (a part of a second) left out.
sink_rate() {
  { grep -a -o 'Rx-pps: *[0-9]*' "$1" || true; } | awk '$2 > 0 {print $2}' | tail -n +2 | sort -n |
    awk '{v[NR]=$1} END {if (NR == 0) print 0; else print v[int((NR + 1) / 2)]}'
}
# Polls FILE for PATTERN for up to 20 s.
wait_for() {
  local waited=0
  until grep -aq "$2" "$1" 2>/dev/null; do
    [ "$waited" -lt 200 ] || { echo "memif_chain: no '$2' in $1 after 20 s:" >&2; tail -5 "$1" >&2; return 1; }
    sleep 0.1; waited=$((waited + 1))
  done
}
# Each run sets RATE, the sink's Rx pps (not printed: a run must not be a
# subshell, whose processes the script's exit would not know to stop).
reference_run() {  # N
  local sock="$RUN/ref.sock"
  rm -f "$sock"
  start_source "$sock" "$(lcores 0 0)" ref_source_$1
  wait_for "$RUN/ref_source_$1.log" 'Port statistics'
  start_sink "$sock" "$(lcores 1 1)" ref_sink_$1
  wait_for "$RUN/ref_sink_$1.log" 'Port statistics'
  sleep "$SECONDS_RUN"  # the run's length: the rates are read from the logs after
  stop_all
  RATE=$(sink_rate "$RUN/ref_sink_$1.log")
}

pod_config() {  # NAME SITE PORTS_YAML
  cat <<EOF
name: $1
sites:
  - {name: A, lat: 40.78, lon: -73.97}
  - {name: B, lat: 41.83, lon: -87.62}
  - {name: C, lat: 38.96, lon: -96.60}
hosted_sites: [$2]
mempool: {mbufs: 65535}
links:
  - {from: A, to: B, delay_ms: 0}
  - {from: B, to: C, delay_ms: 0}
ports:
$3
chains:
  - name: spanning
    id: 1
    ingress_site: A
    egress_site: C
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.1.0.0/16, protocol: udp}]
    hops:
      - {vnf: forward, site: A}
      - {vnf: forward, site: B}
      - {vnf: forward, site: C}
EOF
}
memif() {  # NAME SITE PEERS ROLE SOCKET
  echo "  - {name: $1, driver: memif, site: $2, peer_sites: [$3], memif_role: $4, memif_socket: $5}"
}
pod_config memif_a A "$(memif in A '' client "$RUN/src.sock"; memif to_b A B,C client "$RUN/ab.sock")" > "$RUN/pod_a.yaml"
pod_config memif_b B "$(memif from_a B A server "$RUN/ab.sock"; memif to_c B C client "$RUN/bc.sock")" > "$RUN/pod_b.yaml"
pod_config memif_c C "$(memif from_b C A,B server "$RUN/bc.sock"; memif out C '' server "$RUN/out.sock")" > "$RUN/pod_c.yaml"
# The source polls cpu 0, pods C, B and A cpus 1, 2 and 3, the sink cpu 4
# (wrapped around the machine's cpus).
pods_run() {  # N
  rm -f "$RUN"/*.sock
  start_source "$RUN/src.sock" "$(lcores 0 0)" pods_source_$1
  wait_for "$RUN/pods_source_$1.log" 'Port statistics'
  track_start "$POD" --lcores "$(lcores 1 1)" --log-level=lib.eal:warning -- --config "$RUN/pod_c.yaml" > "$RUN/pod_c_$1.log" 2>&1
  track_start "$POD" --lcores "$(lcores 2 2)" --log-level=lib.eal:warning -- --config "$RUN/pod_b.yaml" > "$RUN/pod_b_$1.log" 2>&1
  track_start "$POD" --lcores "$(lcores 3 3)" --log-level=lib.eal:warning -- --config "$RUN/pod_a.yaml" > "$RUN/pod_a_$1.log" 2>&1
  start_sink "$RUN/out.sock" "$(lcores 4 4)" pods_sink_$1
  for name in a b c; do wait_for "$RUN/pod_${name}_$1.log" 'forwarding on'; done
  wait_for "$RUN/pods_sink_$1.log" 'Port statistics'
  sleep "$SECONDS_RUN"  # the run's length: the rates are read from the logs after
  stop_all
  RATE=$(sink_rate "$RUN/pods_sink_$1.log")
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'; }
ref=() pods=()
for i in $(seq "$RUNS"); do
  reference_run "$i"
  ref+=("$RATE")
  pods_run "$i"
  pods+=("$RATE")
done
r=$(printf '%s\n' "${ref[@]}" | median)
p=$(printf '%s\n' "${pods[@]}" | median)
echo "memif chain, 64 B UDP frames (with the FCS), $CORES cores, median of $RUNS runs of $SECONDS_RUN s (each run: the reference, then the pods)"
echo "  cpus (main and poller): reference: source $(lcores 0 0), sink $(lcores 1 1);" \
  "pods: source $(lcores 0 0), C $(lcores 1 1), B $(lcores 2 2), A $(lcores 3 3), sink $(lcores 4 4)"
printf '%-52s %10s %10s\n' configuration Mpps 'vs ref'
printf '%-52s %10.3f %10.3f\n' "testpmd -> memif -> testpmd (rxonly)" "$(echo "$r / 1000000" | bc -l)" 1
ratio=$(echo "if ($r > 0) $p / $r else 0" | bc -l)
verdict=$(echo "$ratio >= 0.5" | bc -l)
printf '%-52s %10.3f %10.3f  target 0.50 %s\n' "testpmd -> pod A -> pod B -> pod C -> testpmd" "$(echo "$p / 1000000" | bc -l)" "$ratio" \
  "$([ "$verdict" = 1 ] && echo met || echo MISSED)"
echo "  runs (pps): reference ${ref[*]}; pods ${pods[*]}"
echo "logs: $RUN"
