#!/bin/sh
# Runs every libFuzzer target for many executions and prints, per target,
# the executions reached, exec/s, libFuzzer's coverage figures (cov: edges,
# ft: features) and the crashes found. Not part of CI: see run.sh for the
# short runs. The fuzzers come from the build folder:
#   ninja -C build tests/vnf_fuzz tests/config_fuzz
#   tests/fuzz/deep.sh [-n RUNS] [-s SLICE] [-t SECONDS] [-b BUILD] [-o OUT] [TARGET...]
# -n: executions per target (default 10^7); -s: at most this many in one
# fuzzer process (default 200,000), the next going on from the same
# corpus: a long-lived process slows down several times over as ASan's
# store of allocation stacks grows; -t: a time limit per target too
# (default none); -o: where the corpora and crash inputs go (default a new
# folder under /tmp; an existing one's corpora are carried on). A crash
# input is saved as OUT/TARGET/crash-*; add it to tests/fuzz/corpus/TARGET
# once fixed, as a regression. ASan keeps no allocation stacks here
# (malloc_context_size=0, a quarter faster): run a crash input alone, with
# ASAN_OPTIONS unset, for its full report.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=10000000
slice=200000
seconds=0
build=$root/build
out=
while getopts n:s:t:b:o: opt; do
  case $opt in
    n) runs=$OPTARG ;;
    s) slice=$OPTARG ;;
    t) seconds=$OPTARG ;;
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
  esac
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
shift $((OPTIND - 1))
[ -n "$out" ] || out=$(mktemp -d /tmp/nfv-fuzz-deep.XXXXXX)
vnf_targets="parser firewall nat lb router ids monitor ratelimit"
config_targets="control pod_config scaler_config replay_config plan trace_csv sndlib graphml"
targets=${*:-$config_targets $vnf_targets}
data=$(cd "${NFV_SHARED_DATA:-$root/../shared/data}" && pwd)
# The readers load the data files a config names (a builtin trace is a
# 6 MB CSV, two seconds under ASan), so the fuzzers read a copy of the
# shared data with every CSV over 1 MB cut to its first 300 lines: the
# same formats and code paths, at several times the executions.
mkdir -p "$out"
trimmed=$out/shared-data
# Made again when it is of other data or an older cut (its .source says).
source_line="$data: CSVs over 1 MB cut to 300 lines"
if [ "$(cat "$trimmed/.source" 2>/dev/null)" != "$source_line" ]; then
  rm -rf "$trimmed"
  rm -rf "$trimmed.part"
  (cd "$data" && find . -type f) | while read -r f; do
    mkdir -p "$trimmed.part/$(dirname "$f")"
    case $f in
      *.csv) [ "$(stat -c %s "$data/$f")" -gt 1048576 ] && { head -n 300 "$data/$f" >"$trimmed.part/$f"; continue; } ;;
    esac
    ln -s "$data/$f" "$trimmed.part/$f"
  done
  mkdir -p "$trimmed.part"
  echo "$source_line" >"$trimmed.part/.source"
  mv "$trimmed.part" "$trimmed"
fi
export NFV_SHARED_DATA=$trimmed

printf '%-14s %12s %9s %7s %7s %8s  %s\n' target executions exec/s cov ft crashes seconds
for target in $targets; do
  fuzzer=$build/tests/vnf_fuzz
  seeds=
  case " $config_targets " in *" $target "*) fuzzer=$build/tests/config_fuzz; seeds=$root/tests/fuzz/corpus/$target ;; esac
  [ -x "$fuzzer" ] || { echo "$fuzzer: not built (ninja -C $build tests/$(basename "$fuzzer"))" >&2; exit 1; }
  dir=$out/$target
  mkdir -p "$dir/corpus"
  start=$(date +%s)
  # Slices of at most $slice executions until $runs, a crash or the time
  # limit; the logs are $dir/log.1, log.2, ...
  execs=0 part=0 last=
  while [ "$execs" -lt "$runs" ]; do
    part=$((part + 1))
    left=$((runs - execs))
    [ "$left" -le "$slice" ] || left=$slice
    time_left=0
    if [ "$seconds" -gt 0 ]; then
      time_left=$((seconds - ($(date +%s) - start)))
      [ "$time_left" -gt 0 ] || break
    fi
    # A crash ends the target's run; the run goes on with the next target.
    status=0
    NFV_FUZZ_TARGET=$target "$fuzzer" -runs="$left" -max_total_time="$time_left" -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$dir/" "$dir/corpus" $seeds >"$dir/log.$part" 2>&1 || status=$?
    done_here=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log.$part")
    execs=$((execs + ${done_here:-0}))
    found=$(grep -E '^#[0-9]+.*cov: ' "$dir/log.$part" | tail -n 1)
    [ -z "$found" ] || last=$found
    [ "$status" -eq 0 ] && [ -n "$done_here" ] || break
  done
  elapsed=$(($(date +%s) - start))
  rate=$((execs / (elapsed > 0 ? elapsed : 1)))
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
  printf '%-14s %12s %9s %7s %7s %8s  %s (%s processes)\n' "$target" "$execs" "$rate" "${cov:-?}" "${ft:-?}" "$crashes" "$elapsed" "$part"
done
echo "corpora, logs and crash inputs: $out"
