// The decentralized actor-critic with one OS process per agent
// (marl/agent_processes.h): for the same seed the processes give the
// stacked run's parameters, return and gossip traffic; an agent killed in
// the middle of training does not stop the others, who go on over the
// survivors, and restarted from its checkpoint it joins again and its
// critic comes back to the others'; killed before its gossip, its
// neighbours drop it; a graph cut in two goes on in each part; stalled
// past the timeout, an agent joins again by itself; the per-agent entry
// with a store served apart; int8 gossip's bytes and agreement; bad input
// is named; a build without the gloo headers says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "agent_processes.h"
#include "decentralized_actor_critic.h"
#include "matrix_game.h"
#include "simple_spread.h"

namespace nfv {
namespace {

MarlSettings small_settings() {
  return {.critic_width = 16, .critic_depth = 2, .actor_width = 16, .actor_depth = 1, .critic_steps = 3,
          .critic_step = 0.05, .actor_step = 0.1, .gamma = 0.5};
}

AgentProcessOptions local_options(const std::string& name) {
  AgentProcessOptions options;
  options.store_port = 0;
  options.checkpoint_dir = ::testing::TempDir() + name;
  options.peer_timeout = std::chrono::milliseconds(4000);  // long enough that a busy machine writes off nobody by mistake
  options.start_timeout = std::chrono::milliseconds(20000);
  options.checkpoint_every = 4;
  return options;
}

// Simple Spread with fixed landmarks, 4 copies: one environment per process.
EnvironmentFactory spread(std::size_t agents, std::uint64_t seed) {
  return [=] {
    return std::make_unique<SimpleSpread>(SimpleSpreadSettings{.agents = agents, .copies = 4, .fixed_landmarks = true}, seed);
  };
}

// A run of `graph.agents()` Simple Spread agents through `fault`.
AgentProcessesRun run_through(const MixingMatrix& graph, std::uint64_t seed, std::uint64_t iterations, const std::string& name,
                              const AgentFault& fault) {
  set_marl_threads(1);
  return run_agent_processes(small_settings(), graph, spread(graph.agents(), seed), seed, iterations, local_options(name), fault);
}

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double most = 0;
  for (std::size_t k = 0; k < a.size(); ++k) most = std::max(most, static_cast<double>(std::abs(a[k] - b[k])));
  return most;
}

// The same seed, stacked and as processes: every agent's parameters, the
// returns and the gossip traffic. Bit for bit: each process runs its agent's
// row of the stacked math with the same LibTorch calls (a gossip round is
// the same [N, N] x [N, P] product, the rows of non-neighbours zero), one
// LibTorch thread each.
void expect_processes_equal_stacked(const EnvironmentFactory& make, const MixingMatrix& graph, std::uint64_t seed,
                                    std::uint64_t iterations, const std::string& name) {
  set_marl_threads(1);
  const auto env = make();
  DecentralizedActorCritic stacked(small_settings(), graph, *env, seed);
  std::vector<double> returns;
  for (std::uint64_t it = 0; it < iterations; ++it) returns.push_back(stacked.iterate(*env).team_return);

  const AgentProcessesRun run = run_agent_processes(small_settings(), graph, make, seed, iterations, local_options(name));
  ASSERT_EQ(run.critic.size(), graph.agents());
  for (std::size_t agent = 0; agent < graph.agents(); ++agent) {
    EXPECT_EQ(run.critic[agent], stacked.critic_parameters(agent)) << name << ": agent " << agent << "'s critic";
    EXPECT_EQ(run.actor[agent], stacked.actor_parameters(agent)) << name << ": agent " << agent << "'s actor";
  }
  for (std::uint64_t it = 0; it < iterations; ++it) {
    EXPECT_EQ(run.team_return[it], returns[it]) << name << ": iteration " << it;
    EXPECT_EQ(run.live_agents[it], graph.agents());
  }
  EXPECT_EQ(run.gossip.rounds, stacked.traffic().rounds);
  EXPECT_EQ(run.gossip.messages, stacked.traffic().messages) << "one message per directed edge per round";
  EXPECT_EQ(run.gossip.bytes, stacked.traffic().bytes);
  EXPECT_GT(run.action_bytes, 0U);
}

TEST(AgentsAsProcesses, GiveTheStackedRunsParametersForTheSameSeed) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  expect_processes_equal_stacked(
      [] { return std::make_unique<MatrixGame>(std::vector<std::vector<double>>{{1.0, 0.0, 0.0}, {0.0, 0.6, 0.0}, {0.0, 0.0, 0.3}},
                                               std::vector<double>{2.0, 0.0}, 8); },
      MixingMatrix::complete(2), 7, 6, "marl_processes_game");
  // Three agents on a path: agents 0 and 2 never talk to each other.
  expect_processes_equal_stacked(
      spread(3, 11),
      MixingMatrix::path(3), 5, 4, "marl_processes_spread");
}

