// The system's one cost model: what a slot of running the geo-distributed
// system costs. The simulator, the policies and the accounting of a real run
// all price a slot through this header, so their figures compare.
//
// Four terms (docs/simulator.md):
//   operating   = sum over sites of  operating_price(site)  x instances running there in the slot
//   deployment  = sum over sites of  deployment_price(site) x instances newly started there
//   wan         = sum over links of  price_per_gb(link)     x GB carried by the link
//   sla_penalty = penalty price x (dropped + late) traffic, per GB or per packet
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "topology.h"

namespace nfv {

// How traffic that misses the SLA (dropped, or delivered later than the
// chain's SLA latency) is charged.
struct SlaPenalty {
  enum class Basis { per_gb, per_packet };
  Basis basis = Basis::per_gb;
  // Default: 10 per GB. One instance of the 500 kpps `counter` VNF serves
  // ~0.5 GB of 1024-B packets per 1-s slot at an operating price of 1, so
  // dropping that traffic costs 5 instance-slots: serving is cheaper than dropping.
  double price = 10.0;
};
std::string basis_name(SlaPenalty::Basis basis);  // "GB", "packet"
// "gb" or "packet"; throws naming the value otherwise.
SlaPenalty::Basis parse_sla_basis(const std::string& text);

struct CostBreakdown {
  double operating = 0;
  double deployment = 0;
  double wan = 0;
  double sla_penalty = 0;

  double total() const { return operating + deployment + wan + sla_penalty; }
  CostBreakdown& operator+=(const CostBreakdown& other);
};

// What one slot used: the cost model's whole input.
struct SlotUsage {
  std::vector<double> instances_per_site;  // running during the slot
  std::vector<double> started_per_site;    // newly started at its beginning
  std::vector<double> bytes_per_link;      // carried during the slot
  double dropped_packets = 0;
  double late_packets = 0;                 // delivered, but past the chain's SLA latency
};

class CostModel {
 public:
  CostModel() = default;
  // Prices from the topology (per site and per link); `mean_packet_bytes`
  // turns packets into bytes for a per-GB SLA penalty.
  CostModel(const Topology& topology, SlaPenalty sla, double mean_packet_bytes);

  double operating(std::size_t site, double instance_slots) const;
  double deployment(std::size_t site, double started_instances) const;
  double wan(std::size_t link, double bytes) const;
  double sla_penalty(double missed_packets) const;  // dropped + late
  CostBreakdown slot_cost(const SlotUsage& usage) const;

  const SlaPenalty& sla() const { return sla_; }
  double mean_packet_bytes() const { return mean_packet_bytes_; }
  std::size_t sites() const { return operating_price_.size(); }
  std::size_t links() const { return price_per_gb_.size(); }

 private:
  std::vector<double> operating_price_;
  std::vector<double> deployment_price_;
  std::vector<double> price_per_gb_;
  SlaPenalty sla_;
  double mean_packet_bytes_ = 1024;
};

}  // namespace nfv
