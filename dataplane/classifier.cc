#include "classifier.h"

#include <cstring>

namespace nfv {
namespace {

void words(const std::array<uint8_t, 16>& bytes, uint64_t out[2]) { std::memcpy(out, bytes.data(), 16); }

bool prefix_matches(const uint64_t prefix[2], const uint64_t mask[2], const uint8_t* addr) {
  uint64_t a[2];
  std::memcpy(a, addr, 16);
  return ((a[0] & mask[0]) == prefix[0]) & ((a[1] & mask[1]) == prefix[1]);
}

}  // namespace

bool Classifier::Entry::matches(const FlowKey& key) const {
  if (key.family == AddressFamily::kIpv4) return matches_ipv4(Ipv4Tuple::of(key));
  if (family && family != static_cast<uint8_t>(key.family)) return false;
  if (protocol >= 0 && protocol != key.protocol) return false;
  if (key.src_port < src_port_lo || key.src_port > src_port_hi) return false;
  if (key.dst_port < dst_port_lo || key.dst_port > dst_port_hi) return false;
  return prefix_matches(src, src_mask, key.src_addr) && prefix_matches(dst, dst_mask, key.dst_addr);
}

Classifier::Entry Classifier::compile(const CompiledRule& rule, int chain) {
  Entry e{};
  words(rule.src, e.src);
  words(rule.src_mask, e.src_mask);
  words(rule.dst, e.dst);
  words(rule.dst_mask, e.dst_mask);
  std::memcpy(&e.src4, rule.src.data(), 4);
  std::memcpy(&e.src4_mask, rule.src_mask.data(), 4);
  std::memcpy(&e.dst4, rule.dst.data(), 4);
  std::memcpy(&e.dst4_mask, rule.dst_mask.data(), 4);
  e.src_port_lo = rule.src_port_lo;
  e.src_port_hi = rule.src_port_hi;
  e.dst_port_lo = rule.dst_port_lo;
  e.dst_port_hi = rule.dst_port_hi;
  e.protocol = static_cast<int16_t>(rule.protocol);
  e.family = rule.family;
  e.chain = chain;
  return e;
}

bool rule_matches(const CompiledRule& rule, const FlowKey& key) { return Classifier::compile(rule, 0).matches(key); }

Classifier::Classifier(const PodLayout& layout) : rules_by_port_(layout.ports.size()) {
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    const auto& chain = layout.chains[c];
    for (int port : chain.ingress_ports)
      for (const auto& rule : chain.rules) rules_by_port_[port].push_back(compile(rule, static_cast<int>(c)));
  }
}

}  // namespace nfv
