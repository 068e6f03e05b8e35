#!/bin/sh
# Builds the readers' libFuzzer target (config_fuzz.cc) with clang (ASan +
# UBSan): the readers' sources and what they call compiled in whole, with
# the protobuf messages meson generated under BUILD_ROOT/proto.
#   build_config.sh SOURCE_ROOT BUILD_ROOT OUTPUT
set -e
root=$1
build=$2
out=$3
objs=$out.objs
mkdir -p "$objs"
flags="-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -Wno-deprecated-volatile
  -DNFV_SOURCE_ROOT=\"$root\" $(pkg-config --cflags libdpdk protobuf yaml-cpp fmt pugixml)
  -I$build/proto -I$root/proto -I$root/dataplane -I$root/vnfs -I$root/topologies -I$root/traces -I$root/traces/replay
  -I$root/scaler -I$root/scaler/service -I$root/predictor -I$root/controlplane"
sources="tests/fuzz/config_fuzz.cc tests/fuzz/replay_fuzz.cc
  proto/control_decode.cc proto/yaml_message.cc
  dataplane/config_loader.cc dataplane/pod_layout.cc dataplane/port_set.cc
  scaler/service/scaler_setup.cc scaler/plan_file.cc scaler/plan.cc scaler/plan_validation.cc scaler/calibration.cc
  scaler/scenario.cc scaler/system_model.cc scaler/arrival_schedule.cc scaler/forecaster.cc
  traces/replay/replay_config.cc traces/trace_csv.cc traces/rate_trace.cc traces/iso_time.cc traces/emulation_scale.cc
  traces/option_values.cc traces/od_traffic.cc traces/trace_generators.cc traces/trace_split.cc traces/nasa_requests.cc
  scaler/cost_model.cc predictor/predictor_registry.cc predictor/rate_forecast.cc predictor/baselines.cc predictor/holt_winters.cc
  vnfs/vnf_registry.cc vnfs/packet_parser.cc vnfs/input_policy.cc vnfs/header_mark.cc vnfs/text_file.cc vnfs/hash_table.cc
  vnfs/lb_maglev.cc vnfs/aho_corasick.cc vnfs/firewall.cc vnfs/nat.cc vnfs/lb.cc vnfs/router.cc vnfs/ids.cc vnfs/monitor.cc
  vnfs/ratelimit.cc vnfs/tsc_clock.cc
  topologies/csv_table.cc topologies/geo_distance.cc topologies/topology.cc topologies/topology_yaml.cc
  topologies/sndlib_import.cc topologies/zoo_import.cc"
generated="control pod_stats pod_config plan scaler topology replay_config calibration"
inputs=$(for s in $sources; do echo "$root/$s"; done; for g in $generated; do echo "$build/proto/$g.pb.cc"; done)
headers="$build/proto $root/proto $root/controlplane $root/dataplane $root/vnfs $root/topologies $root/traces $root/scaler $root/predictor"
# Two compilers at a time (the machine's cores). An object is kept while it
# is newer than its source and than every header it may include.
echo "$inputs" | xargs -P 2 -I{} sh -c '
  o="$1/$(echo "$2" | tr / _).o"
  [ "$o" -nt "$2" ] && [ -z "$(find $4 -name "*.h" -newer "$o" -print -quit)" ] && exit 0
  clang++ $3 -c "$2" -o "$o"' _ "$objs" {} "$flags" "$headers"
# This build's objects only: the folder may hold others' (another build folder, a source since renamed).
exec clang++ -fsanitize=fuzzer,address,undefined $(for i in $inputs; do echo "$objs/$(echo "$i" | tr / _).o"; done) -o "$out" \
  $(pkg-config --libs libdpdk protobuf yaml-cpp fmt pugixml)
