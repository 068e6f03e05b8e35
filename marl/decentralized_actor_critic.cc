#include "decentralized_actor_critic.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "agent_links.h"
#include "ball_projection.h"
#include "checkpoint_archive.h"
#include "gossip.h"
#include "stacked_mlp.h"
#include "static_update.h"

namespace nfv {

namespace {

// A seed for stream `stream` of `seed` (splitmix64): agents' generators are
// independent and each derivable on its own.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

enum Stream : std::uint64_t { kCritic = 0, kActor = 1, kSampler = 2 };
std::uint64_t agent_stream(Stream stream, std::size_t agent) { return 3 * agent + stream; }

torch::Device device_of(const std::string& name) {
  if (name == "cuda" && !torch::cuda::is_available())
    throw std::runtime_error("marl: device: cuda asked for, but this LibTorch sees no CUDA device");
  return name == "cuda" ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

std::vector<float> row_of(const torch::Tensor& flat, std::size_t agent) {
  const torch::Tensor row = flat[static_cast<std::int64_t>(agent)].to(torch::kCPU).contiguous();
  return {row.data_ptr<float>(), row.data_ptr<float>() + row.numel()};
}

// RMS distance of the rows to their average.
double spread(const torch::Tensor& flat) {
  return (flat - flat.mean(0, true)).pow(2).sum(1).mean().sqrt().item<double>();
}

}  // namespace

struct DecentralizedActorCritic::Networks {
  Networks(const MarlSettings& s, const MarlShape& env, std::uint64_t seed, std::vector<std::size_t> held_agents,
           std::unique_ptr<AgentLinks> agent_links)
      : device(device_of(s.device)),
        held(std::move(held_agents)),
        all_held(held.size() == env.agents),
        agents(static_cast<std::int64_t>(env.agents)),
        actions(static_cast<std::int64_t>(env.actions)),
        state_size(static_cast<std::int64_t>(env.state_size)),
        observation_size(static_cast<std::int64_t>(env.observation_size)),
        critic(static_cast<std::int64_t>(held.size()),
               {state_size + agents * actions, static_cast<std::int64_t>(s.critic_width), static_cast<std::int64_t>(s.critic_depth), 1},
               s.layout, device),
        actor(static_cast<std::int64_t>(held.size()), {observation_size, static_cast<std::int64_t>(s.actor_width), static_cast<std::int64_t>(s.actor_depth), actions},
              s.layout, device),
        links(std::move(agent_links)) {
    std::vector<std::int64_t> rows(held.begin(), held.end());
    held_rows = torch::tensor(rows, torch::kInt64).to(device);
    std::vector<std::uint64_t> critic_seeds, actor_seeds;
    for (std::size_t i : held) {
      critic_seeds.push_back(derive_seed(seed, kCritic));  // common w0
      actor_seeds.push_back(derive_seed(seed, agent_stream(kActor, i)));
      samplers.emplace_back(derive_seed(seed, agent_stream(kSampler, i)));
    }
    critic.initialize(critic_seeds);
    actor.initialize(actor_seeds, 0.01);  // near-uniform policies at the start
    if (s.prior_logit > 0 && env.preferred_action >= 0 && env.preferred_action < actions) {
      // The last layer's bias comes last in each agent's row.
      torch::NoGradGuard no_grad;
      torch::Tensor flat = actor.parameters();
      flat.select(1, flat.size(1) - actions + env.preferred_action).add_(s.prior_logit);
      actor.set_parameters(flat);
    }
    critic_center = critic.parameters();
  }

  std::int64_t held_count() const { return static_cast<std::int64_t>(held.size()); }

  // The held agents' rows of [N, ...] (all held: as it is, so that a
  // stacked run computes exactly what it did before agents could be apart).
  torch::Tensor held_of(const torch::Tensor& per_agent) const {
    return all_held ? per_agent : per_agent.index_select(0, held_rows);
  }

