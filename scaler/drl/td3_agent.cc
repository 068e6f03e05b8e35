#include "td3_agent.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "checkpoint_archive.h"
#include "drl_network.h"

namespace nfv {

namespace {

torch::Device parse_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name == "cuda") {
    if (!torch::cuda::is_available()) throw std::runtime_error("device cuda: this LibTorch sees no CUDA device");
    return torch::kCUDA;
  }
  throw std::invalid_argument("device '" + name + "': expected cpu or cuda");
}

void copy_parameters(torch::nn::Module& to, const torch::nn::Module& from) {
  torch::NoGradGuard no_grad;
  const auto source = from.parameters();
  auto target = to.parameters();
  for (std::size_t i = 0; i < target.size(); ++i) target[i].copy_(source[i]);
}

void soft_update(torch::nn::Module& target, const torch::nn::Module& source, double tau) {
  torch::NoGradGuard no_grad;
  const auto s = source.parameters();
  auto t = target.parameters();
  for (std::size_t i = 0; i < t.size(); ++i) t[i].mul_(1.0 - tau).add_(s[i], tau);
}

void save_module(torch::serialize::OutputArchive& archive, const std::string& key, const torch::nn::Module& module) {
  torch::serialize::OutputArchive part;
  module.save(part);
  archive.write(key, part);
}

void load_module(torch::serialize::InputArchive& archive, const std::string& key, torch::nn::Module& module) {
  torch::serialize::InputArchive part;
  archive.read(key, part);
  module.load(part);
}


}  // namespace

struct Td3Agent::Nets {
  Nets(const AgentShape& shape, const AgentSettings& settings)
      : device(parse_device(settings.device)),
        actor(make_actor(shape, settings)), actor_target(make_actor(shape, settings)),
        critic1(make_critic(shape, settings)), critic2(make_critic(shape, settings)),
        critic1_target(make_critic(shape, settings)), critic2_target(make_critic(shape, settings)),
        actor_optimizer(actor->parameters(), torch::optim::AdamOptions(settings.actor_lr)),
        critic_optimizer(critic_parameters(), torch::optim::AdamOptions(settings.critic_lr)) {
    for (const auto& [key, network] : networks()) network->to(device);
    copy_parameters(*actor_target, *actor);
    copy_parameters(*critic1_target, *critic1);
    copy_parameters(*critic2_target, *critic2);
    // A system's pools as chain samples: row m of chain c is pool chain_begin[c] + m, or the zero row P past its end.
    const auto C = static_cast<std::int64_t>(shape.chains), P = static_cast<std::int64_t>(shape.pools);
    for (std::size_t c = 0; c < shape.chains; ++c) width = std::max<std::int64_t>(width, static_cast<std::int64_t>(shape.chain_begin[c + 1] - shape.chain_begin[c]));
    std::vector<std::int64_t> pad(static_cast<std::size_t>(C * width), P), valid;
    std::vector<float> mask(pad.size(), 0.0F);
    for (std::size_t c = 0; c < shape.chains; ++c)
      for (std::size_t k = shape.chain_begin[c]; k < shape.chain_begin[c + 1]; ++k) {
        const std::size_t at = c * static_cast<std::size_t>(width) + (k - shape.chain_begin[c]);
        pad[at] = static_cast<std::int64_t>(k);
        mask[at] = 1.0F;
        valid.push_back(static_cast<std::int64_t>(at));
      }
    pad_index = torch::tensor(pad, torch::kLong).to(device);
    valid_index = torch::tensor(valid, torch::kLong).to(device);
    chain_mask = torch::tensor(mask, torch::kFloat32).view({C, width}).to(device);
  }
  static DrlActor make_actor(const AgentShape& s, const AgentSettings& a) {
    return DrlActor(static_cast<std::int64_t>(s.pool_features), static_cast<std::int64_t>(s.global_features),
                    static_cast<std::int64_t>(a.hidden));
  }
  static DrlCritic make_critic(const AgentShape& s, const AgentSettings& a) {
    return DrlCritic(static_cast<std::int64_t>(s.pool_features), static_cast<std::int64_t>(s.global_features),
                     static_cast<std::int64_t>(a.hidden));
  }
  // The six networks by their checkpoint keys, in one order for saving, loading and parameters().
  std::vector<std::pair<std::string, torch::nn::Module*>> networks() {
    return {{"actor", actor.get()},
            {"critic1", critic1.get()},
            {"critic2", critic2.get()},
            {"actor_target", actor_target.get()},
            {"critic1_target", critic1_target.get()},
            {"critic2_target", critic2_target.get()}};
  }
  std::vector<std::pair<std::string, const torch::nn::Module*>> networks() const {
    std::vector<std::pair<std::string, const torch::nn::Module*>> out;
    for (const auto& [key, network] : const_cast<Nets*>(this)->networks()) out.emplace_back(key, network);
    return out;
  }
  std::vector<torch::Tensor> critic_parameters() const {
    std::vector<torch::Tensor> p = critic1->parameters();
    for (const torch::Tensor& t : critic2->parameters()) p.push_back(t);
    return p;
  }