TEST(AgentsAsProcesses, AKilledAgentRejoinsFromItsCheckpointAndCatchesUp) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  const std::uint64_t iterations = 30;
  const AgentFault fault{.agent = 2, .at = 9, .restart_at = 16};
  const AgentProcessesRun run = run_through(MixingMatrix::ring(4), 3, iterations, "marl_processes_fault", fault);

  // The run finished, every iteration with a return.
  ASSERT_EQ(run.team_return.size(), iterations);
  for (std::uint64_t it = 0; it < iterations; ++it) EXPECT_TRUE(std::isfinite(run.team_return[it])) << it;
  // Four agents before the kill, three while agent 2 was down, four again at the end.
  EXPECT_EQ(run.live_agents[fault.at - 1], 4U);
  EXPECT_EQ(run.live_agents[fault.at], 3U);
  EXPECT_EQ(run.live_agents[*fault.restart_at - 1], 3U);
  for (std::uint64_t it = *fault.restart_at; it < iterations; ++it) EXPECT_EQ(run.live_agents[it], 4U) << "iteration " << it;
  // The survivors kept gossiping while it was down (over the path 3-0-1 the ring left).
  const AgentProcessReport& survivor = run.agents[0];
  const auto at = [&](std::uint64_t it) {
    return *std::find_if(survivor.iterations.begin(), survivor.iterations.end(), [&](const AgentIteration& r) { return r.iteration == it; });
  };
  EXPECT_GT(at(*fault.restart_at - 1).gossip_bytes, at(fault.at).gossip_bytes);
  // It joined again after its restart, and went on to the end.
  const AgentProcessReport& rejoined = run.agents[fault.agent];
  ASSERT_FALSE(rejoined.iterations.empty());
  EXPECT_EQ(rejoined.iterations.back().iteration, iterations - 1);
  const auto first_back = std::find_if(rejoined.iterations.begin(), rejoined.iterations.end(),
                                       [&](const AgentIteration& r) { return r.iteration >= fault.at; });
  ASSERT_NE(first_back, rejoined.iterations.end());
  EXPECT_EQ(first_back->iteration, *fault.restart_at);
  // Its critic caught up: as close to its neighbours' as theirs are to each other.
  const double rejoined_gap = largest_difference(run.critic[2], run.critic[1]);
  const double survivors_gap = largest_difference(run.critic[0], run.critic[1]);
  EXPECT_LT(rejoined_gap, 3 * survivors_gap + 1e-3) << "rejoined " << rejoined_gap << ", survivors " << survivors_gap;
}