  // The held agents' actions drawn from their policies: observations [E, N, O] -> [E, L] (CPU, row-major).
  std::vector<std::int64_t> sample(const std::vector<float>& observations, std::int64_t copies) {
    torch::NoGradGuard no_grad;
    const torch::Tensor o = held_of(to_device(observations, {copies, agents, observation_size}).transpose(0, 1));
    const torch::Tensor cdf = torch::softmax(actor.forward(o.contiguous()), -1).cumsum(-1);
    const std::int64_t local = held_count();
    std::vector<float> uniforms(static_cast<std::size_t>(local * copies));
    for (std::int64_t i = 0; i < local; ++i)
      for (std::int64_t e = 0; e < copies; ++e)
        uniforms[static_cast<std::size_t>(i * copies + e)] =
            static_cast<float>(samplers[static_cast<std::size_t>(i)]() >> 40) / static_cast<float>(1ULL << 24);
    const torch::Tensor u = to_device(uniforms, {local, copies, 1});
    const torch::Tensor picked = (cdf < u).sum(-1).clamp_max(actions - 1).t().contiguous().to(torch::kCPU);  // [E, L]
    return {picked.data_ptr<std::int64_t>(), picked.data_ptr<std::int64_t>() + picked.numel()};
  }

  // The held agents' logits for the observations [R, N, O] (CPU) -> [L, R, A].
  torch::Tensor actor_logits(const float* observations, std::int64_t rows) const {
    const torch::Tensor o = torch::from_blob(const_cast<float*>(observations), {rows, agents, observation_size}, torch::kFloat32)
                                .to(device)
                                .transpose(0, 1);
    return actor.forward(held_of(o).contiguous());
  }

  torch::Tensor to_device(const std::vector<float>& values, at::IntArrayRef shape) const {
    return torch::from_blob(const_cast<float*>(values.data()), shape, torch::kFloat32).clone().to(device);
  }

  // The critic's input for samples: global state, then the joint action one-hot, [B, S + N A].
  torch::Tensor critic_input(const torch::Tensor& states, const torch::Tensor& joint) const {
    const torch::Tensor one_hot = torch::one_hot(joint, actions).to(torch::kFloat32).view({joint.size(0), agents * actions});
    return torch::cat({states, one_hot}, 1);
  }

  // Every held agent's Q on the same samples: [B, in] -> [L, B].
  torch::Tensor q_values(const torch::Tensor& input) const {
    return critic.forward(input.expand({held_count(), input.size(0), input.size(1)})).squeeze(-1);
  }

  // Where agent `agent`'s networks are in the held rows.
  std::int64_t row_of_agent(std::size_t agent) const {
    const auto at = std::find(held.begin(), held.end(), agent);
    if (at == held.end()) throw std::invalid_argument("marl: agent " + std::to_string(agent) + " is not held by this learner");
    return at - held.begin();
  }

  // Per held agent i and sample: the mean over i's own actions b, under
  // i's policy, of i's Q with a_i = b and the others' actions kept. [L, B].
  torch::Tensor counterfactual_baseline(const torch::Tensor& input, const float* observations, std::int64_t rows) const {
    const std::int64_t width = input.size(1), local = held_count();
    torch::Tensor x = input.unsqueeze(0).unsqueeze(0).expand({local, actions, rows, width}).clone();  // [L, A, B, in]
    const torch::Tensor each = torch::eye(actions, input.options()).unsqueeze(1).expand({actions, rows, actions});
    for (std::int64_t i = 0; i < local; ++i)
      x[i].narrow(-1, state_size + static_cast<std::int64_t>(held[static_cast<std::size_t>(i)]) * actions, actions).copy_(each);
    const torch::Tensor q = critic.forward(x.view({local, actions * rows, width})).view({local, actions, rows});
    const torch::Tensor pi = torch::softmax(actor_logits(observations, rows), -1).transpose(1, 2);  // [L, A, B]
    return (pi * q).sum(1);
  }

