#include "peer_gossip.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace nfv {

struct PeerGossip::Group {
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  std::vector<std::size_t> members;     // agents, ascending; group rank = index
  std::vector<std::size_t> neighbours;  // live graph neighbours of this agent
  torch::Tensor weights;                // [N, N] float32, W over the members
  int tag = 0;                          // one per round, the same in every member
  // Operations that failed (see retire()).
  std::vector<c10::intrusive_ptr<c10d::Work>> abandoned;

  int rank_of(std::size_t agent) const {
    return static_cast<int>(std::find(members.begin(), members.end(), agent) - members.begin());
  }
};

namespace {

// An int8 message: the float32 scale, then the values / scale rounded.
torch::Tensor pack_int8(const torch::Tensor& values, float scale) {
  const torch::Tensor q = (values / scale).round().clamp(-127, 127).to(torch::kInt8).contiguous();
  torch::Tensor packed = torch::empty({4 + q.numel()}, torch::kUInt8);
  std::memcpy(packed.data_ptr(), &scale, 4);
  std::memcpy(static_cast<std::uint8_t*>(packed.data_ptr()) + 4, q.data_ptr(), static_cast<std::size_t>(q.numel()));
  return packed;
}

torch::Tensor unpack_int8(const torch::Tensor& packed) {
  float scale = 0;
  std::memcpy(&scale, packed.data_ptr(), 4);
  return packed.narrow(0, 4, packed.numel() - 4).view(torch::kInt8).to(torch::kFloat32).mul(scale).unsqueeze(0);
}

// A group with abandoned operations is kept until the process ends:
// Gloo may still write into their buffers, and destroying it may wait on
// a dead peer. Healthy groups are simply destroyed.
void retire(std::unique_ptr<PeerGossip::Group> group) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::unique_ptr<PeerGossip::Group>>();
  if (!group || group->abandoned.empty()) return;
  const std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(group));
}

}  // namespace

PeerGossip::PeerGossip(c10::intrusive_ptr<c10d::Store> store, std::size_t self, std::string listen_host,
                       std::chrono::milliseconds timeout, bool int8_messages)
    : store_(std::move(store)), self_(self), listen_host_(std::move(listen_host)), timeout_(timeout), int8_(int8_messages) {}

PeerGossip::~PeerGossip() {
  if (group_) retire(std::move(group_));
}

bool PeerGossip::regroup(const std::string& name, const MixingMatrix& weights) {
  if (group_) retire(std::move(group_));
  auto g = std::make_unique<Group>();
  for (std::size_t i = 0; i < weights.agents(); ++i)
    if (weights.alive()[i]) g->members.push_back(i);
  for (const auto& [i, j] : weights.edges()) {
    if (i == self_) g->neighbours.push_back(j);
    if (j == self_) g->neighbours.push_back(i);
  }
  std::sort(g->neighbours.begin(), g->neighbours.end());
  const auto n = static_cast<std::int64_t>(weights.agents());
  std::vector<float> w(weights.weights().begin(), weights.weights().end());
  g->weights = torch::from_blob(w.data(), {n, n}, torch::kFloat32).clone();
  if (g->neighbours.empty()) {  // alone: nothing to connect
    group_ = std::move(g);
    return true;
  }
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout_);
    options->devices.push_back(listen_host_.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                                    : c10d::ProcessGroupGloo::createDeviceForHostname(listen_host_));
    options->threads = 1;  // point-to-point only: no collective runs on the group's threads
    g->group = c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>(name, store_),
                                                           g->rank_of(self_), static_cast<int>(g->members.size()), options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "marl agent %zu: no gossip group %s: %s\n", self_, name.c_str(), e.what());
    retire(std::move(g));
    return false;
  }
  group_ = std::move(g);
  return true;
}

torch::Tensor PeerGossip::mix(const torch::Tensor& own, std::size_t rounds, GossipKind kind) {
  if (rounds == 0 || !group_ || !group_->group) return own;
  torch::NoGradGuard no_grad;
  Group& g = *group_;
  const auto n = g.weights.size(0);
  torch::Tensor x = own.reshape({1, -1}).to(torch::kCPU).contiguous();
  torch::Tensor& residual = residual_[kind == GossipKind::td_errors];
  if (int8_ && (!residual.defined() || residual.sizes() != x.sizes() || kind == GossipKind::td_errors))
    residual = torch::zeros_like(x);
  for (std::size_t r = 0; r < rounds; ++r, ++g.tag) {
    // What goes out: x itself, or int8 of x plus what rounding left out before.
    torch::Tensor message = x;
    if (int8_) {
      const torch::Tensor meant = x + residual;
      const float largest = meant.abs().max().item<float>();
      message = pack_int8(meant, largest > 0 ? largest / 127 : 1.0F);
      residual = meant - unpack_int8(message);
    }
    // The whole [N, D] block, rows of non-neighbours zero, so that this
    // agent's row of W x is computed by the very product a stacked run does.
    torch::Tensor block = torch::zeros({n, x.size(1)}, torch::kFloat32);
    block[static_cast<std::int64_t>(self_)].copy_(x[0]);
    std::vector<std::size_t> asked;  // the neighbours not lost yet
    std::vector<c10::intrusive_ptr<c10d::Work>> sends, receives;
    std::vector<torch::Tensor> received;
    for (std::size_t j : g.neighbours) {
      if (std::find(lost_.begin(), lost_.end(), j) != lost_.end()) {
        block[static_cast<std::int64_t>(j)].copy_(x[0]);  // a lost neighbour's share stays with this agent's value
        continue;
      }
      std::vector<at::Tensor> out{message}, in{torch::empty_like(message)};
      try {  // a connection already closed fails here rather than in the wait
        sends.push_back(g.group->send(out, g.rank_of(j), g.tag));
        receives.push_back(g.group->recv(in, g.rank_of(j), g.tag));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "marl agent %zu: neighbour %zu lost: %s\n", self_, j, e.what());
        if (sends.size() > receives.size()) g.abandoned.push_back(sends.back()), sends.pop_back();
        lost_.push_back(j);
        block[static_cast<std::int64_t>(j)].copy_(x[0]);
        continue;
      }
      asked.push_back(j);
      received.push_back(in[0]);
    }
    for (std::size_t k = 0; k < asked.size(); ++k) {
      const std::size_t j = asked[k];
      bool answered = true;
      try {
        receives[k]->wait(timeout_);
        sends[k]->wait(timeout_);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "marl agent %zu: neighbour %zu lost: %s\n", self_, j, e.what());
        answered = false;
        lost_.push_back(j);
        g.abandoned.push_back(receives[k]);
        g.abandoned.push_back(sends[k]);
      }
      block[static_cast<std::int64_t>(j)].copy_(!answered ? x[0] : int8_ ? unpack_int8(received[k])[0] : received[k][0]);
    }
    x = g.weights.mm(block).narrow(0, static_cast<std::int64_t>(self_), 1).contiguous();
    traffic_.rounds += 1;
    traffic_.messages += asked.size();
    traffic_.bytes += asked.size() * static_cast<std::uint64_t>(message.nbytes());
  }
  return x.reshape(own.sizes()).to(own.device());
}

std::vector<std::size_t> PeerGossip::take_lost() {
  std::vector<std::size_t> out;
  out.swap(lost_);
  return out;
}

}  // namespace nfv

