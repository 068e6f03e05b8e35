// The decentralized actor-critic (marl/): the Metropolis-Hastings mixing
// matrix on Abilene's WAN and on a ring (doubly stochastic, the average
// kept, consensus at the rate of the second eigenvalue, the survivors'
// weights after an agent dies), the ball projection, the stacked networks
// against each agent's network alone, Simple Spread's rewards, settings
// errors, determinism, and two agents learning a cooperative matrix game in
// which one of them never sees a reward (it learns through gossip alone);
// checkpoints that resume a run exactly; a dead agent left out of gossip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ball_projection.h"
#include "decentralized_actor_critic.h"
#include "gossip.h"
#include "matrix_game.h"
#include "mixing_matrix.h"
#include "simple_spread.h"
#include "stacked_mlp.h"
#include "topology.h"

namespace nfv {
namespace {

MixingMatrix wan_graph(const std::string& name) {
  return MixingMatrix::from_topology(load_topology_yaml(std::string(NFV_SOURCE_ROOT) + "/topologies/data/" + name + ".yaml"));
}

MixingMatrix abilene_graph() { return wan_graph("abilene"); }

void expect_doubly_stochastic(const MixingMatrix& w) {
  const std::size_t n = w.agents();
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0, column = 0;
    for (std::size_t j = 0; j < n; ++j) {
      EXPECT_GE(w.weight(i, j), 0.0) << i << "," << j;
      EXPECT_DOUBLE_EQ(w.weight(i, j), w.weight(j, i));
      row += w.weight(i, j);
      column += w.weight(j, i);
    }
    EXPECT_NEAR(row, 1.0, 1e-12) << "row " << i;
    EXPECT_NEAR(column, 1.0, 1e-12) << "column " << i;
  }
}

// Distance of the rows of x [N, d] to their average, over the live agents.
double consensus_error(const torch::Tensor& x) { return (x - x.mean(0, true)).norm().item<double>(); }

TEST(MixingMatrix, AbileneAndARingAreDoublyStochasticAndGossipKeepsTheAverage) {
  for (const MixingMatrix& w : {abilene_graph(), MixingMatrix::ring(8)}) {
    expect_doubly_stochastic(w);
    torch::manual_seed(1);
    const torch::Tensor x = torch::randn({static_cast<std::int64_t>(w.agents()), 5}, torch::kFloat64).to(torch::kFloat32);
    Gossip gossip(w, torch::kCPU);
    const torch::Tensor mixed = gossip.mix(x, 30);
    EXPECT_TRUE(torch::allclose(mixed.mean(0), x.mean(0), 0, 1e-5));
    EXPECT_LT(consensus_error(mixed), 0.5 * consensus_error(x));
  }
  // The other real WANs: connected, doubly stochastic, consensus strictly contracting.
  for (const char* name : {"geant2009", "b4"}) {
    const MixingMatrix w = wan_graph(name);
    expect_doubly_stochastic(w);
    EXPECT_LT(w.second_eigenvalue_modulus(), 1.0) << name;
  }
  const MixingMatrix abilene = abilene_graph();
  EXPECT_EQ(abilene.agents(), 12U);
  EXPECT_EQ(abilene.edges().size(), 15U);  // Abilene's 15 WAN links, each once
  // Metropolis-Hastings by hand: degree 2 next to degree 3 -> 1/4.
  const MixingMatrix path = MixingMatrix::metropolis_hastings(4, {{0, 1}, {1, 2}, {1, 3}});
  EXPECT_DOUBLE_EQ(path.weight(0, 1), 0.25);
  EXPECT_DOUBLE_EQ(path.weight(0, 0), 0.75);
  EXPECT_DOUBLE_EQ(path.weight(1, 1), 0.25);
}

TEST(MixingMatrix, RingAndPathHaveTheirKnownSecondEigenvalues) {
  // A ring's Metropolis-Hastings W = I/3 + (shift + shift^T)/3: eigenvalues 1/3 + 2/3 cos(2 pi k / N).
  EXPECT_NEAR(MixingMatrix::ring(8).second_eigenvalue_modulus(), 1.0 / 3 + 2.0 / 3 * std::cos(2 * M_PI / 8), 1e-12);
  EXPECT_NEAR(MixingMatrix::ring(3).second_eigenvalue_modulus(), 0.0, 1e-12);  // a triangle = complete: one round
  // A path's W = I - L/3 (L its Laplacian): eigenvalues 1/3 + 2/3 cos(pi k / N).
  EXPECT_NEAR(MixingMatrix::path(5).second_eigenvalue_modulus(), 1.0 / 3 + 2.0 / 3 * std::cos(M_PI / 5), 1e-12);
  EXPECT_NEAR(MixingMatrix::complete(5).second_eigenvalue_modulus(), 0.0, 1e-12);
}

TEST(Gossip, ConsensusErrorShrinksAtTheRateOfTheSecondEigenvalue) {
  for (const MixingMatrix& w : {abilene_graph(), MixingMatrix::ring(10)}) {
    const double lambda2 = w.second_eigenvalue_modulus();
    ASSERT_GT(lambda2, 0.3);
    ASSERT_LT(lambda2, 1.0);
    torch::manual_seed(7);
    const auto n = static_cast<std::int64_t>(w.agents());
    torch::Tensor x = torch::randn({n, 4});
    Gossip gossip(w, torch::kCPU);
    std::vector<double> error{consensus_error(x)};
    for (int round = 0; round < 40; ++round) {
      x = gossip.mix(x, 1);
      error.push_back(consensus_error(x));
      // Never slower than lambda2 per round (float32 slack).
      EXPECT_LE(error.back(), std::pow(lambda2, round + 1) * error.front() * (1 + 1e-4) + 1e-6) << "round " << round + 1;
    }
    // Once the faster modes are gone, the error shrinks by lambda2 per
    // round: measured over the second half of the rounds that stay well
    // above float32 rounding.
    std::size_t last = 0;
    while (last + 1 < error.size() && error[last + 1] > 1e-4 * error.front()) ++last;
    ASSERT_GE(last, 10U);
    const double measured = std::pow(error[last] / error[last / 2], 1.0 / static_cast<double>(last - last / 2));
    EXPECT_NEAR(measured, lambda2, 0.02) << "lambda2 " << lambda2;
    EXPECT_EQ(gossip.traffic().rounds, 40U);
    EXPECT_EQ(gossip.traffic().messages, 40U * 2 * w.edges().size());
    EXPECT_EQ(gossip.traffic().bytes, gossip.traffic().messages * 4 * sizeof(float));
  }
}

TEST(MixingMatrix, SurvivorsOfADeadAgentKeepDoublyStochasticWeights) {
  const MixingMatrix full = abilene_graph();
  const std::size_t n = full.agents(), dead = 3;
  std::vector<bool> alive(n, true);
  alive[dead] = false;
  const MixingMatrix survivors = full.over_survivors(alive);
  expect_doubly_stochastic(survivors);
  EXPECT_DOUBLE_EQ(survivors.weight(dead, dead), 1.0);
  for (std::size_t j = 0; j < n; ++j)
    if (j != dead) {
      EXPECT_EQ(survivors.weight(dead, j), 0.0);
    }
  for (const auto& [i, j] : survivors.edges()) EXPECT_TRUE(i != dead && j != dead);
  EXPECT_LT(survivors.edges().size(), full.edges().size());
  EXPECT_LT(survivors.second_eigenvalue_modulus(), 1.0);
  // The survivors reach their own average; the dead agent's value stays.
  torch::manual_seed(3);
  const torch::Tensor x = torch::randn({static_cast<std::int64_t>(n), 3});
  Gossip gossip(survivors, torch::kCPU);
  const torch::Tensor mixed = gossip.mix(x, 300);
  const torch::Tensor live = torch::tensor(std::vector<std::int64_t>{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11});
  EXPECT_TRUE(torch::allclose(mixed.index_select(0, live), x.index_select(0, live).mean(0, true).expand({11, 3}), 0, 1e-4));
  EXPECT_TRUE(torch::equal(mixed[dead], x[dead]));
  // A ring cut in two cannot reach consensus.
  std::vector<bool> halves(6, true);
  halves[0] = halves[3] = false;
  try {
    MixingMatrix::ring(6).over_survivors(halves);
    FAIL() << "a disconnected survivor graph was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not connected among the surviving agents"), std::string::npos) << e.what();
  }
}