  torch::Device device;
  std::vector<std::size_t> held;  // the agents held here, ascending
  bool all_held;
  torch::Tensor held_rows;        // the same as a tensor
  std::int64_t agents, actions, state_size, observation_size;
  StackedMlp critic, actor;
  std::unique_ptr<AgentLinks> links;
  torch::Tensor critic_center;  // w0, [L, P] (equal rows)
  std::vector<std::mt19937_64> samplers;
};

namespace {

std::vector<std::size_t> all_agents(std::size_t agents) {
  std::vector<std::size_t> out(agents);
  for (std::size_t i = 0; i < agents; ++i) out[i] = i;
  return out;
}

}  // namespace

DecentralizedActorCritic::DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph,
                                                   const MarlEnvironment& environment, std::uint64_t seed)
    : DecentralizedActorCritic(settings, graph, MarlShape::of(environment), seed) {}

DecentralizedActorCritic::DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph,
                                                   const MarlShape& shape, std::uint64_t seed)
    : DecentralizedActorCritic(settings, graph, shape, seed, all_agents(shape.agents), nullptr) {}

DecentralizedActorCritic::DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph,
                                                   const MarlEnvironment& environment, std::uint64_t seed, std::size_t agent,
                                                   std::unique_ptr<AgentLinks> links)
    : DecentralizedActorCritic(settings, graph, MarlShape::of(environment), seed, std::vector<std::size_t>{agent},
                               std::move(links)) {}

DecentralizedActorCritic::DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph,
                                                   const MarlShape& shape, std::uint64_t seed,
                                                   std::vector<std::size_t> held, std::unique_ptr<AgentLinks> links)
    : settings_(settings), seed_(seed) {
  validate(settings_);
  if (graph.agents() != shape.agents)
    throw std::invalid_argument("marl: graph: " + std::to_string(graph.agents()) + " agents, the environment has " +
                                std::to_string(shape.agents));
  for (std::size_t i = 0; i < held.size(); ++i)
    if (held[i] >= shape.agents || (i > 0 && held[i] <= held[i - 1]))
      throw std::invalid_argument("marl: agent " + std::to_string(held[i]) + ": expected distinct agents below " +
                                  std::to_string(shape.agents) + ", ascending");
  if (held.empty()) throw std::invalid_argument("marl: a learner holds at least one agent");
  if (!links) links = std::make_unique<Gossip>(graph, device_of(settings_.device));
  nets_ = std::make_unique<Networks>(settings_, shape, seed, std::move(held), std::move(links));
}

DecentralizedActorCritic::~DecentralizedActorCritic() = default;

IterationStats DecentralizedActorCritic::iterate(MarlEnvironment& env) { return update(collect(env)); }

Rollout DecentralizedActorCritic::collect(MarlEnvironment& env) {
  Networks& n = *nets_;
  if (static_cast<std::int64_t>(env.agents()) != n.agents || static_cast<std::int64_t>(env.actions()) != n.actions ||
      static_cast<std::int64_t>(env.state_size()) != n.state_size ||
      static_cast<std::int64_t>(env.observation_size()) != n.observation_size)
    throw std::invalid_argument("marl: an environment of another shape than the agents were made for");
  Rollout out;
  out.steps = env.episode_length();
  out.copies = env.copies();
  out.agents = env.agents();
  out.state_size = env.state_size();
  out.observation_size = env.observation_size();
  const auto copies = static_cast<std::int64_t>(out.copies), steps = static_cast<std::int64_t>(out.steps);
  std::vector<float> state(out.copies * out.state_size), reward(out.copies * out.agents);
  std::vector<float> observation(out.copies * out.agents * out.observation_size);
  env.reset(state);
  for (std::int64_t t = 0;; ++t) {
    env.observe(state, observation);
    const std::vector<std::int64_t> picked = n.links->joint_actions(n.sample(observation, copies), out.copies);
    out.states.insert(out.states.end(), state.begin(), state.end());
    out.observations.insert(out.observations.end(), observation.begin(), observation.end());
    out.joint.insert(out.joint.end(), picked.begin(), picked.end());
    if (t == steps) break;
    env.step(picked, state, reward);
    out.rewards.insert(out.rewards.end(), reward.begin(), reward.end());
    for (float r : reward) out.team_return += r;
  }
  out.team_return /= static_cast<double>(copies);
  return out;
}

