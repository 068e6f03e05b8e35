// The VNF configurations the bench runs: every VNF type with the params of
// its bench case, and the 4-VNF chain firewall (1,000 rules) -> nat -> lb ->
// router (10,000 routes). vnf_throughput runs them in process and in
// nfv-pod; lean_chain --vnfs runs the chain's four back to back.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace nfv::bench {

struct VnfCase {
  std::string name;  // VNF type
  std::map<std::string, std::string> params;
  std::string label = name;  // in the bench's tables
};

// Writes the router's routes file into `dir` (the bench's two prefixes;
// the 10,000 random routes come from the router's random_routes).
inline std::vector<VnfCase> vnf_cases(const std::string& dir) {
  std::ofstream(dir + "/bench_routes.txt") << "198.19.0.0/16 02:00:00:00:00:01\n10.10.0.0/16 02:00:00:00:00:02\n";
  return {
      {"forward", {}},
      {"firewall", {{"random_rules", "1000"}, {"default", "allow"}}},
      {"nat", {{"external", "203.0.113.1,203.0.113.2,203.0.113.3,203.0.113.4"}, {"internal", "198.18.0.0/16"}}},
      {"lb", {{"services", "198.19.0.1:9000/udp=10.10.0.1:9000,10.10.0.2:9000*2,10.10.0.3:9000"}}},
      {"router", {{"routes_file", dir + "/bench_routes.txt"}, {"random_routes", "10000"}}},
      {"ids", {{"random_signatures", "1000"}}},
      {"monitor", {}},
      {"ratelimit", {{"per", "flow"}, {"cir", "100000000000"}, {"cbs", "100000000"}, {"ebs", "100000000"}}},
      // What rte_acl costs per packet when no flow's answer is cached.
      {"firewall", {{"random_rules", "1000"}, {"default", "allow"}, {"flow_cache", "0"}}, "fw, no cache"},
  };
}

// Firewall, nat, lb, router: the chain the target is about.
inline std::vector<VnfCase> chain_cases(const std::vector<VnfCase>& all) { return {all[1], all[2], all[3], all[4]}; }

}  // namespace nfv::bench
