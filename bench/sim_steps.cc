// nfv-sim's speed: simulated slots per second (policy decision + fluid step)
// on the Abilene topology with all 132 OD pairs of the Abilene April block
// as chains, on one core, for the static and threshold policies. The
// learning policies train on this loop, so it must stay far faster than
// the data plane's slots: target >= 20,000 slot-steps/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "episode.h"
#include "policy.h"
#include "rate_trace.h"
#include "simulator.h"

namespace {

constexpr double kTargetStepsPerSecond = 20000;
constexpr double kMinSecondsPerPolicy = 3;  // whole episodes until at least this long

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : "../shared/data") + "/" + relative;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string topology_path = argc > 1 ? argv[1] : "topologies/data/abilene.yaml";
  const nfv::RateTraceFile file = nfv::load_abilene_traffic(shared("traffic/abilene/abilene_tm_5min_mbps.csv"));
  const nfv::RateTrace& april = file.blocks.back();
  nfv::Topology topology = nfv::load_topology_yaml(topology_path);
  topology.chains = nfv::chains_for_od_pairs(april, topology, {"counter"}, 60);

  nfv::SimSettings settings;
  settings.scale.trace_step_seconds = april.step_seconds;
  settings.scale.volume_scale = 10;  // so that pools overflow and the threshold policy scales
  auto model = std::make_shared<const nfv::SystemModel>(topology, settings);
  auto arrivals = std::make_shared<const nfv::ArrivalSchedule>(nfv::arrivals_for_chains(april, topology, settings.scale));
  std::printf("sim_steps: %s, %zu chains (OD pairs of %s, one counter hop each), %zu slots per episode\n",
              topology.name.c_str(), topology.chains.size(), april.label.c_str(), arrivals->slots());
  std::printf("mapping: %s\n", arrivals->description.c_str());

  for (const char* name : {"static", "threshold"}) {
    const nfv::PolicyParams params;
    auto policy = nfv::make_policy(name, params, model);
    const nfv::Plan first = nfv::starting_plan(params, model->topology());
    nfv::SlotLoop loop(model, nfv::make_sim_backend(model, arrivals, first),
                       std::make_unique<nfv::Forecaster>(nfv::ForecastSpec{}, *model, arrivals->mapping), std::move(policy),
                       first, nfv::SlotLoopSettings{});
    nfv::run_episode(loop);  // warm-up: buffers reach their size
    std::size_t steps = 0, episodes = 0;
    nfv::EpisodeSummary last;
    const auto start = std::chrono::steady_clock::now();
    double seconds = 0, shown = 0;
    while (seconds < kMinSecondsPerPolicy) {
      last = nfv::run_episode(loop);
      steps += last.slots;
      ++episodes;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (seconds - shown >= 0.5) {  // a progress line, not a flood
        shown = seconds;
        std::fprintf(stderr, "\r%-9s %zu episodes, %.1f s ", name, episodes, seconds);
      }
    }
    std::fprintf(stderr, "\n");
    const double rate = steps / seconds;
    std::printf("%-9s %8.0f slot-steps/s  (%zu steps in %.2f s; %.1f us/step)  ratio to target %.2f  "
                "[episode cost %.1f, dropped %.3f%%, instances mean %.1f max %.0f]\n",
                name, rate, steps, seconds, 1e6 / rate, rate / kTargetStepsPerSecond, last.cost.total(),
                100 * last.traffic.dropped / last.traffic.arrived, last.mean_instances, last.max_instances);
  }
  return 0;
}
