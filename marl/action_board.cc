#include "action_board.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "bounded_poll.h"

namespace nfv {

namespace {

// A posted record: 'A' then int32 actions; a tombstone: "D".
const std::vector<std::uint8_t> kTombstone{'D'};

std::vector<std::uint8_t> encode(const std::vector<std::int64_t>& actions) {
  std::vector<std::uint8_t> out(1 + 4 * actions.size());
  out[0] = 'A';
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const auto a = static_cast<std::int32_t>(actions[i]);
    std::memcpy(out.data() + 1 + 4 * i, &a, 4);
  }
  return out;
}

std::vector<std::int64_t> decode(const std::vector<std::uint8_t>& record, const std::string& key) {
  if (record.empty() || record[0] != 'A' || (record.size() - 1) % 4 != 0)
    throw std::runtime_error("marl store: " + key + " holds no actions");
  std::vector<std::int64_t> out((record.size() - 1) / 4);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int32_t a = 0;
    std::memcpy(&a, record.data() + 1 + 4 * i, 4);
    out[i] = a;
  }
  return out;
}

}  // namespace

ActionBoard::ActionBoard(c10d::Store& store, std::size_t agents, std::size_t self, std::int64_t idle_action,
                         std::chrono::milliseconds peer_timeout)
    : store_(store), agents_(agents), self_(self), idle_(idle_action), timeout_(peer_timeout) {}

void ActionBoard::begin(std::uint64_t t, const std::vector<Member>& members) {
  t_ = t;
  step_ = 0;
  members_ = members;
  written_off_.clear();
}

std::vector<std::int64_t> ActionBoard::exchange(const std::vector<std::int64_t>& own, std::size_t copies) {
  const auto key = [&](std::size_t agent) {
    return "act/" + std::to_string(t_) + "/" + std::to_string(step_) + "/" + std::to_string(agent);
  };
  const std::vector<std::uint8_t> mine = encode(own);
  if (store_.compareSet(key(self_), {}, mine) != mine)
    throw WrittenOff("marl: agent " + std::to_string(self_) + " was written off by the others at iteration " +
                     std::to_string(t_) + ", step " + std::to_string(step_));
  bytes_ += mine.size();
  std::vector<std::int64_t> joint(copies * agents_, idle_);
  for (std::size_t e = 0; e < copies; ++e) joint[e * agents_ + self_] = own[e];
  // One deadline for the step: agents that died together cost one timeout.
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  for (const Member& m : members_) {
    if (m.agent == self_ || std::find(written_off_.begin(), written_off_.end(), m) != written_off_.end()) continue;
    const std::string k = key(m.agent);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::vector<std::uint8_t> record = poll_until(std::max(left, std::chrono::milliseconds(0)), [&] { return store_.check({k}); })
                                           ? store_.get(k)
                                           : store_.compareSet(k, {}, kTombstone);  // what every survivor reads
    if (record == kTombstone) {
      written_off_.push_back(m);
      continue;
    }
    bytes_ += record.size();
    const std::vector<std::int64_t> actions = decode(record, k);
    if (actions.size() != copies) throw std::runtime_error("marl store: " + k + " holds actions for another number of copies");
    for (std::size_t e = 0; e < copies; ++e) joint[e * agents_ + m.agent] = actions[e];
  }
  ++step_;
  return joint;
}

void ActionBoard::keep_joint(std::uint64_t t, const std::vector<std::int64_t>& joint) {
  store_.compareSet("joint/" + std::to_string(t), {}, encode(joint));
}

std::vector<std::int64_t> ActionBoard::joint_of(std::uint64_t t, std::chrono::milliseconds limit) {
  const std::string key = "joint/" + std::to_string(t);
  if (!poll_until(limit, [&] { return store_.check({key}); }))
    throw std::runtime_error("marl store: no joint actions kept for iteration " + std::to_string(t));
  return decode(store_.get(key), key);
}

}  // namespace nfv
