// The agents' sampled actions when they run as processes: every process
// steps its own copy of the environment, so each step every agent posts its
// actions to the rendezvous store and reads the other members'. An agent
// that posts nothing within the peer timeout is written off for that step
// with a compare-and-set of a tombstone, so every survivor reads the same
// joint action: the agent's own, or the environment's idle action for it
// (MarlEnvironment::idle_action) from that step on. The joint actions of
// every iteration are kept (joint/<t>) for an agent that joins later to
// replay its environment to the others'. Counted apart from gossip: this
// is the environment's traffic. Store keys: act/<t>/<step>/<agent>, joint/<t>.
// Included only by the module's c10d sources.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "agent_roster.h"

namespace nfv {

// This agent was written off by the others (it was too slow, or came back
// from a stall): it has to join again.
struct WrittenOff : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ActionBoard {
 public:
  ActionBoard(c10d::Store& store, std::size_t agents, std::size_t self, std::int64_t idle_action,
              std::chrono::milliseconds peer_timeout);

  // A new iteration among `members`: steps count from 0, nobody written off yet.
  void begin(std::uint64_t t, const std::vector<Member>& members);
  // This agent's actions [copies] -> the joint actions [copies x agents].
  // Throws WrittenOff when the others wrote this agent off.
  std::vector<std::int64_t> exchange(const std::vector<std::int64_t>& own, std::size_t copies);
  // Members written off during this iteration.
  const std::vector<Member>& written_off() const { return written_off_; }

  // The iteration's joint actions, [(H+1) x copies x agents], kept for joiners.
  void keep_joint(std::uint64_t t, const std::vector<std::int64_t>& joint);
  // Iteration t's joint actions as kept; waits at most `limit`.
  std::vector<std::int64_t> joint_of(std::uint64_t t, std::chrono::milliseconds limit);

  std::uint64_t bytes() const { return bytes_; }  // posted and read
  void set_bytes(std::uint64_t bytes) { bytes_ = bytes; }

 private:
  c10d::Store& store_;
  std::size_t agents_, self_;
  std::int64_t idle_;
  std::chrono::milliseconds timeout_;
  std::uint64_t t_ = 0, step_ = 0, bytes_ = 0;
  std::vector<Member> members_, written_off_;
};

}  // namespace nfv
