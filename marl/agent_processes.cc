// One machine's run of agents as processes (agent_processes.h): serve the
// store, fork one process per agent (and a spare that restarts the faulty
// one), supervise them with a bound, and read back what they wrote.
// Every fork happens before the store (and its thread) exists: the
// children are copies of a single-threaded process.
#include "agent_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "decentralized_actor_critic.h"
#include "gossip.h"

namespace nfv {

struct AgentStore::Server {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

AgentStore::AgentStore(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout)
    : server_(std::make_unique<Server>()) {
  c10d::TCPStoreOptions options;
  options.port = port;
  options.isServer = true;
  options.waitWorkers = false;
  options.timeout = timeout;
  try {
    server_->store = c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& e) {
    throw std::runtime_error("marl: cannot serve the agents' store on " + host + ":" + std::to_string(port) + ": " + e.what());
  }
}

AgentStore::~AgentStore() = default;
std::uint16_t AgentStore::port() const { return server_->store->getPort(); }
bool AgentStore::reached(std::uint64_t t) const { return server_->store->check({"members/" + std::to_string(t)}); }

bool agent_processes_available() { return true; }

namespace {

struct Child {
  std::size_t agent = 0;
  pid_t pid = -1;
  int to_child = -1;       // the store's port goes down this pipe when the child may start
  bool restart = false;    // the spare that restarts the faulty agent
  bool running = true;
  int status = 0;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One agent's process: waits for the port (or end of file: not needed), runs, exits.
[[noreturn]] void agent_child(int from_parent, const MarlSettings& settings, const MixingMatrix& graph,
                              const EnvironmentFactory& make_environment, std::uint64_t seed, std::uint64_t iterations,
                              std::size_t agent, AgentProcessOptions options, AgentStart start) {
  std::uint16_t port = 0;
  if (read(from_parent, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) _exit(0);
  close(from_parent);
  options.store_port = port;
  try {
    set_marl_threads(1);
    run_agent_process(settings, graph, make_environment, seed, iterations, agent, options, start);
  } catch (const std::exception& e) {
    std::ofstream(agent_file(options.checkpoint_dir, agent, ".error")) << e.what() << '\n';
    _exit(1);
  }
  _exit(0);  // no destructors: the store client's and Gloo's threads end with the process
}

std::vector<AgentIteration> read_log(const std::string& path) {
  std::vector<AgentIteration> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    AgentIteration row;
    char comma = 0;
    std::istringstream fields(line);
    if (fields >> row.iteration >> comma >> row.team_return >> comma >> row.live_agents >> comma >> row.critic_loss >> comma >>
        row.gossip_bytes >> comma >> row.action_bytes)
      out.push_back(row);
  }
  return out;
}

}  // namespace

AgentProcessesRun run_agent_processes(const MarlSettings& settings, const MixingMatrix& graph,
                                      const EnvironmentFactory& make_environment, std::uint64_t seed,
                                      std::uint64_t iterations, AgentProcessOptions options, std::optional<AgentFault> fault,
                                      std::chrono::seconds limit) {
  const std::size_t n = graph.agents();
  validate(settings);
  if (options.checkpoint_dir.empty()) throw std::invalid_argument("marl: checkpoint_dir: the agents need a folder");
  if (fault && fault->agent >= n)
    throw std::invalid_argument("marl: fault: agent " + std::to_string(fault->agent) + " of " + std::to_string(n));
  if (fault && fault->restart_at && *fault->restart_at <= fault->at)
    throw std::invalid_argument("marl: fault: restart_at " + std::to_string(*fault->restart_at) + " is not after the fault's iteration " +
                                std::to_string(fault->at));
  const bool kills = fault && fault->kind != FaultKind::stall_mid_rollout;
  if (const auto env = make_environment(); !env || env->agents() != n)
    throw std::invalid_argument("marl: the environment factory made " + std::string(env ? std::to_string(env->agents()) : "no") +
                                " agents' environment for a graph of " + std::to_string(n));
  std::filesystem::create_directories(options.checkpoint_dir);
  for (std::size_t k = 0; k < n; ++k)
    for (const char* suffix : {".pt", ".csv", ".error"}) std::filesystem::remove(agent_file(options.checkpoint_dir, k, suffix));

  const auto began = std::chrono::steady_clock::now();
  std::vector<Child> children;
  const auto spawn = [&](std::size_t agent, bool restart) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("marl: pipe failed");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("marl: fork failed");
    if (pid == 0) {
      close(fds[1]);
      AgentProcessOptions mine = options;
      if (!restart && fault && fault->agent == agent)
        mine.fault = AgentProcessOptions::InjectedFault{fault->at, fault->kind, fault->stall};
      if (fault && fault->restart_at) mine.expect_join = AgentProcessOptions::ExpectedJoin{fault->agent, *fault->restart_at};
      agent_child(fds[0], settings, graph, make_environment, seed, iterations, agent, mine,
                  restart ? AgentStart::from_checkpoint : AgentStart::with_the_run);
    }
    close(fds[0]);
    children.push_back({agent, pid, fds[1], restart});
  };
  for (std::size_t k = 0; k < n; ++k) spawn(k, false);
  if (kills && fault->restart_at) spawn(fault->agent, true);