TEST(MixingMatrix, BadGraphsAreRefusedByName) {
  EXPECT_THROW(MixingMatrix::metropolis_hastings(3, {{0, 1}}), std::invalid_argument);  // agent 2 alone
  EXPECT_THROW(MixingMatrix::metropolis_hastings(3, {{0, 3}, {1, 2}}), std::invalid_argument);
  EXPECT_THROW(MixingMatrix::metropolis_hastings(2, {{1, 1}, {0, 1}}), std::invalid_argument);
  try {
    MixingMatrix::parse("--graph", "0-1,x", 2);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--graph: ", 0), 0U) << e.what();
  }
  const MixingMatrix star = MixingMatrix::parse("--graph", "0-1,0-2,0-3", 4);
  EXPECT_EQ(star.edges().size(), 3U);
  EXPECT_DOUBLE_EQ(star.weight(0, 1), 0.25);
}

TEST(BallProjection, PointsOutsideLandOnTheSphereAndPointsInsideStayExactly) {
  torch::manual_seed(5);
  const torch::Tensor center = torch::randn({1, 50});
  torch::Tensor flat = center.expand({6, 50}).clone();
  flat.narrow(0, 0, 3).add_(torch::randn({3, 50}) * 10);   // far outside radius 2
  flat.narrow(0, 3, 3).add_(torch::randn({3, 50}) * 0.1);  // inside
  const torch::Tensor projected = project_onto_ball(flat, center, 2.0);
  const torch::Tensor distance = (projected - center).norm(2, {1});
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(distance[i].item<double>(), 2.0, 1e-5);
    // The same direction from the center.
    const torch::Tensor before = flat[i] - center[0], after = projected[i] - center[0];
    EXPECT_NEAR(torch::dot(before, after).item<double>() / (before.norm() * after.norm()).item<double>(), 1.0, 1e-6);
  }
  for (int i = 3; i < 6; ++i) EXPECT_TRUE(torch::equal(projected[i], flat[i])) << "row " << i;
  EXPECT_LE(distance.max().item<double>(), 2.0 + 1e-5);
}

