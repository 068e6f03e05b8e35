// The life of one agent's process (agent_processes.h): meet the others at
// the store, then per iteration agree on the members, roll out the
// environment with everyone's actions, write off those that went silent,
// regroup the gossip over the survivors and update; checkpoint as it goes.
// Written off (or restarted), it joins again and replays its environment
// from the joint actions the store kept.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "action_board.h"
#include "agent_links.h"
#include "agent_processes.h"
#include "agent_roster.h"
#include "decentralized_actor_critic.h"
#include "peer_gossip.h"

namespace nfv {

namespace {

// The links of an agent alone in its process: its gossip with its
// neighbours, the others' actions through the store.
class PeerLinks : public AgentLinks {
 public:
  PeerLinks(PeerGossip& gossip, ActionBoard& board) : gossip_(gossip), board_(board) {}
  torch::Tensor mix(const torch::Tensor& rows, std::size_t rounds, GossipKind kind) override {
    if (before_gossip_) before_gossip_();
    return gossip_.mix(rows, rounds, kind);
  }
  std::vector<std::int64_t> joint_actions(const std::vector<std::int64_t>& held, std::size_t copies) override {
    if (before_step_) before_step_(step_);
    ++step_;
    return board_.exchange(held, copies);
  }
  void set_matrix(const MixingMatrix&) override {
    throw std::logic_error("marl: an agent's process regroups its gossip over the survivors itself");
  }
  const GossipTraffic& traffic() const override { return gossip_.traffic(); }
  void set_traffic(const GossipTraffic& traffic) override { gossip_.set_traffic(traffic); }
  // A new iteration; `before_step` (may be empty) runs before each step's
  // exchange of actions, `before_gossip` before each gossip.
  void begin(std::function<void(std::size_t)> before_step, std::function<void()> before_gossip) {
    step_ = 0;
    before_step_ = std::move(before_step);
    before_gossip_ = std::move(before_gossip);
  }

 private:
  PeerGossip& gossip_;
  ActionBoard& board_;
  std::size_t step_ = 0;
  std::function<void(std::size_t)> before_step_;
  std::function<void()> before_gossip_;
};

// The survivors' weights: over the part of the graph among `alive` that
// reaches `self` (a graph cut in two gossips within each part).
MixingMatrix weights_over(const MixingMatrix& graph, const std::vector<bool>& alive, std::size_t self) {
  std::vector<bool> reached(alive.size(), false);
  std::vector<std::size_t> stack{self};
  reached[self] = true;
  while (!stack.empty()) {
    const std::size_t at = stack.back();
    stack.pop_back();
    for (const auto& [i, j] : graph.edges()) {
      const std::size_t other = i == at ? j : j == at ? i : at;
      if (other != at && alive[other] && !reached[other]) reached[other] = true, stack.push_back(other);
    }
  }
  return graph.over_survivors(reached);
}

std::vector<std::size_t> live_agents(const MixingMatrix& weights) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < weights.agents(); ++i)
    if (weights.alive()[i]) out.push_back(i);
  return out;
}

// The environment through one kept iteration: the same resets and steps.
void replay(MarlEnvironment& env, const std::vector<std::int64_t>& joint) {
  const std::size_t copies = env.copies(), agents = env.agents();
  if (joint.size() != (env.episode_length() + 1) * copies * agents)
    throw std::runtime_error("marl store: kept joint actions of another shape than this environment's");
  std::vector<float> states(copies * env.state_size()), rewards(copies * agents);
  env.reset(states);
  for (std::size_t h = 0; h < env.episode_length(); ++h)
    env.step(std::span<const std::int64_t>(joint).subspan(h * copies * agents, copies * agents), states, rewards);
}

}  // namespace

std::string agent_file(const std::string& dir, std::size_t agent, const char* suffix) {
  return (std::filesystem::path(dir) / ("agent-" + std::to_string(agent) + suffix)).string();
}

