#!/usr/bin/env bash
# pod_ab: two nfv-pod builds on the same pod configs, taking turns run by
# run (A B, then B A, ...) on lcores 0 (main) and 1 (the worker), so that
# the machine's drift and any cost of going first fall on both alike. Per
# config: each build's median Mpps (port 0's tx over the forwarding time,
# from --stats-json) and worker cycles per packet over its good runs, how
# many runs failed, and B's rate as a ratio of A's.
#
# The configs are the pod YAMLs bench/vnf_throughput writes into its
# OUT_DIR (for example vnfbench_chain64.yaml, vnfbench_chain_pools64.yaml).
#
#   bench/pod_ab.sh POD_A POD_B [--runs N] [--seconds S] CONFIG...
set -euo pipefail

usage() { echo "usage: $0 POD_A POD_B [--runs N] [--seconds S] CONFIG..." >&2; exit 2; }
[ $# -ge 3 ] || usage
POD_A=$1 POD_B=$2
shift 2
RUNS=5 SECONDS_PER_RUN=3
CONFIGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=${2:?--runs needs a number}; shift 2 ;;
    --seconds) SECONDS_PER_RUN=${2:?--seconds needs a number}; shift 2 ;;
    -*) usage ;;
    *) CONFIGS+=("$1"); shift ;;
  esac
done
[ ${#CONFIGS[@]} -gt 0 ] || usage
for n in "$RUNS" "$SECONDS_PER_RUN"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "$0: --runs and --seconds take a positive whole number, not '$n'" >&2; exit 2; }
done
for pod in "$POD_A" "$POD_B"; do [ -x "$pod" ] || { echo "$0: $pod is not an executable" >&2; exit 2; }; done

WORK=$(mktemp -d /tmp/pod_ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# One run: "Mpps cycles/packet", or nothing when the pod gave no stats
# (the failure goes to stderr and is counted).
run_pod() {
  local pod=$1 config=$2 stats="$WORK/stats.json"
  rm -f "$stats"
  if ! "$pod" -l 0,1 --file-prefix=pod_ab --log-level=lib.eal:warning -- --config "$config" \
      --run-for-s "$SECONDS_PER_RUN" --stats-interval-s 0 --stats-json "$stats" > "$WORK/pod.out" 2>&1; then
    echo "$0: $pod failed on $config:" >&2
    tail -5 "$WORK/pod.out" >&2
  fi
  python3 - "$stats" <<'EOF'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    mpps = float(s["ports"][0].get("tx_packets", 0)) / float(s["forwarding_s"]) / 1e6
    print(f"{mpps:.3f} {float(s['workers'][0].get('cycles_per_packet', 0)):.1f}")
except Exception:
    pass
EOF
}

# The median of the numbers on stdin (the mean of the middle two for an even count); 0 for none.
median() { sort -n | awk '{v[NR]=$1} END {if (!NR) print 0; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-36s %9s %9s %9s %9s %9s %7s\n' config "A Mpps" "A c/pkt" "B Mpps" "B c/pkt" "failed" "B/A"
for config in "${CONFIGS[@]}"; do
  : > "$WORK/a" && : > "$WORK/b"
  for run in $(seq "$RUNS"); do
    if [ $((run % 2)) -eq 1 ]; then
      run_pod "$POD_A" "$config" >> "$WORK/a"; run_pod "$POD_B" "$config" >> "$WORK/b"
    else
      run_pod "$POD_B" "$config" >> "$WORK/b"; run_pod "$POD_A" "$config" >> "$WORK/a"
    fi
  done
  a_failed=$((RUNS - $(wc -l < "$WORK/a"))) b_failed=$((RUNS - $(wc -l < "$WORK/b")))
  a_mpps=$(cut -d' ' -f1 "$WORK/a" | median) a_cpp=$(cut -d' ' -f2 "$WORK/a" | median)
  b_mpps=$(cut -d' ' -f1 "$WORK/b" | median) b_cpp=$(cut -d' ' -f2 "$WORK/b" | median)
  ratio=$(awk -v a="$a_mpps" -v b="$b_mpps" 'BEGIN {if (a > 0 && b > 0) printf "%.3f", b / a; else printf "-"}')
  printf '%-36s %9s %9s %9s %9s %9s %7s\n' "$(basename "$config")" "$a_mpps" "$a_cpp" "$b_mpps" "$b_cpp" \
    "$a_failed/$b_failed" "$ratio"
done
