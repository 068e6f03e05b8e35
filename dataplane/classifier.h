// Chooses the chain of a packet entering the pod from a port: the first rule
// (in chain order, then rule order) of the chains that accept the port and
// match the 5-tuple.
#pragma once

#include <vector>

#include "packet_parser.h"
#include "pod_layout.h"

namespace nfv {

class Classifier {
 public:
  explicit Classifier(const PodLayout& layout);

  // Returns the chain index, or kNoIndex when no rule matches.
  int classify(int port, const ParsedPacket& packet) const;

 private:
  struct Entry {
    CompiledRule rule;
    int chain;
  };
  std::vector<std::vector<Entry>> rules_by_port_;
};

bool rule_matches(const CompiledRule& rule, const FlowKey& key);

}  // namespace nfv
