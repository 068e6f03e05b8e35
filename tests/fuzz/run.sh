#!/bin/sh
# Runs the libFuzzer target for a bounded time on one VNF (or the parser).
#   run.sh FUZZER TARGET [SECONDS]
set -e
NFV_FUZZ_TARGET=$2 exec "$1" -max_total_time="${3:-8}" -rss_limit_mb=4096 -print_final_stats=1
