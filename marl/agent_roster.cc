#include "agent_roster.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace nfv {

std::vector<std::uint8_t> store_bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string store_text(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::string to_string(const std::vector<Member>& members) {
  std::string out;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "," + std::string.
  for (const Member& m : members) {
    if (!out.empty()) out += ',';
    out += std::to_string(m.agent);
    out += ':';
    out += std::to_string(m.incarnation);
  }
  return out;
}

std::vector<Member> members_from(const std::string& text) {
  std::vector<Member> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) throw std::runtime_error("marl store: unreadable members '" + text + "'");
    out.push_back({std::stoul(item.substr(0, colon)), std::stoull(item.substr(colon + 1))});
  }
  return out;
}

bool holds(const std::vector<Member>& members, std::size_t agent) {
  return std::any_of(members.begin(), members.end(), [&](const Member& m) { return m.agent == agent; });
}

AgentRoster::AgentRoster(c10d::Store& store, std::size_t agents, std::size_t self) : store_(store), agents_(agents), self_(self) {}

std::vector<Member> AgentRoster::everyone() const {
  std::vector<Member> out;
  for (std::size_t i = 0; i < agents_; ++i) out.push_back({i, 0});
  return out;
}

std::string AgentRoster::dead_key(const Member& m) const {
  return "dead/" + std::to_string(m.agent) + ":" + std::to_string(m.incarnation);
}

std::vector<Member> AgentRoster::members(std::uint64_t t, const std::vector<Member>& previous,
                                         std::optional<std::size_t> awaited, std::chrono::milliseconds limit) {
  const std::string key = "members/" + std::to_string(t);
  if (store_.check({key})) return members_from(store_text(store_.get(key)));
  if (awaited) poll_until(limit, [&] { return store_.check({key}) || store_.check({"join/" + std::to_string(*awaited)}); });
  std::vector<Member> proposal;
  for (const Member& m : previous)
    if (!store_.check({dead_key(m)})) proposal.push_back(m);
  for (std::size_t j = 0; j < agents_; ++j) {
    const std::string join = "join/" + std::to_string(j);
    if (holds(proposal, j) || !store_.check({join})) continue;
    const Member asking{j, std::stoull(store_text(store_.get(join)))};
    if (!store_.check({dead_key(asking)})) proposal.push_back(asking);
  }
  std::sort(proposal.begin(), proposal.end(), [](const Member& a, const Member& b) { return a.agent < b.agent; });
  if (proposal.empty()) proposal.push_back({self_, 0});  // unreachable: the proposer is alive
  return members_from(store_text(store_.compareSet(key, {}, store_bytes(to_string(proposal)))));
}

std::vector<Member> AgentRoster::decided(std::uint64_t t, std::chrono::milliseconds limit) {
  const std::string key = "members/" + std::to_string(t);
  if (!poll_until(limit, [&] { return store_.check({key}); }))
    throw std::runtime_error("marl store: the members of iteration " + std::to_string(t) + " were not decided within " +
                             std::to_string(limit.count()) + " ms");
  return members_from(store_text(store_.get(key)));
}

void AgentRoster::mark_dead(const Member& member, std::uint64_t t) {
  store_.compareSet(dead_key(member), {}, store_bytes(std::to_string(t)));
}

void AgentRoster::admit(std::uint64_t t, const std::vector<Member>& members, const std::vector<Member>& previous) {
  for (const Member& m : members)
    if (std::find(previous.begin(), previous.end(), m) == previous.end())
      store_.compareSet("admitted/" + std::to_string(m.agent) + ":" + std::to_string(m.incarnation), {},
                        store_bytes(std::to_string(t)));
}

Member AgentRoster::join(std::chrono::milliseconds limit, std::uint64_t& admitted_at) {
  const Member me{self_, static_cast<std::uint64_t>(store_.add("incarnation/" + std::to_string(self_), 1))};
  store_.set("join/" + std::to_string(self_), store_bytes(std::to_string(me.incarnation)));
  const std::string key = "admitted/" + std::to_string(self_) + ":" + std::to_string(me.incarnation);
  if (!poll_until(limit, [&] { return store_.check({key}); }))
    throw std::runtime_error("marl: agent " + std::to_string(self_) + " asked to join and was not admitted within " +
                             std::to_string(limit.count()) + " ms (are the other agents running?)");
  admitted_at = std::stoull(store_text(store_.get(key)));
  return me;
}

}  // namespace nfv