  const auto stop_all = [&] {
    for (Child& c : children)
      if (c.running) kill(c.pid, SIGKILL), waitpid(c.pid, &c.status, 0), c.running = false;
  };
  const auto go = [](Child& c, std::uint16_t port) {
    if (c.to_child < 0) return;
    if (write(c.to_child, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) {}  // a dead child is seen by waitpid
    close(c.to_child);
    c.to_child = -1;
  };
  std::unique_ptr<AgentStore> store;
  try {
    store = std::make_unique<AgentStore>(options.store_host, options.store_port, options.start_timeout);
  } catch (...) {
    stop_all();
    throw;
  }
  for (Child& c : children)
    if (!c.restart) go(c, store->port());

  // Supervise: restart when the team gets there; every process ends, or the limit.
  for (;;) {
    bool running = false;
    for (Child& c : children) {
      if (c.running && waitpid(c.pid, &c.status, WNOHANG) == c.pid) c.running = false;
      // Started once iteration restart_at - 1 is under way, it asks to join in time for restart_at.
      if (c.restart && c.to_child >= 0 && store->reached(*fault->restart_at - 1)) go(c, store->port());
      running = running || (c.running && c.to_child < 0);
    }
    if (!running) {  // a spare the team never needed: end of file on its pipe, and it exits
      for (Child& c : children)
        if (c.to_child >= 0) close(c.to_child), c.to_child = -1;
      for (Child& c : children)
        if (c.running) waitpid(c.pid, &c.status, 0), c.running = false;
      break;
    }
    if (std::chrono::steady_clock::now() - began > limit) {
      stop_all();
      throw std::runtime_error("marl: the agents' processes did not finish within " + std::to_string(limit.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const Child& c : children) {
    const bool killed_on_purpose = kills && !c.restart && c.agent == fault->agent && WIFSIGNALED(c.status) &&
                                   WTERMSIG(c.status) == SIGKILL;
    if (killed_on_purpose || (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)) continue;
    const std::string error = read_text(agent_file(options.checkpoint_dir, c.agent, ".error"));
    throw std::runtime_error("marl: agent " + std::to_string(c.agent) + "'s process " +
                             (WIFSIGNALED(c.status) ? "was killed by signal " + std::to_string(WTERMSIG(c.status))
                                                    : "failed: " + (error.empty() ? "exit status " + std::to_string(WEXITSTATUS(c.status)) : error)));
  }

  AgentProcessesRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  run.team_return.assign(iterations, 0.0);
  run.live_agents.assign(iterations, 0);
  std::vector<bool> seen(iterations, false);
  const std::unique_ptr<MarlEnvironment> env = make_environment();
  for (std::size_t k = 0; k < n; ++k) {
    AgentProcessReport report;
    report.agent = k;
    report.iterations = read_log(agent_file(options.checkpoint_dir, k, ".csv"));
    for (const AgentIteration& row : report.iterations)
      if (row.iteration < iterations && !seen[row.iteration]) {
        seen[row.iteration] = true;
        run.team_return[row.iteration] = row.team_return;
        run.live_agents[row.iteration] = row.live_agents;
      }
    const std::string checkpoint = agent_file(options.checkpoint_dir, k, ".pt");
    run.critic.emplace_back();
    run.actor.emplace_back();
    if (std::filesystem::exists(checkpoint)) {  // none: it died before its first
      const auto learner = DecentralizedActorCritic::load_agent(checkpoint, graph, *env, std::make_unique<Gossip>(graph, torch::kCPU));
      run.critic.back() = learner->critic_parameters(k);
      run.actor.back() = learner->actor_parameters(k);
      report.gossip = learner->traffic();
    }
    if (!report.iterations.empty()) report.action_bytes = report.iterations.back().action_bytes;
    run.gossip.rounds = std::max(run.gossip.rounds, report.gossip.rounds);
    run.gossip.messages += report.gossip.messages;
    run.gossip.bytes += report.gossip.bytes;
    run.action_bytes += report.action_bytes;
    run.agents.push_back(std::move(report));
  }
  return run;
}

}  // namespace nfv