TEST(StackedMlp, EachAgentComputesWhatItsOwnNetworkAloneComputes) {
  const MlpShape shape{7, 20, 5, 4};
  const std::vector<std::uint64_t> seeds{11, 22, 33};
  StackedMlp stacked(3, shape, NetworkLayout::stacked, torch::kCPU);
  stacked.initialize(seeds);
  torch::manual_seed(9);
  const torch::Tensor x = torch::randn({3, 6, 7});
  const torch::Tensor out = stacked.forward(x);
  ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{3, 6, 4}));
  for (std::int64_t a = 0; a < 3; ++a) {
    // Agent a's network rebuilt from torch.nn.Linear layers.
    torch::nn::Sequential alone;
    for (std::int64_t l = 0; l < shape.layers(); ++l) {
      torch::nn::Linear linear(shape.layer_inputs(l), shape.layer_outputs(l));
      torch::NoGradGuard no_grad;
      linear->weight.copy_(stacked.weight(a, l).t());
      linear->bias.copy_(stacked.bias(a, l));
      alone->push_back(linear);
      if (l + 1 < shape.layers()) alone->push_back(torch::nn::ReLU());
    }
    EXPECT_LE((alone->forward(x[a]) - out[a]).abs().max().item<double>(), 1e-6) << "agent " << a;
    // Its parameters depend on its own seed alone: agent a of three = a network of one with seed a.
    StackedMlp single(1, shape, NetworkLayout::stacked, torch::kCPU);
    single.initialize({seeds[static_cast<std::size_t>(a)]});
    EXPECT_TRUE(torch::equal(single.parameters()[0], stacked.parameters()[a]));
  }
  // The looped layout: the same outputs and the same per-agent gradients.
  StackedMlp looped(3, shape, NetworkLayout::looped, torch::kCPU);
  looped.initialize(seeds);
  const torch::Tensor looped_out = looped.forward(x);
  EXPECT_LE((looped_out - out).abs().max().item<double>(), 1e-6);
  out.pow(2).sum().backward();
  looped_out.pow(2).sum().backward();
  EXPECT_TRUE(torch::allclose(stacked.gradient(), looped.gradient(), 1e-5, 1e-6));
  EXPECT_GT(stacked.gradient().abs().sum().item<double>(), 0.0);
}

