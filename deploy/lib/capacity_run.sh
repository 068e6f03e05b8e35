# The demo's three pods fed a capacity trace ($RUN/trace.csv) by nfv-replay,
# with nfv-scaler, all on one slot clock: what bench/overload.sh and
# bench/soak.sh share. Source it after processes.sh, with BUILD and RUN set.

# capacity_replay_config NAME: $RUN/replay.yaml, replaying $RUN/trace.csv's
# two chains (the demo's video and calls) into the pods over memif.
capacity_replay_config() {
  cat > "$RUN/replay.yaml" <<YAML
name: $1
ports:
  - {name: to_pod, driver: memif, memif_role: client, memif_socket: $RUN/in.sock}
  - {name: from_pod, driver: memif, memif_role: client, memif_socket: $RUN/out.sock}
generator:
  port: to_pod
  trace: {csv: $RUN/trace.csv}
  scale: {slot_wall_seconds: 1, volume_scale: 1}
  packet_sizes: [{bytes: 128, weight: 1}]
  flows: 1024
  zipf_exponent: 0
  chains:
    - {column: video, dst_prefix: 10.1.0.0/16}
    - {column: calls, dst_prefix: 10.2.0.0/16}
sink: {port: from_pod}
YAML
}

# start_capacity_run SLOTS: the pods from $RUN/pod-<site>.yaml (kscy, chin,
# nycm: their pids in pod_pids), nfv-replay (pid in replay) and nfv-scaler
# with $RUN/scaler.yaml (pid in scaler), nfv-replay starting the slot clock.
start_capacity_run() {
  local site core
  pod_pids=()
  for site in kscy chin nycm; do
    case $site in chin) core=1 ;; *) core=0 ;; esac
    track_start "$BUILD/dataplane/nfv-pod" -l "$core" --log-level=lib.eal:warning -- --config "$RUN/pod-$site.yaml" \
      --stop-when-idle-ms 60000 --stats-interval-s 0 --stats-json "$RUN/$site.json" > "$RUN/$site.out" 2> "$RUN/$site.log"
    pod_pids+=($!)
  done
  rm -f "$RUN/slot-clock"
  track_start "$BUILD/traces/replay/nfv-replay" -l 1 --log-level=lib.eal:warning -- --config "$RUN/replay.yaml" --csv "$RUN/replay.csv" \
    --lead-ms 2000 --start-file "$RUN/slot-clock" --quiet > "$RUN/replay.out" 2> "$RUN/replay.log"
  replay=$!
  track_start "$BUILD/scaler/service/nfv-scaler" --config "$RUN/scaler.yaml" --slots "$1" --start-at-file "$RUN/slot-clock" \
    > "$RUN/scaler.out" 2> "$RUN/scaler.log"
  scaler=$!
}

# finish_replay: after nfv-scaler's last slot, nfv-replay ends (its last
# slot's counts written); fails naming it.
finish_replay() {
  finish "$replay" 60 || { echo "nfv-replay failed; logs in $RUN"; return 1; }
}

# stop_capacity_pods: SIGINT to every pod (each writes its counters), then
# each is waited for; fails naming what failed.
stop_capacity_pods() {
  local pid
  for pid in "${pod_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  for pid in "${pod_pids[@]}"; do finish "$pid" 30 || { echo "a pod failed; logs in $RUN"; return 1; }; done
}
