#!/usr/bin/env bash
# The geo-NFV demo: three pods (three Abilene PoPs joined by memif, WAN
# delays emulated), nfv-replay driving one day of the real Abilene trace
# compressed into one-second slots, and nfv-scaler resizing the pods'
# instance pools every slot with the policy of scaler.yaml.in (online by
# default). nfv-scaler prints a line per slot; at the end come a summary and
# an HTML report with the plots.
#
#   run-demo.sh BUILD_DIR [--policy static|threshold|online|drl] [--slots N]
#               [--containers] [--prometheus] [RUN_DIR]
#
# drl serves drl.pt, kept here (train-drl.sh remakes it), with the online
# policy as its guard, both kept to the pods' pools. --containers runs every
# program in the image (./nfv image) instead of from BUILD_DIR, sharing
# hugetlbfs and the run's folder (the memif sockets). --prometheus has
# Prometheus scrape the pods and the scaler every second and adds the
# Grafana dashboard's panels, drawn from what it scraped, to the report.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:?usage: run-demo.sh BUILD_DIR [--policy NAME] [--slots N] [--containers] [--prometheus] [RUN_DIR]}"
shift
POLICY="" SLOTS=48 RUN="" RUNNER=() PROMETHEUS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --policy) POLICY="${2:?--policy NAME}"; shift 2 ;;
    --slots) SLOTS="${2:?--slots N}"; shift 2 ;;
    --containers) RUNNER=("$HERE/../image/in-container"); shift ;;
    --prometheus) PROMETHEUS=1; shift ;;
    *) RUN="$1"; shift ;;
  esac
done
RUN="${RUN:-$(mktemp -d /tmp/nfv-demo-XXXXXX)}"
mkdir -p "$RUN"
export NFV_SHARED_DATA="${NFV_SHARED_DATA:-$HERE/../../../shared/data}"
[ -f "$NFV_SHARED_DATA/traffic/abilene/abilene_tm_5min_mbps.csv" ] || { echo "no Abilene trace under $NFV_SHARED_DATA"; exit 1; }

fill() { sed -e "s|@RUN@|$RUN|g" -e "s|@HERE@|$HERE|g" -e "s|@SLOTS@|$SLOTS|g" "$@"; }
for site in nycm chin kscy; do
  { fill "$HERE/pod-$site.yaml.in"; fill "$HERE/chains.yaml.in"; } > "$RUN/pod-$site.yaml"
done
fill "$HERE/replay.yaml.in" > "$RUN/replay.yaml"
fill "$HERE/scaler.yaml.in" > "$RUN/scaler.yaml"
chmod 600 "$RUN"/pod-*.yaml "$RUN/scaler.yaml"  # they hold control tokens
if [ -n "$POLICY" ]; then
  case "$POLICY" in
    online) ;;  # the file's own line, with its parameters
    static|threshold) sed -i "s|^policy: .*|policy: {name: $POLICY, params: {plan: $HERE/plan.yaml}}|" "$RUN/scaler.yaml" ;;
    drl) sed -i "s|^policy: .*|policy: {name: drl, params: {checkpoint: $HERE/drl.pt, plan: $HERE/plan.yaml, candidates: plan, guard.utilisation: '0.75'}}|" "$RUN/scaler.yaml" ;;
    *) echo "--policy: expected static, threshold, online or drl"; exit 1 ;;
  esac
fi

if [ ${#RUNNER[@]} -gt 0 ]; then
  export NFV_CONTAINER_MOUNTS="$RUN:$HERE:$NFV_SHARED_DATA"
  echo "== in containers of ${NFV_IMAGE:-localhost/geo-nfv:latest}"
fi
echo "== geo-NFV demo: 3 pods (NYCMng -> CHINng -> KSCYng), one day of Abilene in $SLOTS slots, scaler policy: $(sed -n 's/^policy: {name: \([a-z]*\).*/\1/p' "$RUN/scaler.yaml")"
echo "   work dir: $RUN"
# Every process this script starts is stopped on any way out (an error, ^C,
# SIGTERM), with whatever it started, and reaped: no orphans.
. "$HERE/../lib/processes.sh"
# Two cores for five processes: CHIN alone on core 1 with the generator,
# NYCM and KSCY on core 0 (idle loops back off, so pods that share a core
# both make progress). The pods run until this script stops them; the idle
# stop is only a backstop.
pod_pids=()
for site in kscy chin nycm; do
  case $site in chin) core=1 ;; *) core=0 ;; esac
  track_start "${RUNNER[@]}" "$BUILD/dataplane/nfv-pod" -l "$core" --log-level=lib.eal:warning -- --config "$RUN/pod-$site.yaml" \
    --stop-when-idle-ms 60000 --stats-interval-s 0 --stats-json "$RUN/$site.json" > "$RUN/$site.out" 2> "$RUN/$site.log"
  pod_pids+=($!)
