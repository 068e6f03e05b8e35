#!/bin/sh
# Runs a libFuzzer target for a bounded time on one of its targets.
#   run.sh FUZZER TARGET [SECONDS] [SEEDS]
# SEEDS, a folder of seed inputs, is read and never written: what the run
# finds goes to a scratch folder removed at the end.
set -e
if [ -n "$4" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  NFV_FUZZ_TARGET=$2 "$1" -max_total_time="${3:-8}" -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/" "$work" "$4"
else
  NFV_FUZZ_TARGET=$2 exec "$1" -max_total_time="${3:-8}" -rss_limit_mb=4096 -print_final_stats=1
fi