TEST(SimpleSpread, TheTeamRewardIsMinusEachLandmarksDistanceToItsNearestAgent) {
  SimpleSpreadSettings settings;
  settings.copies = 4;
  SimpleSpread env(settings, 3);
  const std::size_t n = settings.agents, s = env.state_size();
  std::vector<float> states(settings.copies * s), rewards(settings.copies * n);
  std::vector<std::int64_t> actions(settings.copies * n);
  env.reset(states);
  std::mt19937 pick(1);
  for (int step = 0; step < 10; ++step) {
    for (auto& a : actions) a = static_cast<std::int64_t>(pick() % SimpleSpread::kActions);
    env.step(actions, states, rewards);
    for (std::size_t c = 0; c < settings.copies; ++c) {
      const float* st = states.data() + c * s;
      const auto cell = [&](std::size_t k) {  // the state's coordinates back to cells
        return std::pair<double, double>{std::round(st[2 * k] * 12), std::round(st[2 * k + 1] * 4)};
      };
      double team = 0;
      for (std::size_t l = 0; l < n; ++l) {
        double nearest = 1e9;
        for (std::size_t i = 0; i < n; ++i)
          nearest = std::min(nearest, std::abs(cell(i).first - cell(n + l).first) + std::abs(cell(i).second - cell(n + l).second));
        team -= nearest;
        EXPECT_FLOAT_EQ(rewards[c * n + l], -nearest) << "landmark " << l << ": its own agent's share";
      }
      EXPECT_FLOAT_EQ(std::accumulate(rewards.begin() + c * n, rewards.begin() + (c + 1) * n, 0.0F), team);
    }
  }
  EXPECT_THROW(SimpleSpread({.agents = 0}, 1), std::invalid_argument);
}

// Small networks for a one-shot game (gamma 0).
MarlSettings game_settings() {
  return {.critic_width = 16, .critic_depth = 2, .actor_width = 16, .actor_depth = 1, .critic_steps = 5,
          .critic_step = 0.05, .actor_step = 0.1, .gamma = 0};
}

// Agent 0 gets twice the team's payoff, agent 1 nothing: the team's
// objective is the average, and agent 1 only learns it through gossip.
MatrixGame coordination_game() {
  return MatrixGame({{1.0, 0.0, 0.0}, {0.0, 0.6, 0.0}, {0.0, 0.0, 0.3}}, {2.0, 0.0}, 32);
}

// Both agents' probability of the best joint action after `iterations`.
struct GameOutcome {
  double chance_before = 0, best_after = 0, first_return = 0, last_return = 0;
  GossipTraffic traffic;
};