IterationStats DecentralizedActorCritic::update(const Rollout& rollout) {
  Networks& n = *nets_;
  if (!rollout.fits(static_cast<std::size_t>(n.agents), static_cast<std::size_t>(n.state_size),
                    static_cast<std::size_t>(n.observation_size)))
    throw std::invalid_argument("marl: a rollout of another shape than the agents were made for");
  const auto copies = static_cast<std::int64_t>(rollout.copies), steps = static_cast<std::int64_t>(rollout.steps);
  const std::int64_t samples = copies * steps;
  IterationStats stats;
  stats.team_return = rollout.team_return;

  const torch::Tensor all_states = n.to_device(rollout.states, {steps + 1, copies, n.state_size});
  const torch::Tensor all_joint =
      torch::from_blob(const_cast<std::int64_t*>(rollout.joint.data()), {steps + 1, copies, n.agents}, torch::kInt64)
          .clone()
          .to(n.device);
  const torch::Tensor s = all_states.narrow(0, 0, steps).reshape({samples, n.state_size});
  const torch::Tensor a = all_joint.narrow(0, 0, steps).reshape({samples, n.agents});
  const torch::Tensor input = n.critic_input(s, a);
  const torch::Tensor next_input = n.critic_input(all_states.narrow(0, 1, steps).reshape({samples, n.state_size}),
                                                  all_joint.narrow(0, 1, steps).reshape({samples, n.agents}));
  const torch::Tensor r = n.held_of(n.to_device(rollout.rewards, {samples, n.agents}).t()).mul(settings_.reward_scale);  // [L, B]
  const double gamma = settings_.gamma;

  // 1. K local TD steps, each projected onto the ball around w0.
  for (std::size_t k = 0; k < settings_.critic_steps; ++k) {
    torch::Tensor target;
    {
      torch::NoGradGuard no_grad;
      target = r + gamma * n.q_values(next_input);
    }
    const torch::Tensor td = n.q_values(input) - target;
    const torch::Tensor loss = 0.5 * td.pow(2).mean(1).sum();  // a sum of per-agent losses: each agent's own gradient
    n.critic.zero_grad();
    loss.backward();
    torch::NoGradGuard no_grad;
    const torch::Tensor stepped = n.critic.parameters() - settings_.critic_step * n.critic.gradient();
    n.critic.set_parameters(project_onto_ball(stepped, n.critic_center, settings_.ball_radius));
    if (k + 1 == settings_.critic_steps) stats.critic_loss = td.detach().pow(2).mean().item<double>();
  }

  // 2. Consensus on the critics.
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor local = n.critic.parameters();
    stats.critic_spread = spread(local);
    const torch::Tensor mixed = n.links->mix(local, settings_.gossip_rounds, GossipKind::critic_parameters);
    stats.critic_spread_after = spread(mixed);
    n.critic.set_parameters(mixed);
  }

  // 3. Local TD errors with the consensus critics, then gossiped.
  torch::Tensor signal;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor q = n.q_values(input);
    switch (settings_.actor_signal) {
      case ActorSignal::q_value: signal = q; break;
      case ActorSignal::counterfactual: signal = q - n.counterfactual_baseline(input, rollout.observations.data(), samples); break;
      case ActorSignal::consensus_td_error:
        signal = n.links->mix(r + gamma * n.q_values(next_input) - q, settings_.gossip_rounds, GossipKind::td_errors);
        break;
    }
  }

  // 4. Normalized policy-gradient step per agent.
  const torch::Tensor logits = n.actor_logits(rollout.observations.data(), samples);  // [L, B, A]
  const torch::Tensor log_pi = torch::log_softmax(logits, -1).gather(2, n.held_of(a.t()).unsqueeze(-1)).squeeze(-1);  // [L, B]
  const torch::Tensor surrogate = (signal * log_pi).mean(1).sum();
  n.actor.zero_grad();
  surrogate.backward();
  torch::NoGradGuard no_grad;
  const torch::Tensor g = n.actor.gradient();
  n.actor.set_parameters(n.actor.parameters() + settings_.actor_step * g / g.norm(2, {1}, true).clamp_min(1e-12));
  ++iterations_;
  return stats;
}

