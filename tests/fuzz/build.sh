#!/bin/sh
# Builds the libFuzzer target with clang (ASan + UBSan): the VNF library's
# sources compiled in whole, so every VNF registers itself.
#   build.sh SOURCE_ROOT OUTPUT
set -e
root=$1
out=$2
exec clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Wno-deprecated-volatile $(pkg-config --cflags libdpdk) -I"$root/vnfs" \
  "$root"/vnfs/packet_parser.cc "$root"/vnfs/vnf_registry.cc "$root"/vnfs/tsc_clock.cc "$root"/vnfs/input_policy.cc "$root"/vnfs/header_mark.cc "$root"/vnfs/text_file.cc "$root"/vnfs/hash_table.cc \
  "$root"/vnfs/lb_maglev.cc "$root"/vnfs/aho_corasick.cc "$root"/vnfs/firewall.cc "$root"/vnfs/nat.cc "$root"/vnfs/lb.cc \
  "$root"/vnfs/router.cc "$root"/vnfs/ids.cc "$root"/vnfs/monitor.cc "$root"/vnfs/ratelimit.cc \
  "$root"/tests/fuzz/vnf_fuzz.cc -o "$out" $(pkg-config --libs libdpdk)
