// The decentralized actor-critic with one OS process per agent
// (docs/marl.md, "Agents as processes"). Each process holds its agent's
// critic, actor and generator (the numbers row `agent` of a stacked run with
// the same seed has) and its own copy of the environment; the agents meet at
// a TCP rendezvous store (c10d TCPStore) and gossip critic parameters and TD
// errors with their graph neighbours only, point to point over c10d's Gloo
// process group. Actions go through the store (every process steps the same
// environment, so each needs the joint action). An agent that dies is
// written off after the peer timeout; the others go on over the survivors
// with re-normalized weights, and the agent, restarted, joins again from its
// last checkpoint and replays its environment to theirs.
//
// Built when the gloo headers are there (Debian: libgloo-dev); elsewhere
// these functions throw std::runtime_error saying so
// (agent_processes_available() is false). No LibTorch in this header.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "marl_environment.h"
#include "marl_settings.h"
#include "mixing_matrix.h"

namespace nfv {

using EnvironmentFactory = std::function<std::unique_ptr<MarlEnvironment>()>;

// Fault injection (tests, the bench): what happens to an agent's process.
enum class FaultKind {
  kill_mid_rollout,    // SIGKILL in the middle of the iteration's rollout
  kill_before_gossip,  // SIGKILL after its rollout, before its gossip
  stall_mid_rollout,   // stops for a while in the middle of the rollout, then goes on
};

// What every agent's process needs to find the others and to keep going.
struct AgentProcessOptions {
  std::string store_host = "127.0.0.1";  // the rendezvous store (another machine's address for a multi-machine run)
  std::uint16_t store_port = 29500;      // the launcher: 0 = any free port
  std::string listen_host = "127.0.0.1"; // the address the others reach this agent's gossip at ("": the host name's)
  std::string checkpoint_dir;            // agent-<k>.pt (checkpoint), agent-<k>.csv (per-iteration log)
  std::size_t checkpoint_every = 10;     // iterations between checkpoints
  std::chrono::milliseconds peer_timeout{10000};   // an agent silent this long is written off
  std::chrono::milliseconds start_timeout{60000};  // for every agent to come at the start, or to be admitted
  // Gossip messages as int8 with a float32 scale and error feedback
  // (peer_gossip.h): about a quarter of the bytes; no longer the stacked
  // run's numbers. Every agent of a run must agree.
  bool int8_gossip = false;
  // Fault injection, for tests and the bench: this process's fault.
  struct InjectedFault {
    std::uint64_t at = 0;
    FaultKind kind = FaultKind::kill_mid_rollout;
    std::chrono::milliseconds stall{0};
  };
  std::optional<InjectedFault> fault;
  // And for a faulty agent to be back at a known iteration: the members of
  // iteration `at` are decided once `agent` has asked to join (waiting at
  // most start_timeout).
  struct ExpectedJoin {
    std::size_t agent = 0;
    std::uint64_t at = 0;
  };
  std::optional<ExpectedJoin> expect_join;
};

// One iteration as one agent's process saw it.
struct AgentIteration {
  std::uint64_t iteration = 0;
  double team_return = 0;        // the same in every live process (the same environment)
  std::size_t live_agents = 0;   // members that gossiped this iteration
  double critic_loss = 0;        // this agent's
  std::uint64_t gossip_bytes = 0, action_bytes = 0;  // this agent's, so far
};

struct AgentProcessReport {
  std::size_t agent = 0;
  std::vector<AgentIteration> iterations;  // this life's
  GossipTraffic gossip;                    // sent by this agent, its whole run (from its checkpoint on)
  std::uint64_t action_bytes = 0;          // actions posted and read
  std::vector<std::uint64_t> joined_at;    // iterations this agent (re)joined at
};

// How a process starts: with the run, or again from its last checkpoint
// (agent-<k>.pt in checkpoint_dir; from scratch when there is none yet).
enum class AgentStart { with_the_run, from_checkpoint };

// The entry of one agent's process (what a multi-machine run starts on
// every machine, with the store served somewhere: AgentStore). Runs until
// the team reaches `iterations`, writing agent-<k>.csv and, every
// checkpoint_every iterations and at the end, agent-<k>.pt. Throws
// std::invalid_argument for a bad agent or option, std::runtime_error when
// the store or the others cannot be reached within the timeouts.
AgentProcessReport run_agent_process(const MarlSettings& settings, const MixingMatrix& graph,
                                     const EnvironmentFactory& make_environment, std::uint64_t seed,
                                     std::uint64_t iterations, std::size_t agent, const AgentProcessOptions& options,
                                     AgentStart start = AgentStart::with_the_run);

// The rendezvous store, served by this process until destroyed.
class AgentStore {
 public:
  // port 0: any free one. Throws std::runtime_error when it cannot listen.
  AgentStore(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);
  ~AgentStore();
  std::uint16_t port() const;
  // Whether the team has started iteration t.
  bool reached(std::uint64_t t) const;

 private:
  struct Server;
  std::unique_ptr<Server> server_;
};

// Agent `agent`'s fault in iteration `at`. Killed, it is started again
// from its last checkpoint and back from iteration restart_at (none:
// never); stalled for `stall` (longer than the peer timeout: written off),
// it asks to join again itself and is back by restart_at at the latest.
struct AgentFault {
  std::size_t agent = 0;
  std::uint64_t at = 0;
  std::optional<std::uint64_t> restart_at;
  FaultKind kind = FaultKind::kill_mid_rollout;
  std::chrono::milliseconds stall{0};
};

struct AgentProcessesRun {
  std::vector<double> team_return;       // per iteration (every live process sees the same)
  std::vector<std::size_t> live_agents;  // per iteration: agents that gossiped
  GossipTraffic gossip;                  // rounds: per agent; messages and bytes: all agents'
  std::uint64_t action_bytes = 0;        // the environment's traffic (actions through the store), all agents
  // Each agent's parameters from its last checkpoint: at the end, or for an
  // agent that died and stayed dead its last before; empty if it left none.
  std::vector<std::vector<float>> critic, actor;
  std::vector<AgentProcessReport> agents;         // each agent's view (its last life)
  double seconds = 0;
};

// Serves the store and forks one process per agent on this machine (and
// one more to restart the faulty agent), waits for them, and gathers what
// they wrote in options.checkpoint_dir (required). Throws
// std::runtime_error naming the agent when a process fails (other than the
// one killed on purpose), or when the run takes longer than `limit`.
AgentProcessesRun run_agent_processes(const MarlSettings& settings, const MixingMatrix& graph,
                                      const EnvironmentFactory& make_environment, std::uint64_t seed,
                                      std::uint64_t iterations, AgentProcessOptions options,
                                      std::optional<AgentFault> fault = std::nullopt,
                                      std::chrono::seconds limit = std::chrono::seconds(600));

// Agent `agent`'s file in the checkpoint folder: agent-<agent><suffix>.
std::string agent_file(const std::string& dir, std::size_t agent, const char* suffix);

// Whether this build has the processes mode (the gloo headers were found).
bool agent_processes_available();

}  // namespace nfv