std::vector<float> DecentralizedActorCritic::policy(std::span<const float> observations) const {
  const Networks& n = *nets_;
  if (static_cast<std::int64_t>(observations.size()) != n.agents * n.observation_size)
    throw std::invalid_argument("marl: policy: " + std::to_string(observations.size()) + " observation numbers, expected " +
                                std::to_string(n.agents * n.observation_size));
  torch::NoGradGuard no_grad;
  const torch::Tensor p = torch::softmax(n.actor_logits(observations.data(), 1), -1).to(torch::kCPU).contiguous();
  return {p.data_ptr<float>(), p.data_ptr<float>() + p.numel()};
}

std::vector<std::int64_t> DecentralizedActorCritic::greedy(std::span<const float> observations) const {
  const std::vector<float> p = policy(observations);
  const auto actions = static_cast<std::size_t>(nets_->actions);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < p.size(); i += actions)
    out.push_back(std::max_element(p.begin() + static_cast<std::ptrdiff_t>(i), p.begin() + static_cast<std::ptrdiff_t>(i + actions)) -
                  (p.begin() + static_cast<std::ptrdiff_t>(i)));
  return out;
}

std::size_t DecentralizedActorCritic::agents() const { return static_cast<std::size_t>(nets_->agents); }
std::vector<std::size_t> DecentralizedActorCritic::held_agents() const { return nets_->held; }
std::size_t DecentralizedActorCritic::actions() const { return static_cast<std::size_t>(nets_->actions); }
std::size_t DecentralizedActorCritic::observation_size() const { return static_cast<std::size_t>(nets_->observation_size); }

void DecentralizedActorCritic::set_graph(const MixingMatrix& graph) {
  if (static_cast<std::int64_t>(graph.agents()) != nets_->agents)
    throw std::invalid_argument("marl: graph: " + std::to_string(graph.agents()) + " agents, expected " + std::to_string(nets_->agents));
  nets_->links->set_matrix(graph);
}

const GossipTraffic& DecentralizedActorCritic::traffic() const { return nets_->links->traffic(); }

LearnerTensors DecentralizedActorCritic::tensors() {
  Networks& n = *nets_;
  return {n.critic, n.actor, n.critic_center, *n.links, n.device, n.agents, n.actions, n.state_size, n.observation_size};
}

std::vector<float> DecentralizedActorCritic::critic_parameters(std::size_t agent) const {
  return row_of(nets_->critic.parameters(), static_cast<std::size_t>(nets_->row_of_agent(agent)));
}

std::vector<float> DecentralizedActorCritic::actor_parameters(std::size_t agent) const {
  return row_of(nets_->actor.parameters(), static_cast<std::size_t>(nets_->row_of_agent(agent)));
}

namespace {

// The settings as numbers, in one order for saving and loading.
std::vector<double> settings_numbers(const MarlSettings& s) {
  return {double(s.critic_width), double(s.critic_depth), double(s.actor_width), double(s.actor_depth),
          double(s.critic_steps), s.ball_radius, double(s.gossip_rounds), s.critic_step, s.actor_step, s.gamma,
          s.reward_scale, double(static_cast<int>(s.actor_signal)), double(s.layout == NetworkLayout::looped)};
}

MarlSettings settings_from(const std::vector<double>& v) {
  if (v.size() != 13) throw std::runtime_error("settings hold " + std::to_string(v.size()) + " numbers, expected 13");
  MarlSettings s;
  s.critic_width = static_cast<std::size_t>(v[0]);
  s.critic_depth = static_cast<std::size_t>(v[1]);
  s.actor_width = static_cast<std::size_t>(v[2]);
  s.actor_depth = static_cast<std::size_t>(v[3]);
  s.critic_steps = static_cast<std::size_t>(v[4]);
  s.ball_radius = v[5];
  s.gossip_rounds = static_cast<std::size_t>(v[6]);
  s.critic_step = v[7];
  s.actor_step = v[8];
  s.gamma = v[9];
  s.reward_scale = v[10];
  if (v[11] < 0 || v[11] > 2) throw std::runtime_error("an unknown actor signal " + std::to_string(v[11]));
  s.actor_signal = static_cast<ActorSignal>(static_cast<int>(v[11]));
  s.layout = v[12] != 0 ? NetworkLayout::looped : NetworkLayout::stacked;
  return s;
}

std::string describe(const std::vector<double>& numbers) {
  std::string out;
  for (double v : numbers) out += (out.empty() ? "" : " ") + std::to_string(static_cast<long long>(v));
  return out;
}

}  // namespace

