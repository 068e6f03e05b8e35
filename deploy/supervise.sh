#!/usr/bin/env bash
# Keeps one process running: starts it again when it dies, with a growing
# pause between tries and a limit on how many tries a window may hold.
#
#   deploy/supervise.sh [options] -- CMD ARGS...     (or ./nfv supervise ...)
#     --max-restarts N   at most N restarts within --window-s; one more
#                        failure and the supervisor gives up with the
#                        process's exit status (default 5)
#     --window-s S       the window the restarts are counted over (60)
#     --backoff-s S      the first pause before a restart (1); doubled after
#                        each failure up to --max-backoff-s (30), back to the
#                        start once a run has lasted --window-s
#     --pid-file F       the running process's pid, rewritten on each start
#
# A process that exits with 0 has stopped on purpose: it is not started
# again, and the supervisor exits 0. SIGINT/SIGTERM to the supervisor stop
# the process (deploy/lib/processes.sh) and end the supervision.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
max_restarts=5 window_s=60 backoff_s=1 max_backoff_s=30 pid_file=""
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+$ ]] || { echo "supervise: $1 expects a whole number, got '$2'" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --max-restarts) number "$1" "${2:-}"; max_restarts="$2"; shift 2 ;;
    --window-s) number "$1" "${2:-}"; window_s="$2"; shift 2 ;;
    --backoff-s) number "$1" "${2:-}"; backoff_s="$2"; shift 2 ;;
    --max-backoff-s) number "$1" "${2:-}"; max_backoff_s="$2"; shift 2 ;;
    --pid-file) pid_file="${2:?--pid-file needs a path}"; shift 2 ;;
    --) shift; break ;;
    *) echo "supervise: unknown option '$1'" >&2; usage ;;
  esac
done
[ $# -gt 0 ] || { echo "supervise: no command given (after --)" >&2; usage; }

. "$ROOT/deploy/lib/processes.sh"

restarts=()   # when each restart of the window happened (epoch s)
delay="$backoff_s"
while :; do
  started=$(date +%s)
  track_start "$@"
  pid=$!
  [ -z "$pid_file" ] || echo "$pid" > "$pid_file"
  echo "supervise: started $1 (pid $pid)" >&2
  status=0
  wait "$pid" || status=$?
  untrack "$pid"
  now=$(date +%s)
  if [ "$status" -eq 0 ]; then
    echo "supervise: $1 exited with 0 after $((now - started)) s; not restarted" >&2
    exit 0
  fi
  # A run as long as the window was a good one: the pause starts over.
  [ $((now - started)) -lt "$window_s" ] || delay="$backoff_s"
  kept=()
  for at in "${restarts[@]}"; do [ $((now - at)) -ge "$window_s" ] || kept+=("$at"); done
  restarts=("${kept[@]}")
  if [ "${#restarts[@]}" -ge "$max_restarts" ]; then
    echo "supervise: $1 failed (status $status) after ${#restarts[@]} restarts within ${window_s} s: giving up" >&2
    exit "$status"
  fi
  restarts+=("$now")
  echo "supervise: $1 failed (status $status) after $((now - started)) s; restart ${#restarts[@]} of $max_restarts in ${delay} s" >&2
  # The pause is the restart policy itself; a signal still ends it at once.
  sleep "$delay" &
  wait $! || true
  delay=$((delay * 2 > max_backoff_s ? max_backoff_s : delay * 2))
done