// The per-agent entry, as each machine of a multi-machine run starts it,
// with the store served apart (threads stand for the machines here): the
// same returns and traffic as the stacked run.
TEST(AgentsAsProcesses, TheAgentEntryRunsWithAStoreServedElsewhere) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  set_marl_threads(1);
  const MixingMatrix graph = MixingMatrix::path(3);
  const std::uint64_t iterations = 4;
  const auto env = spread(3, 12)();
  DecentralizedActorCritic stacked(small_settings(), graph, *env, 12);
  std::vector<double> returns;
  for (std::uint64_t it = 0; it < iterations; ++it) returns.push_back(stacked.iterate(*env).team_return);

  AgentStore store("127.0.0.1", 0, std::chrono::seconds(20));
  AgentProcessOptions options = local_options("marl_processes_entry");
  options.store_port = store.port();
  std::vector<AgentProcessReport> reports(3);
  std::vector<std::string> errors(3);
  std::vector<std::thread> machines;
  for (std::size_t agent = 0; agent < 3; ++agent)
    machines.emplace_back([&, agent] {
      try {
        reports[agent] = run_agent_process(small_settings(), graph, spread(3, 12), 12, iterations, agent, options);
      } catch (const std::exception& e) {
        errors[agent] = e.what();
      }
    });
  for (std::thread& machine : machines) machine.join();
  GossipTraffic total;
  for (std::size_t agent = 0; agent < 3; ++agent) {
    ASSERT_EQ(errors[agent], "") << "agent " << agent;
    ASSERT_EQ(reports[agent].iterations.size(), iterations);
    for (std::uint64_t it = 0; it < iterations; ++it) EXPECT_EQ(reports[agent].iterations[it].team_return, returns[it]);
    total.messages += reports[agent].gossip.messages;
    total.bytes += reports[agent].gossip.bytes;
  }
  EXPECT_EQ(total.messages, stacked.traffic().messages);
  EXPECT_EQ(total.bytes, stacked.traffic().bytes);
  EXPECT_TRUE(store.reached(iterations - 1));
}

// Killed after its actions, before its messages: its neighbours lose it in
// the middle of the gossip, and the others go on without it.
TEST(AgentsAsProcesses, AnAgentThatDiesInItsGossipIsDroppedAndTheOthersGoOn) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  const std::uint64_t iterations = 12;
  const AgentProcessesRun run = run_through(MixingMatrix::ring(4), 5, iterations, "marl_processes_gossip_fault",
                                            AgentFault{.agent = 3, .at = 5, .kind = FaultKind::kill_before_gossip});
  EXPECT_EQ(run.live_agents[4], 4U);
  for (std::uint64_t it = 6; it < iterations; ++it) EXPECT_EQ(run.live_agents[it], 3U) << "iteration " << it;
  // Its neighbours 0 and 2 go on gossiping with agent 1, now their only neighbour.
  for (std::size_t agent : {0, 2}) {
    const std::vector<AgentIteration>& rows = run.agents[agent].iterations;
    ASSERT_EQ(rows.size(), iterations);
    EXPECT_GT(rows.back().gossip_bytes, rows[6].gossip_bytes) << "agent " << agent;
  }
  EXPECT_LT(run.agents[3].iterations.size(), 6U);
}

// An agent that stalls past the peer timeout is written off; when it wakes
// it finds out, asks to join again with the networks it has, and goes on.
TEST(AgentsAsProcesses, AStalledAgentIsWrittenOffAndJoinsAgainByItself) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  const std::uint64_t iterations = 12;
  const AgentFault fault{.agent = 1, .at = 4, .restart_at = 8, .kind = FaultKind::stall_mid_rollout,
                         .stall = std::chrono::milliseconds(5000)};  // the peer timeout and a second
  const AgentProcessesRun run = run_through(MixingMatrix::ring(4), 4, iterations, "marl_processes_stall", fault);
  EXPECT_EQ(run.live_agents[3], 4U);
  EXPECT_EQ(run.live_agents[4], 3U);
  EXPECT_EQ(run.live_agents[iterations - 1], 4U);
  // Its own log: up to the stall, a gap, then back by restart_at and on to the end.
  const std::vector<AgentIteration>& rows = run.agents[1].iterations;
  ASSERT_GE(rows.size(), 5U);
  EXPECT_EQ(rows[3].iteration, 3U);
  EXPECT_GT(rows[4].iteration, 4U);
  EXPECT_LE(rows[4].iteration, *fault.restart_at);
  EXPECT_EQ(rows.back().iteration, iterations - 1);
}

// The middle of a path dies: the two ends can no longer reach each other,
// and each goes on alone rather than stopping.
TEST(AgentsAsProcesses, AGraphCutInTwoGoesOnInEachPart) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  const std::uint64_t iterations = 8;
  const AgentProcessesRun run =
      // Its restart is due after the end: the spare process is never needed, and the run still ends.
      run_through(MixingMatrix::path(3), 8, iterations, "marl_processes_cut", AgentFault{.agent = 1, .at = 3, .restart_at = 50});
  EXPECT_EQ(run.live_agents[2], 3U);
  for (std::size_t agent : {0, 2}) {
    const std::vector<AgentIteration>& rows = run.agents[agent].iterations;
    ASSERT_EQ(rows.size(), iterations) << "agent " << agent;
    EXPECT_EQ(rows.back().live_agents, 1U) << "agent " << agent << " gossips with its part of the graph: itself";
    EXPECT_EQ(rows.back().gossip_bytes, rows[3].gossip_bytes) << "alone, agent " << agent << " sends nothing";
    EXPECT_TRUE(std::isfinite(rows.back().team_return));
  }
}