void DecentralizedActorCritic::save(const std::string& path) const {
  const Networks& n = *nets_;
  torch::serialize::OutputArchive archive;
  archive.write("settings", numbers_tensor(settings_numbers(settings_)));
  archive.write("device", c10::IValue(settings_.device));
  archive.write("shape", numbers_tensor({double(n.agents), double(n.actions), double(n.state_size), double(n.observation_size)}));
  // Integers beyond 2^53 do not survive float64: the seed and counts go as text.
  archive.write("counts", c10::IValue(std::to_string(seed_) + " " + std::to_string(iterations_) + " " +
                                      std::to_string(traffic().rounds) + " " + std::to_string(traffic().messages) + " " +
                                      std::to_string(traffic().bytes)));
  if (!n.all_held) {
    std::vector<double> held(n.held.begin(), n.held.end());
    archive.write("held", numbers_tensor(held));
  }
  archive.write("critic", n.critic.parameters().to(torch::kCPU));
  archive.write("critic_center", n.critic_center.to(torch::kCPU));
  archive.write("actor", n.actor.parameters().to(torch::kCPU));
  for (std::size_t i = 0; i < n.samplers.size(); ++i) {
    std::ostringstream state;
    state << n.samplers[i];
    archive.write("sampler." + std::to_string(i), c10::IValue(state.str()));
  }
  save_archive(archive, path);
}

std::unique_ptr<DecentralizedActorCritic> DecentralizedActorCritic::load(const std::string& path, const MixingMatrix& graph,
                                                                         const MarlEnvironment& environment,
                                                                         const std::string& device) {
  return load(path, graph, MarlShape::of(environment), device);
}

std::unique_ptr<DecentralizedActorCritic> DecentralizedActorCritic::load(const std::string& path, const MixingMatrix& graph,
                                                                         const MarlShape& shape,
                                                                         const std::string& device) {
  return load_held(path, graph, shape, device, nullptr);
}

std::unique_ptr<DecentralizedActorCritic> DecentralizedActorCritic::load_agent(const std::string& path,
                                                                               const MixingMatrix& graph,
                                                                               const MarlEnvironment& environment,
                                                                               std::unique_ptr<AgentLinks> links) {
  if (!links) throw std::invalid_argument("marl: load_agent: no links to the other agents");
  return load_held(path, graph, MarlShape::of(environment), "", std::move(links));
}

