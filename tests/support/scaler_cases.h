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

}  // namespace nfv::test