  torch::Device device;
  std::int64_t width = 0;    // the widest chain's pools
  torch::Tensor pad_index;   // [C x width]: the pool of each chain-sample row (P: padding)
  torch::Tensor valid_index; // [P]: each pool's row among the C x width
  torch::Tensor chain_mask;  // [C, width]
  DrlActor actor, actor_target;
  DrlCritic critic1, critic2, critic1_target, critic2_target;
  torch::optim::Adam actor_optimizer, critic_optimizer;
};

namespace {

// Raw rows -> a normalised tensor of `shape` on `device`.
torch::Tensor input(std::span<const float> rows, const FeatureStatistics& stats, at::IntArrayRef shape,
                    const torch::Device& device) {
  torch::Tensor t = torch::from_blob(const_cast<float*>(rows.data()), shape, torch::kFloat32).clone();
  if (stats.rows() > 0) stats.normalize(std::span<float>(t.data_ptr<float>(), static_cast<std::size_t>(t.numel())));
  return t.to(device);
}

torch::Tensor plain(std::span<const float> values, at::IntArrayRef shape, const torch::Device& device) {
  return torch::from_blob(const_cast<float*>(values.data()), shape, torch::kFloat32).clone().to(device);
}

// A batch of chain samples as tensors: states normalised, on the device.
struct BatchTensors {
  torch::Tensor pool, mask, global, action;
  std::int64_t samples, width;
};

BatchTensors batch_tensors(const TransitionBatch& batch, const AgentShape& shape, const FeatureStatistics& pool_stats,
                           const FeatureStatistics& global_stats, const torch::Device& device) {
  const auto B = static_cast<std::int64_t>(batch.samples), W = static_cast<std::int64_t>(batch.width);
  const auto F = static_cast<std::int64_t>(shape.pool_features), G = static_cast<std::int64_t>(shape.global_features);
  if (B == 0 || W == 0) throw std::invalid_argument("DRL agent: an empty batch");
  return {input(batch.pool, pool_stats, {B, W, F}, device), plain(batch.mask, {B, W}, device),
          input(batch.global, global_stats, {B, G}, device), plain(batch.action, {B, W, 2}, device), B, W};
}

}  // namespace

Td3Agent::Td3Agent(AgentShape shape, AgentSettings settings, std::uint64_t seed)
    : shape_(std::move(shape)), settings_(std::move(settings)), seed_(seed) {
  if (shape_.pools == 0 || shape_.chains == 0 || shape_.pool_features == 0 || shape_.global_features == 0 ||
      shape_.chain_begin.size() != shape_.chains + 1 || shape_.chain_begin.front() != 0 ||
      shape_.chain_begin.back() != shape_.pools || !std::is_sorted(shape_.chain_begin.begin(), shape_.chain_begin.end()))
    throw std::invalid_argument("DRL agent: a shape without pools, chains or features, or chains that do not cover the pools");
  if (settings_.hidden == 0 || settings_.policy_delay == 0 || !(settings_.gamma >= 0 && settings_.gamma < 1) ||
      !(settings_.tau > 0 && settings_.tau <= 1))
    throw std::invalid_argument("DRL agent: hidden and policy_delay must be > 0, gamma in [0, 1), tau in (0, 1]");
  torch::manual_seed(seed);
  nets_ = std::make_unique<Nets>(shape_, settings_);
  pool_stats_ = FeatureStatistics(shape_.pool_features);
  global_stats_ = FeatureStatistics(shape_.global_features);
}

