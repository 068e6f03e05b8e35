# Every process a script starts is stopped on every way out (success, an
# error under set -e, ^C, SIGTERM, SIGHUP), and leaves no orphan: sourced by
# the scripts that start pods, nfv-replay or nfv-scaler.
#
#   . "$ROOT/deploy/lib/processes.sh"
#   track_start CMD ARGS... > out 2> err    in the background; its pid is $!
#   finish PID [SECONDS]   waits for it (60 s by default) and gives its exit
#                          status; past the time it is stopped, status 124
#   untrack PID            after the script's own `wait PID`
#
# Each tracked process leads its own session and process group (setsid), so
# that stopping it stops whatever it started too, and ^C reaches the script
# alone, whose trap stops them all, the last started first: SIGTERM to its
# group, up to NFV_STOP_SECONDS (10) for it to end, then SIGKILL; then every
# one is reaped. All run in the background, the script waiting on them: bash runs
# a trap only once a foreground command has ended.
NFV_TRACKED=()

# CMD ARGS... in the background in a new process group; its pid is $!.
track_start() { setsid "$@" & NFV_TRACKED+=($!); }

# A process reaped is no longer stopped on the way out (its pid may be reused).
untrack() {
  local pid kept=()
  for pid in "${NFV_TRACKED[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  NFV_TRACKED=("${kept[@]}")
}

# Whether any process of the session led by $1 is still running (not a zombie).
group_alive() {
  local state
  for state in $(ps -o stat= --sid "$1" 2>/dev/null); do [[ $state == Z* ]] || return 0; done
  return 1
}

finish() {
  local pid="$1" seconds="${2:-60}" waited=0
  while group_alive "$pid" && [ "$waited" -lt "$((seconds * 10))" ]; do sleep 0.1; waited=$((waited + 1)); done
  if group_alive "$pid"; then
    echo "process $pid still running after ${seconds} s: stopped" >&2
    stop_group "$pid"
    wait "$pid" 2>/dev/null || true
    untrack "$pid"
    return 124
  fi
  local status=0
  wait "$pid" || status=$?
  untrack "$pid"
  return "$status"
}

stop_group() {
  local pid="$1" waited=0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  while group_alive "$pid" && [ "$waited" -lt "$((${NFV_STOP_SECONDS:-10} * 10))" ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

# Last started, first stopped: the scaler before the pods it reads, so that
# its last slot does not see them go.
stop_all() {
  local i
  for ((i = ${#NFV_TRACKED[@]} - 1; i >= 0; i--)); do stop_group "${NFV_TRACKED[i]}"; done
  for i in "${NFV_TRACKED[@]}"; do wait "$i" 2>/dev/null || true; done
  NFV_TRACKED=()
}

trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
