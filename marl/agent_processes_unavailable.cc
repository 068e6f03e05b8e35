// agent_processes.h in a build without the gloo headers: every entry says so.
#include <stdexcept>

#include "agent_processes.h"

namespace nfv {

namespace {

[[noreturn]] void unavailable() {
  throw std::runtime_error(
      "marl: agents as processes are not in this build: it was configured without the gloo headers "
      "(Debian: apt-get install libgloo-dev, then configure again)");
}

}  // namespace

AgentProcessReport run_agent_process(const MarlSettings&, const MixingMatrix&, const EnvironmentFactory&, std::uint64_t,
                                     std::uint64_t, std::size_t, const AgentProcessOptions&, AgentStart) {
  unavailable();
}

struct AgentStore::Server {};
AgentStore::AgentStore(const std::string&, std::uint16_t, std::chrono::milliseconds) { unavailable(); }
AgentStore::~AgentStore() = default;
std::uint16_t AgentStore::port() const { unavailable(); }
bool AgentStore::reached(std::uint64_t) const { unavailable(); }

AgentProcessesRun run_agent_processes(const MarlSettings&, const MixingMatrix&, const EnvironmentFactory&, std::uint64_t,
                                      std::uint64_t, AgentProcessOptions, std::optional<AgentFault>, std::chrono::seconds) {
  unavailable();
}

std::string agent_file(const std::string& dir, std::size_t agent, const char* suffix) {
  return dir + "/agent-" + std::to_string(agent) + suffix;
}

bool agent_processes_available() { return false; }

}  // namespace nfv
