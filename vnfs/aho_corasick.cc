#include "aho_corasick.h"

#include <queue>
#include <stdexcept>

namespace nfv {

AhoCorasick::AhoCorasick(const std::vector<std::string>& patterns) {
  // Trie first (with -1 for missing edges), then breadth-first failure links
  // turn it into the full DFA.
  std::vector<int32_t> trie(256, -1);
  std::vector<std::vector<uint32_t>> out(1);
  for (uint32_t id = 0; id < patterns.size(); ++id) {
    if (patterns[id].empty()) throw std::invalid_argument("empty pattern");
    uint32_t s = 0;
    for (unsigned char c : patterns[id]) {
      if (trie[s * 256u + c] < 0) {
        trie[s * 256u + c] = static_cast<int32_t>(out.size());
        out.emplace_back();
        trie.resize(trie.size() + 256, -1);
      }
      s = static_cast<uint32_t>(trie[s * 256u + c]);
    }
    out[s].push_back(id);
  }
  const size_t n = out.size();
  delta_.assign(n * 256, 0);
  std::vector<uint32_t> fail(n, 0);
  std::queue<uint32_t> queue;
  for (int c = 0; c < 256; ++c) {
    const int32_t t = trie[c];
    if (t >= 0) {
      delta_[c] = static_cast<uint32_t>(t);
      queue.push(static_cast<uint32_t>(t));
    }
  }
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop();
    // A state reports its own patterns plus those of its failure state (already complete: BFS order).
    out[s].insert(out[s].end(), out[fail[s]].begin(), out[fail[s]].end());
    for (int c = 0; c < 256; ++c) {
      const int32_t t = trie[s * 256u + c];
      if (t >= 0) {
        fail[t] = delta_[fail[s] * 256u + c];
        delta_[s * 256u + c] = static_cast<uint32_t>(t);
        queue.push(static_cast<uint32_t>(t));
      } else {
        delta_[s * 256u + c] = delta_[fail[s] * 256u + c];
      }
    }
  }
  if (n > (1u << 24)) throw std::invalid_argument("too many automaton states (at most 2^24)");
  // Entries become row offsets with the match flag (see State).
  for (uint32_t& d : delta_) d = (d << 8) | (out[d].empty() ? 0u : 1u);
  match_begin_.reserve(n + 1);
  for (size_t s = 0; s < n; ++s) {
    match_begin_.push_back(static_cast<uint32_t>(matches_.size()));
    matches_.insert(matches_.end(), out[s].begin(), out[s].end());
  }
  match_begin_.push_back(static_cast<uint32_t>(matches_.size()));
}

}  // namespace nfv
