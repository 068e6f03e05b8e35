// Three real pods, one per Abilene PoP, in a line NYCMng -> CHINng ->
// KSCYng over memif with the great-circle WAN delays x 1.3: traffic enters
// at NYCMng's port `in` (memif server DIR/in.sock) and leaves at KSCYng's
// port `out` (memif server DIR/out.sock). The tests that drive them with
// nfv-replay (and nfv-scaler) share this setup; each brings its chains.
#pragma once

#include <string>
#include <vector>

#include "pod_runner.h"

namespace nfv::test {

struct AbilenePods {
  PodRun nycm, chin, kscy;
  std::vector<PodRun*> all() { return {&nycm, &chin, &kscy}; }
};

// Writes and starts the three pods (downstream first; they wait for their
// memif peers). `chains_yaml` starts with "chains:"; `control_base` > 0
// gives the pods control APIs on ports base, base + 1, base + 2 (token "t").
// The pods run on core 0, CHINng's on `chin_lcores` if given. `control_tls`,
// a YAML mapping ("{cert: ..., key: ..., ca: ...}"), puts the control APIs
// on mutual TLS.
AbilenePods start_abilene_pods(const std::string& dir, const std::string& name_prefix, const std::string& chains_yaml,
                               const std::vector<std::string>& app_options, int control_base = 0,
                               const std::string& chin_lcores = "0", const std::string& control_tls = "");

// The same three PoPs in a triangle: NYCMng also reaches KSCYng directly
// (NYCMng -> KSCYng needs no CHINng). CHINng's pod is a memif client on both
// its links and carries none of the replay's ports, so it can be killed and
// started again on its config (dir/<prefix>chin.yaml): the servers it
// connects to take its new connections.
AbilenePods start_abilene_triangle_pods(const std::string& dir, const std::string& name_prefix,
                                        const std::string& chains_yaml, const std::vector<std::string>& app_options,
                                        int control_base);

}  // namespace nfv::test