// int8 messages with error feedback: a quarter of the bytes (plus the
// scale), and the critics still agree to within the rounding.
TEST(AgentsAsProcesses, Int8GossipSendsAQuarterOfTheBytesAndTheCriticsStillAgree) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  set_marl_threads(1);
  const MixingMatrix graph = MixingMatrix::complete(3);
  AgentProcessOptions options = local_options("marl_processes_float");
  const AgentProcessesRun exact = run_agent_processes(small_settings(), graph, spread(3, 9), 9, 10, options);
  options = local_options("marl_processes_int8");
  options.int8_gossip = true;
  const AgentProcessesRun int8 = run_agent_processes(small_settings(), graph, spread(3, 9), 9, 10, options);
  EXPECT_EQ(int8.gossip.messages, exact.gossip.messages);
  const double ratio = static_cast<double>(int8.gossip.bytes) / static_cast<double>(exact.gossip.bytes);
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.26);
  // On a triangle one exact round averages: the critics are equal; with int8, apart by the rounding.
  double largest = 0, apart = 0;
  for (float w : exact.critic[0]) largest = std::max(largest, static_cast<double>(std::abs(w)));
  for (std::size_t agent = 1; agent < 3; ++agent) {
    EXPECT_LT(largest_difference(exact.critic[agent], exact.critic[0]), 1e-5);
    apart = std::max(apart, largest_difference(int8.critic[agent], int8.critic[0]));
  }
  EXPECT_GT(apart, 0.0);
  EXPECT_LT(apart, largest / 127) << "largest parameter " << largest;
}

TEST(AgentsAsProcesses, BadInputIsNamed) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without the gloo headers";
  const EnvironmentFactory make = [] { return std::make_unique<SimpleSpread>(SimpleSpreadSettings{.copies = 2}, 1); };
  const auto error_of = [&](auto call) {
    try {
      call();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  AgentProcessOptions options = local_options("marl_processes_bad");
  EXPECT_NE(error_of([&] { run_agent_process(small_settings(), MixingMatrix::ring(3), make, 1, 1, 3, options); }).find("agent 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              run_agent_processes(small_settings(), MixingMatrix::ring(3), make, 1, 5, options, AgentFault{.agent = 1, .at = 3, .restart_at = 2});
            }).find("restart_at"),
            std::string::npos);
  EXPECT_NE(error_of([&] { run_agent_processes(small_settings(), MixingMatrix::ring(4), make, 1, 5, options); }).find("factory"),
            std::string::npos);
  AgentProcessOptions nobody = options;  // no store there
  nobody.store_port = 1;
  nobody.start_timeout = std::chrono::milliseconds(300);
  EXPECT_NE(error_of([&] { run_agent_process(small_settings(), MixingMatrix::ring(3), make, 1, 1, 0, nobody); })
                .find("cannot reach the store at 127.0.0.1:1"),
            std::string::npos);
  options.checkpoint_dir.clear();
  EXPECT_NE(error_of([&] { run_agent_processes(small_settings(), MixingMatrix::ring(3), make, 1, 5, options); }).find("checkpoint_dir"),
            std::string::npos);
}

// A build without the gloo headers says what is missing when asked.
TEST(AgentsAsProcesses, ABuildWithoutGlooSaysWhatIsMissing) {
  if (agent_processes_available()) GTEST_SKIP() << "this build has the processes mode";
  try {
    run_agent_processes(small_settings(), MixingMatrix::ring(3),
                        [] { return std::make_unique<SimpleSpread>(SimpleSpreadSettings{}, 1); }, 1, 1, local_options("marl_processes_none"));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("libgloo-dev"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nfv