GameOutcome play(std::size_t gossip_rounds, std::uint64_t seed, int iterations) {
  MatrixGame game = coordination_game();
  MarlSettings settings = game_settings();
  settings.gossip_rounds = gossip_rounds;
  DecentralizedActorCritic agents(settings, MixingMatrix::complete(2), game, seed);
  const std::vector<float> state{1.0F};
  std::vector<float> observations(game.agents() * game.observation_size());
  game.observe(state, observations);
  GameOutcome out;
  const std::vector<float> before = agents.policy(observations);
  out.chance_before = before[0] * before[3];
  for (int it = 0; it < iterations; ++it) {
    const IterationStats stats = agents.iterate(game);
    if (it == 0) out.first_return = stats.team_return;
    out.last_return = stats.team_return;
  }
  const std::vector<float> after = agents.policy(observations);
  out.best_after = after[0] * after[3];
  out.traffic = agents.traffic();
  return out;
}

TEST(DecentralizedActorCritic, TwoAgentsLearnTheBestJointActionOfACoordinationGame) {
  set_marl_threads(1);
  const GameOutcome out = play(1, 42, 150);
  EXPECT_NEAR(out.chance_before, 1.0 / 9, 0.02);  // chance: both pick action 0
  EXPECT_GT(out.best_after, 0.9);
  EXPECT_GT(out.last_return, out.first_return + 1.0);  // 2 x the payoff: 2 at the optimum, 0.42 at chance
  EXPECT_EQ(out.traffic.rounds, 2U * 150);              // critics and TD errors, one round each
  EXPECT_EQ(out.traffic.messages, 2U * 150 * 2);        // one edge, both ways
}

// Policy gradient can settle on a worse joint action (a Nash equilibrium of
// the game) from some seeds; over ten seeds, gossip makes the difference.
TEST(DecentralizedActorCritic, TheAgentWithoutRewardsNeedsGossipToFindTheBestJointAction) {
  set_marl_threads(1);
  int with_gossip = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    with_gossip += play(1, seed, 150).best_after > 0.9;
    without += play(0, seed, 150).best_after > 0.9;
  }
  // Seen: 8 of 10 with gossip, 3 without (seeds 11-40: 30 and 8 of 30; the
  // same with the reference BLAS and OpenBLAS).
  EXPECT_GE(with_gossip, 8);
  EXPECT_LE(without, with_gossip - 3) << with_gossip << " seeds with gossip";
}

TEST(DecentralizedActorCritic, ASeedGivesTheSameParametersAndTheLayoutsAgree) {
  set_marl_threads(1);
  const auto run = [](NetworkLayout layout, std::uint64_t seed) {
    MatrixGame game = coordination_game();
    MarlSettings settings = game_settings();
    settings.layout = layout;
    DecentralizedActorCritic agents(settings, MixingMatrix::complete(2), game, seed);
    for (int it = 0; it < 5; ++it) agents.iterate(game);
    std::vector<float> all = agents.critic_parameters(1);
    for (float v : agents.actor_parameters(1)) all.push_back(v);
    return all;
  };
  const std::vector<float> a = run(NetworkLayout::stacked, 7), b = run(NetworkLayout::stacked, 7);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, run(NetworkLayout::stacked, 8));
  const std::vector<float> looped = run(NetworkLayout::looped, 7);
  ASSERT_EQ(looped.size(), a.size());
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(looped[k], a[k], 1e-4) << "parameter " << k;
}

