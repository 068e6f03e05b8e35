#include "scaler_cases.h"

namespace nfv::test {

std::string source_path(const std::string& relative) { return std::string(NFV_SOURCE_ROOT) + "/" + relative; }

Topology two_sites(double service_pps, double sla_ms) {
  Topology t;
  t.name = "two";
  t.sites.push_back(Site{"A", 40.0, -74.0, 16, 2.0, 7.0});
  t.sites.push_back(Site{"B", 41.8, -87.6, 16, 3.0, 11.0});
  t.add_link(0, 1, 10.0);
  t.links[0].price_per_gb = 0.05;
  t.vnf_types.push_back(VnfProfile{"fw", service_pps, 1, 256});
  t.chains.push_back(Chain{"web", 0, 1, {0}, sla_ms});
  return t;
}

Plan one_pool(std::uint32_t site, std::int32_t instances) { return Plan{{PoolPlan{0, 0, site, instances, 1.0}}}; }

SimSettings sim_settings(double packet_bytes, double queue_packets) {
  SimSettings s;
  s.scale.slot_wall_seconds = 1;
  s.scale.mean_packet_bytes = packet_bytes;
  s.queue_packets_per_instance = queue_packets;
  return s;
}

Scenario abilene_scenario(double volume_scale, std::uint32_t site_capacity, const std::string& vnfs) {
  ScenarioOptions options;
  options.topology = source_path("topologies/data/abilene.yaml");
  options.sim.scale.volume_scale = volume_scale;
  options.site_capacity = site_capacity;
  options.vnfs = vnfs;
  return load_scenario(options);
}

std::shared_ptr<const SystemModel> ring_chains_model(const std::string& topology_file, std::size_t chains_per_site) {
  Topology topology = load_topology_yaml(source_path(topology_file));
  topology.chains.clear();
  if (topology.vnf_types.empty()) topology.vnf_types.push_back(VnfProfile{"counter", 500000, 1, 256});
  const std::size_t n = topology.sites.size();
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t k = 1; k <= chains_per_site; ++k) {
      Chain chain{topology.sites[s].name + "-" + std::to_string(k), s, (s + k) % n, {0}, 60};
      if (k % 2 == 0) chain.vnfs.push_back(0);
      topology.chains.push_back(chain);
    }
  return std::make_shared<const SystemModel>(topology, SimSettings{});
}

}  // namespace nfv::test