Td3Agent::~Td3Agent() = default;

void Td3Agent::set_statistics(FeatureStatistics pool, FeatureStatistics global) {
  if (pool.columns() != shape_.pool_features || global.columns() != shape_.global_features)
    throw std::invalid_argument("DRL agent: statistics of other features");
  pool_stats_ = std::move(pool);
  global_stats_ = std::move(global);
}

void Td3Agent::widen_ranges(std::span<const float> pool, std::span<const float> global) {
  pool_stats_.widen(pool);
  global_stats_.widen(global);
}

void Td3Agent::act(std::span<const float> pool, std::span<const float> global, std::size_t states,
                   std::span<float> actions, std::span<float> values) const {
  const auto S = static_cast<std::int64_t>(states), P = static_cast<std::int64_t>(shape_.pools);
  const auto F = static_cast<std::int64_t>(shape_.pool_features), G = static_cast<std::int64_t>(shape_.global_features);
  const auto C = static_cast<std::int64_t>(shape_.chains);
  if (pool.size() != static_cast<std::size_t>(S * P * F) || global.size() != static_cast<std::size_t>(S * G) ||
      actions.size() != static_cast<std::size_t>(S * P * 2) ||
      (!values.empty() && values.size() != static_cast<std::size_t>(S * C)))
    throw std::invalid_argument("DRL agent: act() inputs or outputs of the wrong size");
  torch::NoGradGuard no_grad;
  Nets& n = *nets_;
  const std::int64_t W = n.width;
  // The states' pools as chain samples: [S x C, W, F], with the global features and mask to match.
  const torch::Tensor x = torch::cat({input(pool, pool_stats_, {S, P, F}, n.device), torch::zeros({S, 1, F}, torch::kFloat32).to(n.device)}, 1)
                              .index_select(1, n.pad_index)
                              .view({S * C, W, F});
  const torch::Tensor g = input(global, global_stats_, {S, G}, n.device).repeat_interleave(C, 0);
  const torch::Tensor mask = n.chain_mask.repeat({S, 1});
  const torch::Tensor a = n.actor->forward(x, g, mask);
  const torch::Tensor out = a.view({S, C * W, 2}).index_select(1, n.valid_index).to(torch::kCPU).contiguous();
  std::copy_n(out.data_ptr<float>(), actions.size(), actions.begin());
  if (!values.empty()) {
    const torch::Tensor q = n.critic1->forward(x, g, a, mask).to(torch::kCPU).contiguous();
    std::copy_n(q.data_ptr<float>(), values.size(), values.begin());
  }
}

