// Systems and traffic the scaler's tests share: a two-site topology small
// enough to check by hand, and the real ones (Abilene with its April
// matrices, B4, GEANT) through the same scenario loader the tools use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "plan.h"
#include "scenario.h"
#include "system_model.h"
#include "topology.h"

namespace nfv::test {

// A file of the source tree (topologies/data/...).
std::string source_path(const std::string& relative);

// Sites A and B joined by one link of 10 ms, one VNF type "fw" of
// `service_pps`, one chain "web" A -> B through one hop of it.
Topology two_sites(double service_pps, double sla_ms = 50);
// One pool of chain 0's hop 0 at `site`, with all the traffic.
Plan one_pool(std::uint32_t site, std::int32_t instances);
SimSettings sim_settings(double packet_bytes, double queue_packets);

// Abilene and its April OD matrices (the default trace), chains through
// `vnfs`, traffic x `volume_scale`, every site hosting `site_capacity`.
Scenario abilene_scenario(double volume_scale, std::uint32_t site_capacity = 64, const std::string& vnfs = "counter");

// A topology file's sites with `chains_per_site` chains from each site to
// the next ones (one hop, every second chain two), of a 500 kpps `counter`
// VNF when the file has no VNF types: systems of any size without a trace.
std::shared_ptr<const SystemModel> ring_chains_model(const std::string& topology_file, std::size_t chains_per_site);

}  // namespace nfv::test