std::unique_ptr<DecentralizedActorCritic> DecentralizedActorCritic::load_held(const std::string& path,
                                                                              const MixingMatrix& graph,
                                                                              const MarlShape& environment,
                                                                              const std::string& device,
                                                                              std::unique_ptr<AgentLinks> links) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path, torch::kCPU);
    // A fresh tensor for every read: reading into a defined one resizes its storage.
    const auto read = [&](const std::string& key) {
      torch::Tensor t;
      archive.read(key, t);
      return t;
    };
    const auto read_text = [&](const std::string& key) {
      c10::IValue text;
      archive.read(key, text);
      return text.toStringRef();
    };
    MarlSettings settings = settings_from(tensor_numbers(read("settings")));
    settings.device = device.empty() ? read_text("device") : device;
    std::vector<double> shape = tensor_numbers(read("shape"));
    if (shape.size() == 3) shape.push_back(shape[2]);  // made before actors had their own observations
    const std::vector<double> here{double(environment.agents), double(environment.actions),
                                   double(environment.state_size), double(environment.observation_size)};
    if (shape != here)
      throw std::runtime_error("made for another environment (agents, actions, state and observation numbers: " +
                               describe(shape) + "; here " + describe(here) + ")");
    const std::string count_text = read_text("counts");
    std::istringstream counts(count_text);
    std::uint64_t seed = 0, iterations = 0;
    GossipTraffic traffic;
    if (!(counts >> seed >> iterations >> traffic.rounds >> traffic.messages >> traffic.bytes))
      throw std::runtime_error("unreadable counts '" + count_text + "'");
    std::vector<std::size_t> held = all_agents(environment.agents);
    torch::Tensor held_numbers;
    if (archive.try_read("held", held_numbers)) {
      held.clear();
      for (double agent : tensor_numbers(held_numbers)) held.push_back(static_cast<std::size_t>(agent));
    }
    if (links && held.size() != 1)
      throw std::runtime_error("holds " + std::to_string(held.size()) + " agents; expected one agent's checkpoint");
    if (!links && held.size() != environment.agents)
      throw std::runtime_error("holds agent " + std::to_string(held.front()) + " alone; load it with load_agent");
    std::unique_ptr<DecentralizedActorCritic> learner(
        new DecentralizedActorCritic(settings, graph, environment, seed, std::move(held), std::move(links)));
    learner->iterations_ = iterations;
    Networks& n = *learner->nets_;
    n.links->set_traffic(traffic);
    n.critic.set_parameters(read("critic"));
    n.critic_center = read("critic_center").to(n.device);
    n.actor.set_parameters(read("actor"));
    for (std::size_t i = 0; i < n.samplers.size(); ++i) {
      std::istringstream state(read_text("sampler." + std::to_string(i)));
      if (!(state >> n.samplers[i])) throw std::runtime_error("agent " + std::to_string(i) + "'s generator is unreadable");
    }
    return learner;
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a MARL checkpoint (" + e.what_without_backtrace() + ")");
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

std::unique_ptr<DecentralizedActorCritic> DecentralizedActorCritic::load_team(const std::vector<std::string>& agent_paths,
                                                                              const MixingMatrix& graph,
                                                                              const MarlShape& shape,
                                                                              const std::string& device) {
  if (agent_paths.size() != shape.agents)
    throw std::runtime_error("marl: " + std::to_string(agent_paths.size()) + " agent checkpoints for " +
                             std::to_string(shape.agents) + " agents");
  std::vector<torch::Tensor> critics, centers, actors;
  std::unique_ptr<DecentralizedActorCritic> team;
  for (std::size_t k = 0; k < agent_paths.size(); ++k) {
    const std::string& path = agent_paths[k];
    try {
      torch::serialize::InputArchive archive;
      archive.load_from(path, torch::kCPU);
      torch::Tensor held, critic, center, actor, settings_numbers_read, shape_numbers;
      if (!archive.try_read("held", held)) throw std::runtime_error("holds every agent, not one");
      const std::vector<double> which = tensor_numbers(held);
      if (which.size() != 1 || which[0] != double(k))
        throw std::runtime_error("holds agent " + describe(which) + ", expected agent " + std::to_string(k));
      archive.read("shape", shape_numbers);
      const std::vector<double> here{double(shape.agents), double(shape.actions), double(shape.state_size),
                                     double(shape.observation_size)};
      if (tensor_numbers(shape_numbers) != here)
        throw std::runtime_error("made for another environment (" + describe(tensor_numbers(shape_numbers)) + "; here " +
                                 describe(here) + ")");
      archive.read("critic", critic);
      archive.read("critic_center", center);
      archive.read("actor", actor);
      critics.push_back(critic);
      centers.push_back(center);
      actors.push_back(actor);
      if (!team) {
        archive.read("settings", settings_numbers_read);
        MarlSettings settings = settings_from(tensor_numbers(settings_numbers_read));
        settings.device = device.empty() ? "cpu" : device;
        team = std::make_unique<DecentralizedActorCritic>(settings, graph, shape, 0);
      }
    } catch (const c10::Error& e) {
      throw std::runtime_error(path + ": not a MARL checkpoint (" + e.what_without_backtrace() + ")");
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
  }
  Networks& n = *team->nets_;
  n.critic.set_parameters(torch::cat(critics, 0));
  n.critic_center = torch::cat(centers, 0).to(n.device);
  n.actor.set_parameters(torch::cat(actors, 0));
  return team;
}

void set_marl_threads(int threads) { torch::set_num_threads(threads); }

}  // namespace nfv