UpdateStats Td3Agent::update(const TransitionBatch& batch, bool actor) {
  Nets& n = *nets_;
  const BatchTensors t = batch_tensors(batch, shape_, pool_stats_, global_stats_, n.device);
  const std::int64_t B = t.samples, W = t.width;
  const auto F = static_cast<std::int64_t>(shape_.pool_features), G = static_cast<std::int64_t>(shape_.global_features);
  const torch::Tensor &s = t.pool, &mask = t.mask, &g = t.global, &a = t.action;
  const torch::Tensor r = plain(batch.reward, {B}, n.device);
  const torch::Tensor s2 = input(batch.next_pool, pool_stats_, {B, W, F}, n.device);
  const torch::Tensor g2 = input(batch.next_global, global_stats_, {B, G}, n.device);
  const torch::Tensor w = batch.weight.empty() ? torch::ones({B}, torch::kFloat32).to(n.device)
                                               : plain(batch.weight, {B}, n.device);

  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    // Smoothing noise from a generator seeded by the update count: a resumed run draws what the first would have.
    auto generator = at::make_generator<at::CPUGeneratorImpl>(seed_ * 0x9E3779B97F4A7C15ULL + updates_);
    // One smoothing noise per chain sample, shared by its pools, as exploration is.
    const torch::Tensor noise = (at::normal(0.0, settings_.target_noise, {B, 1, 2}, generator))
                                    .clamp(-settings_.noise_clip, settings_.noise_clip)
                                    .to(torch::kFloat32)
                                    .to(n.device);
    const torch::Tensor a2 = (n.actor_target->forward(s2, g2, mask) + noise).clamp(-1.0, 1.0);
    const torch::Tensor q_next = torch::min(n.critic1_target->forward(s2, g2, a2, mask),
                                            n.critic2_target->forward(s2, g2, a2, mask));
    target = r + settings_.gamma * q_next;
  }
  const torch::Tensor q1 = n.critic1->forward(s, g, a, mask);
  const torch::Tensor q2 = n.critic2->forward(s, g, a, mask);
  const torch::Tensor critic_loss = (w * ((q1 - target).pow(2) + (q2 - target).pow(2))).mean();
  n.critic_optimizer.zero_grad();
  critic_loss.backward();
  torch::nn::utils::clip_grad_norm_(n.critic_parameters(), 10.0);
  n.critic_optimizer.step();
  ++updates_;

  UpdateStats stats;
  stats.critic_loss = critic_loss.item<double>();
  stats.mean_q = q1.mean().item<double>();
  const torch::Tensor td = (q1 - target).abs().detach().to(torch::kCPU).contiguous();
  stats.td_error.assign(td.data_ptr<float>(), td.data_ptr<float>() + td.numel());

  if (updates_ % settings_.policy_delay == 0 && !actor) {
    soft_update(*n.critic1_target, *n.critic1, settings_.tau);
    soft_update(*n.critic2_target, *n.critic2, settings_.tau);
  } else if (updates_ % settings_.policy_delay == 0) {
    const torch::Tensor pi = n.actor->forward(s, g, mask);
    torch::Tensor q = n.critic1->forward(s, g, pi, mask);
    if (!batch.actor_weight.empty()) {
      const torch::Tensor size = plain(batch.actor_weight, {B}, n.device);
      q = q * size / size.mean();
    }
    torch::Tensor actor_loss;
    if (settings_.bc_alpha > 0) {
      const torch::Tensor lambda = settings_.bc_alpha / q.abs().mean().detach().clamp_min(1e-6);
      // A chain's actions are one action vector: squared distances summed over its pools, averaged over chains.
      const torch::Tensor anchor = settings_.bc_to_zero ? torch::zeros_like(a) : a;
      const torch::Tensor bc = ((pi - anchor).pow(2) * mask.unsqueeze(-1)).sum() / static_cast<double>(B);
      actor_loss = -lambda * q.mean() + bc;
    } else {
      actor_loss = -q.mean();
    }
    n.actor_optimizer.zero_grad();
    actor_loss.backward();
    torch::nn::utils::clip_grad_norm_(n.actor->parameters(), 10.0);
    n.actor_optimizer.step();
    stats.actor_loss = actor_loss.item<double>();
    stats.actor_updated = true;
    soft_update(*n.actor_target, *n.actor, settings_.tau);
    soft_update(*n.critic1_target, *n.critic1, settings_.tau);
    soft_update(*n.critic2_target, *n.critic2, settings_.tau);
  }
  return stats;
}

double Td3Agent::imitate(const TransitionBatch& batch) {
  Nets& n = *nets_;
  const BatchTensors t = batch_tensors(batch, shape_, pool_stats_, global_stats_, n.device);
  const torch::Tensor error = (n.actor->forward(t.pool, t.global, t.mask) - t.action).pow(2) * t.mask.unsqueeze(-1);
  const torch::Tensor loss = error.sum() / (2 * t.mask.sum()).clamp_min(1.0);
  n.actor_optimizer.zero_grad();
  loss.backward();
  n.actor_optimizer.step();
  copy_parameters(*n.actor_target, *n.actor);
  return loss.item<double>();
}

