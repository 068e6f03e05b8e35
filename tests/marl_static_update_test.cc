// marl/'s update on static buffers (static_update.h), the path a CUDA graph
// captures: on the CPU it trains exactly as DecentralizedActorCritic::
// update() does, bit for bit, rollout after rollout, with the same
// statistics and counts; it refuses what it cannot run, naming why. (The
// graph itself needs a GPU: bench/marl_iteration --check compares it there.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "decentralized_actor_critic.h"
#include "mixing_matrix.h"
#include "simple_spread.h"
#include "static_update.h"

namespace nfv {
namespace {

SimpleSpread spread_game(std::size_t agents) {
  SimpleSpreadSettings game;
  game.agents = agents;
  game.copies = 4;
  game.episode_length = 5;
  game.fixed_landmarks = true;
  return SimpleSpread(game, 11);
}

MarlSettings small_settings(ActorSignal signal, std::size_t gossip_rounds) {
  MarlSettings s;
  s.critic_width = 16;
  s.critic_depth = 3;
  s.actor_width = 12;
  s.critic_steps = 4;
  s.gossip_rounds = gossip_rounds;
  s.ball_radius = 1e-3;  // tiny: every TD step is projected
  s.reward_scale = 0.1;
  s.actor_signal = signal;
  return s;
}

// Two learners from one seed: one trained by update(), one by StaticUpdate
// (its buffers made once, each new rollout loaded into them).
void expect_same_training(ActorSignal signal, std::size_t gossip_rounds) {
  set_marl_threads(1);
  const std::size_t agents = 4;
  const MixingMatrix graph = MixingMatrix::path(agents);
  const MarlSettings settings = small_settings(signal, gossip_rounds);
  SimpleSpread game_a = spread_game(agents), game_b = spread_game(agents);
  DecentralizedActorCritic a(settings, graph, game_a, 5), b(settings, graph, game_b, 5);
  std::unique_ptr<StaticUpdate> fixed;
  for (int it = 0; it < 4; ++it) {
    const Rollout ra = a.collect(game_a), rb = b.collect(game_b);
    ASSERT_EQ(ra.joint, rb.joint) << "iteration " << it << ": the policies drifted apart";
    if (!fixed) fixed = std::make_unique<StaticUpdate>(b, rb);
    const IterationStats sa = a.update(ra), sb = fixed->update(rb);
    EXPECT_EQ(sa.team_return, sb.team_return);
    EXPECT_EQ(sa.critic_loss, sb.critic_loss) << "iteration " << it;
    EXPECT_EQ(sa.critic_spread, sb.critic_spread) << "iteration " << it;
    EXPECT_EQ(sa.critic_spread_after, sb.critic_spread_after) << "iteration " << it;
  }
  // The same operations in the same order on one thread: the same bits.
  for (std::size_t i = 0; i < agents; ++i) {
    EXPECT_EQ(a.critic_parameters(i), b.critic_parameters(i)) << "agent " << i << "'s critic";
    EXPECT_EQ(a.actor_parameters(i), b.actor_parameters(i)) << "agent " << i << "'s actor";
  }
  EXPECT_EQ(a.iterations(), b.iterations());
  EXPECT_EQ(a.traffic().rounds, b.traffic().rounds);
  EXPECT_EQ(a.traffic().messages, b.traffic().messages);
  EXPECT_EQ(a.traffic().bytes, b.traffic().bytes);
}

TEST(StaticUpdate, TrainsAsUpdateDoesRolloutAfterRollout) { expect_same_training(ActorSignal::consensus_td_error, 3); }

TEST(StaticUpdate, TrainsAsUpdateDoesWithTheQValueAndNoGossip) { expect_same_training(ActorSignal::q_value, 0); }

TEST(StaticUpdate, RefusesTheLoopedLayoutAndRolloutsOfAnotherShape) {
  SimpleSpread game = spread_game(3);
  MarlSettings looped = small_settings(ActorSignal::consensus_td_error, 1);
  looped.layout = NetworkLayout::looped;
  DecentralizedActorCritic slow(looped, MixingMatrix::ring(3), game, 1);
  const Rollout rollout = slow.collect(game);
  try {
    StaticUpdate update(slow, rollout);
    FAIL() << "a looped learner was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layout"), std::string::npos) << e.what();
  }
  DecentralizedActorCritic fast(small_settings(ActorSignal::consensus_td_error, 1), MixingMatrix::ring(3), game, 1);
  StaticUpdate update(fast, fast.collect(game));
  Rollout shorter = rollout;
  shorter.steps -= 1;
  try {
    update.load(shorter);
    FAIL() << "a rollout of another length was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4 steps x 4 copies"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nfv
