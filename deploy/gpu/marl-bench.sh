#!/usr/bin/env bash
# marl/ on a GPU machine in one short slot (docs/marl.md, "On a GPU"):
# LibTorch from the pip-installed torch, no DPDK, libpcap, Ipopt, CBC or
# pugixml. Configures a build folder with those left out, builds only marl/,
# its tests and bench/marl_iteration, runs the static-update test, the
# benchmark (CPU on every core vs CUDA, stacked vs looped, update() vs static
# buffers vs the CUDA graph, in one run), the marl tests, and the benchmark
# again with one TD step per iteration if time is left. Each phase
# has a time cap and the whole run stays under NFV_GPU_BUDGET_S (285 s): a
# phase that fails or runs out is reported and the next ones go on where they
# can. When the CUDA-graph part does not build, it is built again without it
# (and, if torch came through CMake, with torch's folder as a prefix); when
# the benchmark fails with it, it runs again without it.
#
#   deploy/gpu/marl-bench.sh [BUILD_DIR (default build-gpu)] [-- marl_iteration options]
#
# Results (logs, summary.txt, marl_iteration.csv) go to $OUT when set, else
# BUILD_DIR/marl-bench. Where torch comes from: python3's torch
# (torch.utils.cmake_prefix_path through meson's CMake method, else the
# package folder as a prefix); NFV_TORCH_CMAKE_PREFIX and NFV_TORCH_DIR
# override what python3 says; NFV_GPU_TORCH=prefix skips CMake,
# NFV_GPU_TORCH=system takes Debian's libtorch (to try the script on a
# machine without a GPU). NFV_GPU_BUILD_S and NFV_GPU_BENCH_S change those
# phases' caps.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build-gpu"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then BUILD="$(realpath -m "$1")"; shift; fi
[ "${1:-}" = "--" ] && shift
BENCH_ARGS=("$@")
PY="${PYTHON:-python3}"
BUDGET="${NFV_GPU_BUDGET_S:-285}"
JOBS="${NFV_GPU_JOBS:-$(nproc)}"
RESULTS="${OUT:-$BUILD/marl-bench}"
mkdir -p "$RESULTS"
SUMMARY="$RESULTS/summary.txt"
: > "$SUMMARY"
START=$SECONDS

note() { echo "== $*" | tee -a "$SUMMARY"; }

# phase NAME CAP_S COMMAND...: COMMAND for at most CAP_S seconds (and what is
# left of the budget), its output in RESULTS/NAME.log and here.
phase() {
  local name="$1" cap="$2" left t0 status
  shift 2
  left=$((BUDGET - (SECONDS - START)))
  [ "$cap" -gt "$left" ] && cap=$left
  if [ "$cap" -lt 5 ]; then
    note "$name: skipped, the budget is spent"
    return 124
  fi
  t0=$SECONDS
  timeout --kill-after=5 "$cap" "$@" 2>&1 | tee "$RESULTS/$name.log"
  status=${PIPESTATUS[0]}
  if [ "$status" -eq 0 ]; then note "$name: ok ($((SECONDS - t0)) s)"
  elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then note "$name: stopped at its cap of $cap s"
  else note "$name: failed with status $status ($((SECONDS - t0)) s; $RESULTS/$name.log)"
  fi
  return "$status"
}

# --- What the machine has -----------------------------------------------
torch_info() {
  "$PY" - <<'EOF'
import os
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
print("cmake_prefix", torch.utils.cmake_prefix_path)
print("package", os.path.dirname(torch.__file__))
print("cxx11_abi", int(torch.compiled_with_cxx11_abi()))
EOF
}

# The CUDA runtime's headers (cuda_runtime_api.h), which LibTorch's CUDA
# headers include: a toolkit, or pip's nvidia wheels next to torch.
cuda_include() {
  local d f
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-13* /usr/local/cuda-1*; do
    [ -n "$d" ] && [ -f "$d/include/cuda_runtime_api.h" ] && { echo "$d/include"; return; }
  done
  [ -f /usr/include/cuda_runtime_api.h ] && return  # already on the compiler's path
  for d in $("$PY" -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null); do
    f="$(find "$d" -name cuda_runtime_api.h -path '*include*' 2>/dev/null | head -1)"
    [ -n "$f" ] && { dirname "$f"; return; }
  done
}

machine() {
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "no nvidia-smi"
  echo "cores $(nproc)"
  g++ --version | head -1
  echo "meson $(meson --version), ninja $(ninja --version), $(cmake --version 2>/dev/null | head -1)"
  torch_info || echo "python3 has no torch"
}
export -f machine torch_info
export PY
phase machine 30 bash -c machine

TORCH_MODE="${NFV_GPU_TORCH:-python}"
CMAKE_PREFIX="${NFV_TORCH_CMAKE_PREFIX:-$(sed -n 's/^cmake_prefix //p' "$RESULTS/machine.log")}"
TORCH_DIR="${NFV_TORCH_DIR:-$(sed -n 's/^package //p' "$RESULTS/machine.log")}"
if [ "$TORCH_MODE" != system ] && [ -z "$CMAKE_PREFIX$TORCH_DIR" ]; then
  note "no torch from python3: Debian's libtorch (system) instead"
  TORCH_MODE=system
fi
if grep -q '^cxx11_abi 0' "$RESULTS/machine.log"; then
  note "this torch was built with the old C++ ABI; marl/ needs the CXX11 one (torch >= 2.7 wheels have it)"
  exit 1
