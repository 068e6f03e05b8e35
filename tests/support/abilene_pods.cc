#include "abilene_pods.h"

namespace nfv::test {
namespace {

constexpr const char* kSites = R"(sites:
  - {name: NYCMng, lat: 40.7833, lon: -73.9667}
  - {name: CHINng, lat: 41.8333, lon: -87.6167}
  - {name: KSCYng, lat: 38.961694, lon: -96.596704}
)";

constexpr const char* kLineLinks = R"(links:
  - {from: NYCMng, to: CHINng, route_factor: 1.3, bidirectional: true}
  - {from: CHINng, to: KSCYng, route_factor: 1.3, bidirectional: true}
)";

std::string memif(const std::string& name, const std::string& site, const std::string& peers, const std::string& role,
                  const std::string& socket) {
  return "  - {name: " + name + ", driver: memif, site: " + site + (peers.empty() ? "" : ", peer_sites: [" + peers + "]") +
         ", memif_role: " + role + ", memif_socket: " + socket + "}\n";
}

std::string head(const std::string& name, const std::string& site, int control_port, const std::string& tls = "") {
  return "name: " + name + "\nhosted_sites: [" + site + "]\n" +
         (control_port > 0 ? "control: {port: " + std::to_string(control_port) + ", token: t" + (tls.empty() ? "" : ", tls: " + tls) + "}\n"
                           : "") +
         "ports:\n";
}

}  // namespace

AbilenePods start_abilene_pods(const std::string& dir, const std::string& name_prefix, const std::string& chains_yaml,
                               const std::vector<std::string>& app_options, int control_base,
                               const std::string& chin_lcores, const std::string& control_tls) {
  const std::string shared = std::string(kSites) + kLineLinks + chains_yaml;
  const auto port = [&](int offset) { return control_base > 0 ? control_base + offset : 0; };
  const std::string nycm = head(name_prefix + "nycm", "NYCMng", port(0), control_tls) +
                           memif("in", "NYCMng", "", "server", dir + "/in.sock") +
                           memif("to_chin", "NYCMng", "CHINng, KSCYng", "client", dir + "/nycm-chin.sock") + shared;
  const std::string chin = head(name_prefix + "chin", "CHINng", port(1), control_tls) +
                           memif("from_nycm", "CHINng", "NYCMng", "server", dir + "/nycm-chin.sock") +
                           memif("to_kscy", "CHINng", "KSCYng", "client", dir + "/chin-kscy.sock") + shared;
  const std::string kscy = head(name_prefix + "kscy", "KSCYng", port(2), control_tls) +
                           memif("from_chin", "KSCYng", "CHINng", "server", dir + "/chin-kscy.sock") +
                           memif("out", "KSCYng", "", "server", dir + "/out.sock") + shared;
  // Two cores: the pods share core 0 (idle loops back off), so that the
  // generator, which the tests run on core 1, never waits for a pod: a
  // generator held off the CPU catches up with a burst that no instance
  // queue was sized for.
  AbilenePods pods;
  pods.kscy = start_pod(dir, name_prefix + "kscy", kscy, app_options, "0");
  pods.chin = start_pod(dir, name_prefix + "chin", chin, app_options, chin_lcores);
  pods.nycm = start_pod(dir, name_prefix + "nycm", nycm, app_options, "0");
  return pods;
}

AbilenePods start_abilene_triangle_pods(const std::string& dir, const std::string& name_prefix,
                                        const std::string& chains_yaml, const std::vector<std::string>& app_options,
                                        int control_base) {
  const std::string shared = std::string(kSites) + kLineLinks +
                             "  - {from: NYCMng, to: KSCYng, route_factor: 1.3, bidirectional: true}\n" + chains_yaml;
  const std::string nycm = head(name_prefix + "nycm", "NYCMng", control_base) +
                           memif("in", "NYCMng", "", "server", dir + "/in.sock") +
                           memif("from_chin", "NYCMng", "CHINng", "server", dir + "/nycm-chin.sock") +
                           memif("to_kscy", "NYCMng", "KSCYng", "client", dir + "/nycm-kscy.sock") + shared;
  const std::string chin = head(name_prefix + "chin", "CHINng", control_base + 1) +
                           memif("to_nycm", "CHINng", "NYCMng", "client", dir + "/nycm-chin.sock") +
                           memif("to_kscy", "CHINng", "KSCYng", "client", dir + "/chin-kscy.sock") + shared;
  const std::string kscy = head(name_prefix + "kscy", "KSCYng", control_base + 2) +
                           memif("from_chin", "KSCYng", "CHINng", "server", dir + "/chin-kscy.sock") +
                           memif("from_nycm", "KSCYng", "NYCMng", "server", dir + "/nycm-kscy.sock") +
                           memif("out", "KSCYng", "", "server", dir + "/out.sock") + shared;
  // Servers first (the clients wait for them); all on core 0, as above.
  AbilenePods pods;
  pods.kscy = start_pod(dir, name_prefix + "kscy", kscy, app_options, "0");
  pods.nycm = start_pod(dir, name_prefix + "nycm", nycm, app_options, "0");
  pods.chin = start_pod(dir, name_prefix + "chin", chin, app_options, "0");
  return pods;
}

}  // namespace nfv::test
