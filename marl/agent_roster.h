// Who is in the team at each iteration when agents run as processes
// (agent_processes.h), agreed through the rendezvous store: every agent
// proposes the members of iteration t (the last members less those found
// dead, plus those asking to join) and the first proposal stored wins, so
// every agent uses the same members. An agent found dead is marked per
// incarnation (its life since it last started or joined), so a restarted
// agent is a new incarnation and can be admitted again.
// Store keys: members/<t>, dead/<agent>:<incarnation>, join/<agent>,
// admitted/<agent>:<incarnation>, incarnation/<agent>.
// Included only by the module's c10d sources.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "bounded_poll.h"

namespace nfv {

struct Member {
  std::size_t agent = 0;
  std::uint64_t incarnation = 0;  // 0: started with the run; then 1, 2, ... per (re)join
  bool operator==(const Member&) const = default;
};

// Bytes <-> text for store values.
std::vector<std::uint8_t> store_bytes(const std::string& text);
std::string store_text(const std::vector<std::uint8_t>& bytes);

class AgentRoster {
 public:
  AgentRoster(c10d::Store& store, std::size_t agents, std::size_t self);

  // Every agent, incarnation 0: the members at the start.
  std::vector<Member> everyone() const;
  // The members of iteration t (stored by the first proposer). With
  // `awaited`, a proposal first waits (at most `limit`) for that agent to ask to join.
  std::vector<Member> members(std::uint64_t t, const std::vector<Member>& previous,
                              std::optional<std::size_t> awaited = std::nullopt,
                              std::chrono::milliseconds limit = std::chrono::milliseconds(0));
  // The members of an iteration already decided (a joiner reads its first).
  std::vector<Member> decided(std::uint64_t t, std::chrono::milliseconds limit);
  // Records `member` dead as found at iteration t.
  void mark_dead(const Member& member, std::uint64_t t);
  // Members of iteration t that joined since `previous`: tells them where they start.
  void admit(std::uint64_t t, const std::vector<Member>& members, const std::vector<Member>& previous);

  // A new life for this agent: asks to join, and waits (at most `limit`)
  // for the iteration it is admitted at. Throws std::runtime_error on the limit.
  Member join(std::chrono::milliseconds limit, std::uint64_t& admitted_at);

 private:
  std::string dead_key(const Member& m) const;
  c10d::Store& store_;
  std::size_t agents_, self_;
};

std::string to_string(const std::vector<Member>& members);
std::vector<Member> members_from(const std::string& text);
bool holds(const std::vector<Member>& members, std::size_t agent);

}  // namespace nfv