fi
CUDA_INCLUDE="$(cuda_include)"
note "torch: $TORCH_MODE; cmake prefix '${CMAKE_PREFIX}'; package '${TORCH_DIR}'; CUDA headers '${CUDA_INCLUDE:-none found}'"

# --- Configure: the optional packages off, torch as found -----------------
# Every option that a fallback changes is given again: meson setup --wipe
# keeps the options of the set-up before.
OPTIONS=(-Dbuildtype=release -Db_lto=false -Dtests=true -Dmarl_cuda_graphs=auto
  -Ddpdk=disabled -Dpcap=disabled -Dipopt=disabled -Dcbc=disabled -Dpugixml=disabled
  -Dmarl_processes=disabled  # a system gloo would not match the pip torch's own
  "-Dcpp_args=${CUDA_INCLUDE:+-isystem$CUDA_INCLUDE}")

# configure NAME TORCH_OPTIONS...: meson sets the folder up (afresh over
# an earlier try) as phase NAME.
configure() {
  local name="$1" wipe=()
  shift
  if [ -f "$BUILD/build.ninja" ]; then wipe=(--wipe)
  else rm -rf "$BUILD/meson-private"  # a failed set-up's leftovers, which --wipe refuses
  fi
  phase "$name" 60 meson setup "${wipe[@]}" "$BUILD" "$ROOT" "${OPTIONS[@]}" "$@"
}

TORCH_BY=$TORCH_MODE  # how the configured folder found torch
if [ "$TORCH_MODE" = system ]; then
  configure configure -Dtorch=system
elif [ "$TORCH_MODE" = prefix ]; then
  configure configure -Dtorch=prefix "-Dtorch_prefix=$TORCH_DIR"
elif configure configure -Dtorch=cmake "-Dcmake_prefix_path=$CMAKE_PREFIX"; then
  TORCH_BY=cmake
elif [ -n "$TORCH_DIR" ]; then
  TORCH_BY=prefix
  configure configure_prefix -Dtorch=prefix "-Dtorch_prefix=$TORCH_DIR"
fi
[ -f "$BUILD/build.ninja" ] || { note "no build folder configured: stopping"; exit 1; }
graphs_built() { grep -q 'captured_update' "$BUILD/build.ninja"; }
if graphs_built; then note "CUDA graphs: built"; else note "CUDA graphs: not built (the configure log's 'Optional parts' says why)"; fi

# --- Build marl/ and its programs only ---------------------------------------
# On failure: again without the CUDA-graph update; then, if torch came
# through CMake, with torch's folder as a prefix (with, then without graphs).
TARGETS=(tests/marl_static_update_tests bench/marl_iteration tests/marl_tests)
build() { phase "$1" "${NFV_GPU_BUILD_S:-150}" ninja -C "$BUILD" -j"$JOBS" "${TARGETS[@]}"; }
without_graphs() {
  graphs_built || return 1
  note "building again without the CUDA-graph update"
  phase "reconfigure_$1" 30 meson configure "$BUILD" -Dmarl_cuda_graphs=disabled && build "$1"
}
if ! build build && ! without_graphs build_without_graphs && [ "$TORCH_BY" = cmake ] && [ -n "$TORCH_DIR" ]; then
  note "building again with torch's folder as a prefix instead of CMake"
  phase reconfigure_prefix 30 meson configure "$BUILD" -Dtorch=prefix "-Dtorch_prefix=$TORCH_DIR" -Dmarl_cuda_graphs=auto &&
    { build build_prefix || without_graphs build_prefix_without_graphs; }
fi

# --- Run: the static path's test, the benchmark, the marl tests ---------------
[ -x "$BUILD/tests/marl_static_update_tests" ] && phase test_static_update 30 "$BUILD/tests/marl_static_update_tests"
if [ -x "$BUILD/bench/marl_iteration" ]; then
  if ! phase bench "${NFV_GPU_BENCH_S:-100}" "$BUILD/bench/marl_iteration" --check --rounds 3 --seconds 1 --out "$RESULTS" "${BENCH_ARGS[@]}" &&
    graphs_built; then
    phase bench_without_graph "${NFV_GPU_BENCH_S:-100}" "$BUILD/bench/marl_iteration" --no-graph --check --rounds 3 --seconds 1 --out "$RESULTS" \
      "${BENCH_ARGS[@]}"
  fi
fi
[ -x "$BUILD/tests/marl_tests" ] && phase test_marl 90 meson test -C "$BUILD" --no-rebuild --print-errorlogs marl marl_static_update
# With what is left: the same with one TD step (K = 1), where launches
# weigh more against the arithmetic.
if [ -x "$BUILD/bench/marl_iteration" ]; then
  NO_GRAPH=()
  [ -f "$RESULTS/bench_without_graph.log" ] && NO_GRAPH=(--no-graph)
  phase bench_k1 60 "$BUILD/bench/marl_iteration" "${NO_GRAPH[@]}" --critic-steps 1 --rounds 3 --seconds 1 \
    --out "$RESULTS/k1" "${BENCH_ARGS[@]}"
fi

# --- What came out -----------------------------------------------------------
for log in "$RESULTS/bench.log" "$RESULTS/bench_without_graph.log" "$RESULTS/bench_k1.log"; do
  [ -f "$log" ] || continue
  echo "-- $(basename "$log" .log)" >> "$SUMMARY"
  grep -E '^(marl_iteration:|check|cpu |cuda |stacked|cuda over|static|graph|best|one iteration)' "$log" >> "$SUMMARY"
done
note "total $((SECONDS - START)) s; results in $RESULTS"