void Td3Agent::save(const std::string& path, const CheckpointExtras& extras) const {
  const Nets& n = *nets_;
  torch::serialize::OutputArchive archive;
  for (const auto& [key, network] : n.networks()) save_module(archive, key, *network);
  torch::serialize::OutputArchive actor_opt, critic_opt;
  n.actor_optimizer.save(actor_opt);
  n.critic_optimizer.save(critic_opt);
  archive.write("actor_optimizer", actor_opt);
  archive.write("critic_optimizer", critic_opt);
  const AgentSettings& a = settings_;
  archive.write("settings", numbers_tensor({double(shape_.pool_features), double(shape_.global_features), double(a.hidden),
                                            a.gamma, a.actor_lr, a.critic_lr, a.tau, double(a.policy_delay),
                                            a.target_noise, a.noise_clip, double(seed_), double(updates_), a.bc_alpha,
                                            a.bc_to_zero ? 1.0 : 0.0}));
  archive.write("pool_statistics", numbers_tensor(pool_stats_.to_numbers()));
  archive.write("global_statistics", numbers_tensor(global_stats_.to_numbers()));
  write_extras(archive, extras);
  save_archive(archive, path);  // a scaler loading the file never reads half of it
}

std::unique_ptr<Td3Agent> Td3Agent::load(const std::string& path, AgentShape shape, CheckpointExtras& wanted,
                                         bool optimizer, const std::string& device) {
  torch::serialize::InputArchive archive;
  try {
    // The optimisers' moments load where the networks will be.
    archive.load_from(path, parse_device(device.empty() ? "cpu" : device));
    torch::Tensor settings_tensor;
    archive.read("settings", settings_tensor);
    const std::vector<double> v = tensor_numbers(settings_tensor);
    // 13: made before the BC anchor could be the zero action.
    if (v.size() != 13 && v.size() != 14)
      throw std::runtime_error("settings hold " + std::to_string(v.size()) + " numbers, expected 14");
    if (static_cast<std::size_t>(v[0]) != shape.pool_features || static_cast<std::size_t>(v[1]) != shape.global_features)
      throw std::runtime_error("trained on " + std::to_string(static_cast<std::size_t>(v[0])) + " pool and " +
                               std::to_string(static_cast<std::size_t>(v[1])) + " global features; this system has " +
                               std::to_string(shape.pool_features) + " and " + std::to_string(shape.global_features) +
                               " (another forecast horizon?)");
    AgentSettings a;
    a.hidden = static_cast<std::size_t>(v[2]);
    a.gamma = v[3];
    a.actor_lr = v[4];
    a.critic_lr = v[5];
    a.tau = v[6];
    a.policy_delay = static_cast<std::size_t>(v[7]);
    a.target_noise = v[8];
    a.noise_clip = v[9];
    a.bc_alpha = v[12];
    a.bc_to_zero = v.size() > 13 && v[13] != 0;
    if (!device.empty()) a.device = device;
    auto agent = std::make_unique<Td3Agent>(std::move(shape), a, static_cast<std::uint64_t>(v[10]));
    agent->updates_ = static_cast<std::uint64_t>(v[11]);
    Nets& n = *agent->nets_;
    for (const auto& [key, network] : n.networks()) {
      load_module(archive, key, *network);
      network->to(n.device);
    }
    if (optimizer) {
      torch::serialize::InputArchive actor_opt, critic_opt;
      archive.read("actor_optimizer", actor_opt);
      archive.read("critic_optimizer", critic_opt);
      n.actor_optimizer.load(actor_opt);
      n.critic_optimizer.load(critic_opt);
    }
    torch::Tensor stats;
    archive.read("pool_statistics", stats);
    FeatureStatistics pool_stats = FeatureStatistics::from_numbers(tensor_numbers(stats));
    archive.read("global_statistics", stats);
    agent->set_statistics(std::move(pool_stats), FeatureStatistics::from_numbers(tensor_numbers(stats)));
    nfv::read_extras(archive, wanted);
    return agent;
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a DRL checkpoint (" + e.what_without_backtrace() + ")");
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}


void Td3Agent::read_extras(const std::string& path, CheckpointExtras& wanted) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, torch::kCPU);
    nfv::read_extras(archive, wanted);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a DRL checkpoint (" + e.what_without_backtrace() + ")");
  }
}

std::vector<float> Td3Agent::parameters() const {
  std::vector<float> out;
  const Nets& n = *nets_;
  for (const auto& [key, network] : n.networks())
    for (const torch::Tensor& p : network->parameters()) {
      const torch::Tensor c = p.detach().to(torch::kCPU).contiguous();
      out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
  return out;
}

void set_drl_threads(int threads) { torch::set_num_threads(threads); }

}  // namespace nfv
