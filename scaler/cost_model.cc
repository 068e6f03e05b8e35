#include "cost_model.h"

#include <stdexcept>

namespace nfv {
namespace {
constexpr double kBytesPerGb = 1e9;  // cloud WAN prices are per decimal GB
}

std::string basis_name(SlaPenalty::Basis basis) { return basis == SlaPenalty::Basis::per_gb ? "GB" : "packet"; }

SlaPenalty::Basis parse_sla_basis(const std::string& text) {
  if (text == "gb" || text == "GB") return SlaPenalty::Basis::per_gb;
  if (text == "packet") return SlaPenalty::Basis::per_packet;
  throw std::invalid_argument("sla penalty basis: expected 'gb' or 'packet', got '" + text + "'");
}

CostBreakdown& CostBreakdown::operator+=(const CostBreakdown& other) {
  operating += other.operating;
  deployment += other.deployment;
  wan += other.wan;
  sla_penalty += other.sla_penalty;
  return *this;
}

CostModel::CostModel(const Topology& topology, SlaPenalty sla, double mean_packet_bytes)
    : sla_(sla), mean_packet_bytes_(mean_packet_bytes) {
  if (!(mean_packet_bytes > 0)) throw std::invalid_argument("cost model: mean_packet_bytes: expected > 0");
  if (!(sla.price >= 0)) throw std::invalid_argument("cost model: sla penalty price: expected >= 0");
  for (const Site& site : topology.sites) {
    operating_price_.push_back(site.operating_price);
    deployment_price_.push_back(site.deployment_price);
  }
  for (const Link& link : topology.links) price_per_gb_.push_back(link.price_per_gb);
}

double CostModel::operating(std::size_t site, double instance_slots) const {
  return operating_price_[site] * instance_slots;
}

double CostModel::deployment(std::size_t site, double started_instances) const {
  return deployment_price_[site] * started_instances;
}

double CostModel::wan(std::size_t link, double bytes) const { return price_per_gb_[link] * bytes / kBytesPerGb; }

double CostModel::sla_penalty(double missed_packets) const {
  const double units = sla_.basis == SlaPenalty::Basis::per_gb ? missed_packets * mean_packet_bytes_ / kBytesPerGb
                                                                : missed_packets;
  return sla_.price * units;
}

CostBreakdown CostModel::slot_cost(const SlotUsage& usage) const {
  if (usage.instances_per_site.size() != sites() || usage.started_per_site.size() != sites() ||
      usage.bytes_per_link.size() != links())
    throw std::invalid_argument("slot_cost: usage has " + std::to_string(usage.instances_per_site.size()) + "/" +
                                std::to_string(usage.started_per_site.size()) + " site and " +
                                std::to_string(usage.bytes_per_link.size()) + " link entries, the topology " +
                                std::to_string(sites()) + " sites and " + std::to_string(links()) + " links");
  CostBreakdown cost;
  for (std::size_t s = 0; s < sites(); ++s) {
    cost.operating += operating(s, usage.instances_per_site[s]);
    cost.deployment += deployment(s, usage.started_per_site[s]);
  }
  for (std::size_t l = 0; l < links(); ++l) cost.wan += wan(l, usage.bytes_per_link[l]);
  cost.sla_penalty = sla_penalty(usage.dropped_packets + usage.late_packets);
  return cost;
}

}  // namespace nfv
