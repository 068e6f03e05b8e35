// Aho–Corasick automaton compiled to a dense DFA (one 256-entry row of next
// states per state), so scanning costs one table load per byte and the scan
// state carries across buffers (mbuf segments).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nfv {

class AhoCorasick {
 public:
  // Pattern i reports id i. Empty patterns are not allowed.
  explicit AhoCorasick(const std::vector<std::string>& patterns);

  // A scan state is a table entry: the state's row offset (state << 8) with
  // bit 0 set when patterns end there. Stepping is then one load, with no
  // multiply and no second lookup to learn whether anything matched.
  using State = uint32_t;
  static constexpr State kStart = 0;
  const State* table() const { return delta_.data(); }
  static State next(const State* table, State s, uint8_t byte) { return table[(s & ~0xffu) | byte]; }
  static bool has_matches(State s) { return s & 1u; }
  // Patterns ending at `s` (including those reached through failure links).
  const uint32_t* matches_begin(State s) const { return matches_.data() + match_begin_[s >> 8]; }
  const uint32_t* matches_end(State s) const { return matches_.data() + match_begin_[(s >> 8) + 1]; }

  size_t states() const { return match_begin_.size() - 1; }

 private:
  std::vector<State> delta_;
  std::vector<uint32_t> match_begin_;
  std::vector<uint32_t> matches_;
};

}  // namespace nfv
