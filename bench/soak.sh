#!/usr/bin/env bash
# soak: the demo's three pods for a long run (an hour by default) at about
# half their capacity, the load moving every slot so that nfv-scaler resizes
# the pools every slot, its policy switched live between online and
# threshold every few minutes. Samples what might grow (each process's
# resident memory, nfv-replay's being the sink's; the mbufs out of each
# pod's pool; the flows pinned in the instances; the journal's size) and
# plots it (soak-*.svg), then prints each figure's first and last samples
# and its growth per hour over the second half of the run. Not run by CI.
#
#   soak.sh BUILD_DIR [--minutes N] [--sample-s S] [--switch-s S] [RUN_DIR]
#
# --minutes: the run's length (default 60); --sample-s: seconds between
# samples (default 60); --switch-s: seconds between policy switches (default 300).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEMO="$HERE/../deploy/demo"
BUILD="${1:?usage: soak.sh BUILD_DIR [--minutes N] [--sample-s S] [--switch-s S] [RUN_DIR]}"
shift
MINUTES=60 SAMPLE_S=60 SWITCH_S=300 RUN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="${2:?--minutes N}"; shift 2 ;;
    --sample-s) SAMPLE_S="${2:?--sample-s S}"; shift 2 ;;
    --switch-s) SWITCH_S="${2:?--switch-s S}"; shift 2 ;;
    *) RUN="$1"; shift ;;
  esac
done
RUN="${RUN:-$(mktemp -d /tmp/nfv-soak-XXXXXX)}"
mkdir -p "$RUN"
SLOTS=$((MINUTES * 60))
export NFV_SHARED_DATA="${NFV_SHARED_DATA:-$HERE/../../shared/data}"

. "$DEMO/../lib/processes.sh"
. "$DEMO/../lib/capacity_run.sh"
fill() { sed -e "s|@RUN@|$RUN|g" -e "s|@HERE@|$DEMO|g" -e "s|@SLOTS@|$SLOTS|g" "$@"; }
metrics_port=9940
for site in nycm chin kscy; do
  # The demo's pod with its Prometheus endpoint on, for the samples.
  { fill "$DEMO/pod-$site.yaml.in" | sed -e "s|^control: {\(.*\)}|control: {\1, metrics_port: $metrics_port}|"
    fill "$DEMO/chains.yaml.in"; } > "$RUN/pod-$site.yaml"
  metrics_port=$((metrics_port + 1))
done
# Half the capacity, +-20% over a 20-slot period.
python3 "$HERE/capacity_trace.py" "$RUN/pod-nycm.yaml" --wiggle 0.2:20 "0.5x$SLOTS" > "$RUN/trace.csv"
capacity_replay_config soak-replay
fill "$DEMO/scaler.yaml.in" > "$RUN/scaler.yaml"

echo "== soak: the demo's 3 pods for $MINUTES min at ~50% load, samples every $SAMPLE_S s, policy switches every $SWITCH_S s"
echo "   work dir: $RUN"
rm -f "$RUN/driver.stop"
start_capacity_run "$SLOTS"
track_start python3 "$HERE/soak_driver.py" "$RUN/samples.csv" "$RUN/driver.stop" "$SAMPLE_S" "$SWITCH_S" "$RUN/journal.jsonl" 9930 demo \
  --proc "nycm=${pod_pids[2]}" "chin=${pod_pids[1]}" "kscy=${pod_pids[0]}" "scaler=$scaler" "replay=$replay" \
  --metrics nycm=9940 chin=9941 kscy=9942 \
  --policy "threshold,plan=$DEMO/plan.yaml,target=0.7" "online,plan=$DEMO/plan.yaml,candidates=plan,utilisation=0.75" \
  > "$RUN/driver.out" 2> "$RUN/driver.log"
driver=$!
wait "$scaler" || { echo "nfv-scaler failed; logs in $RUN"; exit 1; }
untrack "$scaler"
touch "$RUN/driver.stop"
finish "$driver" 30 || true
finish_replay || exit 1
stop_capacity_pods || exit 1
echo
cat "$RUN/driver.out"
"$BUILD/bench/soak_plot" "$RUN/samples.csv" "$RUN/soak"
python3 - "$RUN" <<'PY'
import csv, json, sys
run = sys.argv[1]
rows = list(csv.DictReader(l for l in open(f"{run}/replay.csv") if not l.startswith("#")))
sent = sum(float(r["sent"]) for r in rows); lost = sum(float(r["lost"]) for r in rows)
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl") if l.strip()]
counts = [int(j.get("instances", 0)) for j in journal]
changed = sum(1 for a, b in zip(counts, counts[1:]) if a != b)
policies = sorted({j["policy"]["name"] for j in journal})
print(f"traffic : {int(sent)} packets sent, {int(lost)} lost ({100 * lost / max(sent, 1):.3f}%)")
print(f"scaler  : {len(journal)} slots, instances {min(counts)}..{max(counts)}, total changed in {changed} slots, policies seen {policies}")
leaks = sum(int(json.load(open(f"{run}/{s}.json"))["mempool_in_use_after_close"]) for s in ("nycm", "chin", "kscy"))
print(f"mbufs still in use after the pods closed: {leaks}")
PY
echo "plots: $RUN/soak-*.svg"