AgentProcessReport run_agent_process(const MarlSettings& settings, const MixingMatrix& graph,
                                     const EnvironmentFactory& make_environment, std::uint64_t seed,
                                     std::uint64_t iterations, std::size_t agent, const AgentProcessOptions& options,
                                     AgentStart start) {
  const std::size_t n = graph.agents();
  if (agent >= n) throw std::invalid_argument("marl: agent " + std::to_string(agent) + ": the graph has " + std::to_string(n) + " agents");
  if (options.checkpoint_dir.empty()) throw std::invalid_argument("marl: checkpoint_dir: each agent needs a folder for its checkpoints");
  if (options.checkpoint_every == 0) throw std::invalid_argument("marl: checkpoint_every: expected at least 1");
  std::filesystem::create_directories(options.checkpoint_dir);
  std::unique_ptr<MarlEnvironment> env = make_environment();
  if (!env || env->agents() != n)
    throw std::invalid_argument("marl: the environment factory made " + std::string(env ? std::to_string(env->agents()) : "no") +
                                " agents' environment for a graph of " + std::to_string(n));

  c10d::TCPStoreOptions store_options;
  store_options.port = options.store_port;
  store_options.waitWorkers = false;
  store_options.timeout = options.start_timeout;  // connecting retries this long
  c10::intrusive_ptr<c10d::TCPStore> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(options.store_host, store_options);
  } catch (const std::exception& e) {
    throw std::runtime_error("marl: agent " + std::to_string(agent) + " cannot reach the store at " + options.store_host + ":" +
                             std::to_string(options.store_port) + " within " + std::to_string(options.start_timeout.count()) +
                             " ms: " + e.what());
  }
  store->setTimeout(options.peer_timeout);

  AgentRoster roster(*store, n, agent);
  ActionBoard board(*store, n, agent, env->idle_action(), options.peer_timeout);
  PeerGossip gossip(store, agent, options.listen_host, options.peer_timeout, options.int8_gossip);
  auto owned_links = std::make_unique<PeerLinks>(gossip, board);
  PeerLinks& links = *owned_links;
  const std::string checkpoint = agent_file(options.checkpoint_dir, agent, ".pt");
  const bool resume = start == AgentStart::from_checkpoint && std::filesystem::exists(checkpoint);
  std::unique_ptr<DecentralizedActorCritic> learner =
      resume ? DecentralizedActorCritic::load_agent(checkpoint, graph, *env, std::move(owned_links))
             : std::make_unique<DecentralizedActorCritic>(settings, graph, *env, seed, agent, std::move(owned_links));
  const std::string log_path = agent_file(options.checkpoint_dir, agent, ".csv");
  const bool new_log = start == AgentStart::with_the_run || !std::filesystem::exists(log_path);
  std::ofstream log(log_path, new_log ? std::ios::trunc : std::ios::app);
  log.precision(17);  // doubles back exactly
  if (new_log) log << "iteration,team_return,live_agents,critic_loss,gossip_bytes,action_bytes\n";

  AgentProcessReport report;
  report.agent = agent;
  Member me{agent, 0};
  std::uint64_t t = 0;
  std::vector<Member> previous = roster.everyone();
  std::vector<std::size_t> group;  // who the gossip group was made over
  // Joins (again): admitted at some iteration, the environment replayed to it.
  const auto join = [&] {
    std::uint64_t at = 0;
    me = roster.join(options.start_timeout, at);
    env = make_environment();
    for (std::uint64_t u = 0; u < at; ++u) replay(*env, board.joint_of(u, options.start_timeout));
    t = at;
    previous = roster.decided(at, options.start_timeout);
    group.clear();  // the others made new groups meanwhile
    report.joined_at.push_back(at);
  };
  if (start == AgentStart::from_checkpoint) {
    join();
  } else {
    // Everyone at the start line before the first step's actions are waited for.
    store->add("started", 1);
    poll_until(options.start_timeout, [&] { return store->add("started", 0) >= static_cast<std::int64_t>(n); });
  }

  while (t < iterations) {
    const bool awaits = options.expect_join && options.expect_join->at == t && options.expect_join->agent != agent;
    const std::vector<Member> members = roster.members(
        t, previous, awaits ? std::optional<std::size_t>(options.expect_join->agent) : std::nullopt, options.start_timeout);
    if (std::find(members.begin(), members.end(), me) == members.end()) {
      join();  // written off by the others
      continue;
    }
    roster.admit(t, members, previous);
    board.begin(t, members);
    // Fault injection: SIGKILL, as abrupt as a crash; or a stall, as of a
    // process the machine stopped scheduling.
    const std::size_t middle = (env->episode_length() + 1) / 2;
    const auto* fault = options.fault && options.fault->at == t ? &*options.fault : nullptr;
    std::function<void(std::size_t)> mid_rollout;
    if (fault && fault->kind == FaultKind::kill_mid_rollout)
      mid_rollout = [middle](std::size_t step) { if (step == middle) std::raise(SIGKILL); };
    if (fault && fault->kind == FaultKind::stall_mid_rollout)
      mid_rollout = [middle, stall = fault->stall](std::size_t step) { if (step == middle) std::this_thread::sleep_for(stall); };
    links.begin(mid_rollout, fault && fault->kind == FaultKind::kill_before_gossip ? std::function<void()>([] { std::raise(SIGKILL); })
                                                                                  : nullptr);
    Rollout rollout;
    try {
      rollout = learner->collect(*env);
    } catch (const WrittenOff&) {
      join();
      continue;
    }
    board.keep_joint(t, rollout.joint);

    std::vector<bool> alive(n, false);
    for (const Member& m : members) alive[m.agent] = true;
    for (const Member& m : board.written_off()) {
      alive[m.agent] = false;
      roster.mark_dead(m, t);
    }
    const MixingMatrix weights = weights_over(graph, alive, agent);
    const std::vector<std::size_t> live = live_agents(weights);
    if (live != group) group = gossip.regroup("gossip/" + std::to_string(t) + "/" + std::to_string(live.front()), weights)
                                   ? live
                                   : std::vector<std::size_t>{};
    const IterationStats stats = learner->update(rollout);
    for (std::size_t j : gossip.take_lost())
      for (const Member& m : members)
        if (m.agent == j) roster.mark_dead(m, t);

    const AgentIteration row{t, stats.team_return, live.size(), stats.critic_loss, learner->traffic().bytes, board.bytes()};
    report.iterations.push_back(row);
    log << row.iteration << ',' << row.team_return << ',' << row.live_agents << ',' << row.critic_loss << ','
        << row.gossip_bytes << ',' << row.action_bytes << '\n'
        << std::flush;
    previous = members;
    ++t;
    if (t % options.checkpoint_every == 0 || t == iterations) learner->save(checkpoint);
  }
  report.gossip = learner->traffic();
  report.action_bytes = board.bytes();
  return report;
}

}  // namespace nfv