TEST(DecentralizedActorCritic, ARunResumedFromItsCheckpointGoesOnAsIfNeverStopped) {
  set_marl_threads(1);
  const std::string path = ::testing::TempDir() + "marl_checkpoint.pt";
  MatrixGame game = coordination_game();
  const MixingMatrix graph = MixingMatrix::complete(2);
  DecentralizedActorCritic straight(game_settings(), graph, game, 5);
  for (int it = 0; it < 6; ++it) straight.iterate(game);

  DecentralizedActorCritic stopped(game_settings(), graph, game, 5);
  for (int it = 0; it < 3; ++it) stopped.iterate(game);
  stopped.save(path);
  const auto resumed = DecentralizedActorCritic::load(path, graph, game);
  for (int it = 0; it < 3; ++it) resumed->iterate(game);

  EXPECT_EQ(resumed->iterations(), 6U);
  EXPECT_EQ(resumed->traffic().bytes, straight.traffic().bytes);
  EXPECT_EQ(resumed->settings().critic_width, 16U);
  for (std::size_t agent = 0; agent < 2; ++agent) {
    EXPECT_EQ(resumed->critic_parameters(agent), straight.critic_parameters(agent)) << "agent " << agent;
    EXPECT_EQ(resumed->actor_parameters(agent), straight.actor_parameters(agent)) << "agent " << agent;
  }
  // Another game's shape, and a file that is no checkpoint, are named.
  MatrixGame bigger({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, {1, 1}, 4);
  try {
    DecentralizedActorCritic::load(path, graph, bigger);
    FAIL() << "a checkpoint for 3 actions loaded for 4";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another environment"), std::string::npos) << e.what();
  }
  const std::string text = ::testing::TempDir() + "marl_not_a_checkpoint.pt";
  std::FILE* f = std::fopen(text.c_str(), "w");
  std::fputs("not a checkpoint", f);
  std::fclose(f);
  try {
    DecentralizedActorCritic::load(text, graph, game);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a MARL checkpoint"), std::string::npos) << e.what();
  }
}

TEST(DecentralizedActorCritic, ADeadAgentKeepsItsOwnCriticWhileTheSurvivorsAgree) {
  set_marl_threads(1);
  SimpleSpreadSettings spread_settings;
  spread_settings.copies = 4;
  SimpleSpread env(spread_settings, 2);
  MarlSettings settings;
  settings.critic_depth = 2;
  settings.critic_steps = 2;
  const MixingMatrix all = MixingMatrix::complete(3);
  DecentralizedActorCritic agents(settings, all, env, 3);
  const IterationStats together = agents.iterate(env);
  EXPECT_GT(together.critic_spread, 0.0);  // local rewards differ: so do the local critics
  EXPECT_LT(together.critic_spread_after, 1e-4 * together.critic_spread);  // one round on a triangle: the average (float32)
  const GossipTraffic before = agents.traffic();
  EXPECT_EQ(before.messages, 2U * 6);  // critics and TD errors, 3 edges both ways

  agents.set_graph(all.over_survivors({true, true, false}));
  const IterationStats apart = agents.iterate(env);
  EXPECT_EQ(agents.traffic().messages - before.messages, 2U * 2);  // one edge left
  EXPECT_GT(apart.critic_spread_after, 0.1 * apart.critic_spread);  // agent 2 no longer joins the average
  const std::vector<float> survivor0 = agents.critic_parameters(0), survivor1 = agents.critic_parameters(1);
  const std::vector<float> dead = agents.critic_parameters(2);
  double pair = 0, to_dead = 0;
  for (std::size_t k = 0; k < survivor0.size(); ++k) {
    pair = std::max(pair, static_cast<double>(std::abs(survivor0[k] - survivor1[k])));
    to_dead = std::max(to_dead, static_cast<double>(std::abs(survivor0[k] - dead[k])));
  }
  EXPECT_LT(pair, 1e-6);  // a pair averages exactly in one round
  EXPECT_GT(to_dead, 1e-3);
}

TEST(DecentralizedActorCritic, BadSettingsAreNamed) {
  MatrixGame game = coordination_game();
  const auto error_of = [&](auto change) {
    MarlSettings s;
    change(s);
    try {
      DecentralizedActorCritic agents(s, MixingMatrix::complete(2), game, 1);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of([](MarlSettings& s) { s.critic_width = 0; }).find("critic_width"), std::string::npos);
  EXPECT_NE(error_of([](MarlSettings& s) { s.gamma = 1; }).find("gamma"), std::string::npos);
  EXPECT_NE(error_of([](MarlSettings& s) { s.ball_radius = -1; }).find("ball_radius"), std::string::npos);
  EXPECT_NE(error_of([](MarlSettings& s) { s.device = "tpu"; }).find("device"), std::string::npos);
  EXPECT_THROW(DecentralizedActorCritic(MarlSettings{}, MixingMatrix::complete(3), game, 1), std::invalid_argument);
}

}  // namespace
}  // namespace nfv
