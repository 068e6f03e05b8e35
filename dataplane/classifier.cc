#include "classifier.h"

#include <algorithm>

namespace nfv {
namespace {

bool prefix_matches(const std::array<uint8_t, 16>& prefix, const std::array<uint8_t, 16>& mask, const uint8_t* addr) {
  for (int i = 0; i < 16; ++i)
    if ((addr[i] & mask[i]) != prefix[i]) return false;
  return true;
}

}  // namespace

bool rule_matches(const CompiledRule& rule, const FlowKey& key) {
  if (rule.family && rule.family != static_cast<uint8_t>(key.family)) return false;
  if (rule.protocol >= 0 && rule.protocol != key.protocol) return false;
  if (key.src_port < rule.src_port_lo || key.src_port > rule.src_port_hi) return false;
  if (key.dst_port < rule.dst_port_lo || key.dst_port > rule.dst_port_hi) return false;
  return prefix_matches(rule.src, rule.src_mask, key.src_addr) && prefix_matches(rule.dst, rule.dst_mask, key.dst_addr);
}

Classifier::Classifier(const PodLayout& layout) : rules_by_port_(layout.ports.size()) {
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    const auto& chain = layout.chains[c];
    for (int port : chain.ingress_ports)
      for (const auto& rule : chain.rules) rules_by_port_[port].push_back(Entry{rule, static_cast<int>(c)});
  }
}

int Classifier::classify(int port, const ParsedPacket& packet) const {
  for (const auto& entry : rules_by_port_[port])
    if (rule_matches(entry.rule, packet.key)) return entry.chain;
  return kNoIndex;
}

}  // namespace nfv