done
if [ -n "$PROMETHEUS" ]; then
  fill "$HERE/prometheus.yml.in" > "$RUN/prometheus.yml"
  track_start prometheus --config.file="$RUN/prometheus.yml" --storage.tsdb.path="$RUN/prometheus" \
    --web.listen-address=127.0.0.1:9990 > "$RUN/prometheus.log" 2>&1
  prometheus_pid=$!
fi
# One slot clock for the traffic and the scaler: nfv-replay fixes slot 0 two
# seconds after its links are up and writes the time down; nfv-scaler waits
# for it and measures slot k of the traffic as its own slot k, whichever of
# the two comes up first.
rm -f "$RUN/slot-clock"
track_start "${RUNNER[@]}" "$BUILD/traces/replay/nfv-replay" -l 1 --log-level=lib.eal:warning -- --config "$RUN/replay.yaml" --csv "$RUN/replay.csv" \
  --lead-ms 2000 --start-file "$RUN/slot-clock" --quiet > "$RUN/replay.out" 2> "$RUN/replay.log"
replay=$!
# In the background too, so that ^C or SIGTERM reaches this script's trap at once.
track_start "${RUNNER[@]}" "$BUILD/scaler/service/nfv-scaler" --config "$RUN/scaler.yaml" --slots "$SLOTS" --start-at-file "$RUN/slot-clock" \
  --report "$RUN/report.html"
scaler=$!
wait "$scaler" || { echo "nfv-scaler failed; logs in $RUN"; exit 1; }
untrack "$scaler"
# The replay ends with its trace, a slot or so after the scaler's last slot.
finish "$replay" 60 || { echo "nfv-replay failed; logs in $RUN"; exit 1; }
if [ -n "$PROMETHEUS" ]; then
  # The last scrapes of the last slot, then the dashboard's panels over the run.
  python3 "$HERE/../grafana/render-panels.py" "$HERE/../grafana/geo-nfv.json" http://127.0.0.1:9990 "$RUN/slot-clock" \
    "$RUN/report.html" "$BUILD/report/nfv-chart" || { echo "the dashboard's panels failed; logs in $RUN"; exit 1; }
  stop_group "$prometheus_pid"; wait "$prometheus_pid" 2>/dev/null || true; untrack "$prometheus_pid"
fi
for pid in "${pod_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
for pid in "${pod_pids[@]}"; do finish "$pid" 30 || { echo "a pod failed; logs in $RUN"; exit 1; }; done

echo
python3 - "$RUN" <<'PY'
import csv, json, sys
run = sys.argv[1]
rows = list(csv.DictReader(l for l in open(f"{run}/replay.csv") if not l.startswith("#")))
sent = sum(float(r["sent"]) for r in rows); lost = sum(float(r["lost"]) for r in rows)
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl") if l.strip()]
last = journal[-1]["cost_so_far"]
counts = [int(j.get("instances", 0)) for j in journal]
print(f"traffic : {int(sent)} packets sent, {int(sent - lost)} delivered, {int(lost)} lost ({100 * lost / max(sent, 1):.3f}%)")
measured = sum(c.get("arrival_pps", 0) for j in journal for c in j["chains"])  # packets/s over 1-s slots
print(f"scaler  : {len(journal)} slots, {int(measured)} packets measured arriving, policy {journal[-1]['policy']['name']}, instances {min(counts)}..{max(counts)}")
print(f"cost    : {last.get('total', 0):.2f} = operating {last.get('operating', 0):.2f} + deployment "
      f"{last.get('deployment', 0):.2f} + WAN {last.get('wan', 0):.2f} + SLA {last.get('sla_penalty', 0):.2f}")
leaks = sum(int(json.load(open(f"{run}/{s}.json"))["mempool_in_use_after_close"]) for s in ("nycm", "chin", "kscy"))
print(f"mbufs still in use after the pods closed: {leaks}")
PY
echo "report  : file://$RUN/report.html (open it in a browser)"
echo "(configs, logs, the journal and every pod's counters are in $RUN)"
