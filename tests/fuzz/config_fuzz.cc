// libFuzzer target over what geo-NFV reads from outside (clang, ASan +
// UBSan). NFV_FUZZ_TARGET picks one reader:
//   control        a byte stream of control API frames, read as the pod's
//                  server reads requests and as nfvctl reads answers
//   pod_config     a pod's YAML (dataplane/config_loader.h)
//   scaler_config  nfv-scaler's YAML (scaler/service/scaler_setup.h)
//   replay_config  nfv-replay's YAML (traces/replay/replay_config.h)
//   plan           a plan file against the demo topology (scaler/plan_file.h)
//   trace_csv      a rate trace CSV (traces/rate_trace.h)
//   sndlib         an SNDlib XML network (topologies/topology.h)
//   graphml        a Topology Zoo GraphML network
// Bad input must end in a std::exception with a message; anything else (a
// crash, a sanitizer report, a foreign exception, an empty message) is a
// finding. Paths in inputs are read relative to the source tree, so the
// seeds (tests/fuzz/corpus/TARGET) can name deploy/demo's files.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "config_loader.h"
#include "control_decode.h"
#include "control_frame.h"
#include "plan_file.h"
#include "rate_trace.h"
#include "scaler_setup.h"
#include "topology.h"

using Reader = std::function<void(const std::string& text)>;
void nfv_fuzz_replay_config(const std::string& text);  // replay_fuzz.cc

namespace {

Reader g_reader;
std::optional<nfv::Topology> g_demo;  // the plan target's topology
std::string g_scratch;                // the file the path-only readers open

// The frames of `text` as the pod's control server takes them: a header, a
// length under the limit, a body that parses as a request naming an
// operation; the first bad frame ends the connection. Each body is read as
// an answer too, as nfvctl would.
void read_frames(const std::string& text) {
  constexpr uint32_t kLimit = 4096;  // small, so lengths around it are reached
  std::size_t at = 0;
  while (text.size() - at >= nfv::kFrameHeaderBytes) {
    const uint32_t length = nfv::frame_length(reinterpret_cast<const unsigned char*>(text.data() + at));
    at += nfv::kFrameHeaderBytes;
    const std::string length_error = nfv::frame_length_error(length, kLimit);
    if (!length_error.empty()) {
      if (length != 0 && length <= kLimit) std::abort();  // a length the server takes was refused
      return;
    }
    if (length > text.size() - at) return;  // a truncated frame
    nfv::control::Request request;
    const std::string error = nfv::decode_request(text.data() + at, length, request);
    if (error.empty()) {
      // What was accepted names an operation and survives a round trip.
      if (request.kind_case() == nfv::control::Request::KIND_NOT_SET) std::abort();
      nfv::control::Request again;
      const std::string bytes = request.SerializeAsString();
      if (!nfv::decode_request(bytes.data(), bytes.size(), again).empty()) std::abort();
    }
    nfv::control::Response response;
    (void)nfv::decode_response(text.data() + at, length, response);
    if (!error.empty()) return;
    at += length;
  }
}

// For the readers that take a path: the input goes to a scratch file first.
Reader from_file(std::function<void(const std::string& path)> read) {
  return [read](const std::string& text) {
    {
      std::ofstream out(g_scratch, std::ios::binary | std::ios::trunc);
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    read(g_scratch);
  };
}

std::map<std::string, Reader> readers() {
  return {
      // replay_config.h and plan.h each name a ChainTraffic: its reader has its own file.
      {"replay_config", nfv_fuzz_replay_config},
      {"control", read_frames},
      {"pod_config", [](const std::string& t) { (void)nfv::parse_pod_config(t, "fuzz.yaml"); }},
      {"scaler_config", [](const std::string& t) { (void)nfv::parse_scaler_setup(t, "fuzz.yaml"); }},
      {"plan", [](const std::string& t) { (void)nfv::parse_plan_file(t, "fuzz.yaml", *g_demo); }},
      {"trace_csv", from_file([](const std::string& p) { (void)nfv::read_rate_trace_csv(p); })},
      {"sndlib", from_file([](const std::string& p) { (void)nfv::import_sndlib_xml(p); })},
      {"graphml", from_file([](const std::string& p) { (void)nfv::import_zoo_graphml(p); })},
  };
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (chdir(NFV_SOURCE_ROOT) != 0) {
    std::fprintf(stderr, "cannot enter the source tree %s\n", NFV_SOURCE_ROOT);
    std::exit(1);
  }
  const char* env = std::getenv("NFV_FUZZ_TARGET");
  const std::string target = env ? env : "control";
  auto all = readers();
  auto it = all.find(target);
  if (it == all.end()) {
    std::fprintf(stderr, "NFV_FUZZ_TARGET: unknown target '%s'\n", target.c_str());
    std::exit(1);
  }
  g_reader = it->second;
  g_demo = nfv::load_topology_yaml("deploy/demo/topology.yaml");
  // In memory where there is /dev/shm: a file on disk per input is most of the time.
  const char* tmp = std::getenv("TMPDIR");
  g_scratch = std::string(tmp ? tmp : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/nfv_fuzz_" + target + "_" + std::to_string(getpid());
  std::atexit([] { unlink(g_scratch.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    g_reader(text);
  } catch (const std::exception& e) {
    // NFV_FUZZ_SHOW_ERRORS=1 with -runs=0 over a corpus shows what each input is told.
    static const bool show = std::getenv("NFV_FUZZ_SHOW_ERRORS") != nullptr;
    if (show) std::fprintf(stderr, "error: %s\n", e.what());
    if (e.what()[0] == '\0') {
      std::fprintf(stderr, "an error without a message\n");
      std::abort();
    }
  }
  // Anything else thrown reaches libFuzzer as a crash: a finding.
  return 0;
}
