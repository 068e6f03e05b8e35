// The simulator's speed, which the learning policies train on:
//  - slot-steps per second of the slot loop (forecast, decide, check, step,
//    account) for the static and threshold policies, one core;
//  - one environment stepped with a fixed plan, and K of them stepped at
//    once on 1 and 2 threads (the ratio is the speed-up of stepping them in
//    parallel, the same results either way);
//  - what an agent pays per step besides: featurizing an observation and
//    decoding an output into a plan.
// Default system: Abilene with the 132 OD pairs of its April block as
// one-hop chains (counter), at 10x the traffic; any --topology/--trace.
// Target: >= 20,000 slot-steps/s for the loop.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "action_decoder.h"
#include "episode.h"
#include "featurizer.h"
#include "policy.h"
#include "scenario.h"
#include "vector_environment.h"

namespace {

constexpr double kTargetStepsPerSecond = 20000;
constexpr double kMinSeconds = 3;  // each row runs at least this long
constexpr std::size_t kVectorSize = 8;

// Runs `body` (which returns the steps it made) until kMinSeconds passed; steps per second.
double rate(const std::function<std::size_t()>& body) {
  std::size_t steps = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  while (seconds < kMinSeconds) {
    steps += body();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return static_cast<double>(steps) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  nfv::ScenarioOptions options;
  options.sim.scale.volume_scale = 10;  // so that pools overflow and the threshold policy scales
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h") {
        std::printf("usage: sim_steps [options]\n%s", nfv::kScenarioUsage);
        return 0;
      }
      if (i + 1 >= argc || !nfv::scenario_option(option, argv[i + 1], options))
        throw std::invalid_argument("unknown option or missing value: '" + option + "' (--help)");
      ++i;
    }
    const nfv::Scenario scenario = nfv::load_scenario(options);
    const auto& model = scenario.model;
    const auto& arrivals = scenario.test;
    std::printf("sim_steps\n%s", scenario.describe().c_str());
    const nfv::Plan first = nfv::starting_plan({}, model->topology());

    for (const char* name : {"static", "threshold"}) {
      nfv::SlotLoop loop(model, nfv::make_sim_backend(model, arrivals, first),
                         std::make_unique<nfv::Forecaster>(nfv::ForecastSpec{}, *model, arrivals->mapping),
                         nfv::make_policy(name, {}, model), first, nfv::SlotLoopSettings{});
      nfv::EpisodeSummary last = nfv::run_episode(loop);  // warm-up: buffers reach their size
      const double steps = rate([&] {
        last = nfv::run_episode(loop);
        return last.slots;
      });
      std::printf("loop, %-9s %9.0f slot-steps/s (%.1f us/step)  ratio to target %.2f  [episode cost %.1f, dropped %.3f%%, "
                  "instances mean %.1f]\n",
                  name, steps, 1e6 / steps, steps / kTargetStepsPerSecond, last.cost.total(),
                  100 * last.traffic.dropped / last.traffic.arrived, last.mean_instances);
    }

    // Environments, a fixed plan: one, then K at once on 1 and 2 threads.
    const nfv::Plan& plan = first;
    const nfv::ScalerEnvironment prototype(model, arrivals, first);
    nfv::ScalerEnvironment one(model, arrivals, first);
    const double single = rate([&] {
      one.reset();
      std::size_t n = 0;
      while (!one.done()) {
        one.step(plan);
        ++n;
      }
      return n;
    });
    std::printf("environment, one         %9.0f steps/s\n", single);
    double sequential = 0;
    for (std::size_t threads : {0, 1}) {
      nfv::VectorEnvironment vector(nfv::copies(kVectorSize, prototype), threads);
      std::vector<nfv::EpisodeSpec> episodes;
      for (std::size_t k = 0; k < kVectorSize; ++k) episodes.push_back(nfv::EpisodeSpec{k, std::nullopt, 96});
      const std::vector<nfv::Plan> plans(kVectorSize, plan);
      const double steps = rate([&] {
        vector.reset(episodes);
        std::size_t n = 0;
        while (!vector[0].done()) {
          vector.step(plans);
          n += kVectorSize;
        }
        return n;
      });
      if (threads == 0) sequential = steps;
      std::printf("environment, %zu at once, %zu thread%s %9.0f steps/s  ratio to one thread %.2f\n", kVectorSize,
                  threads + 1, threads ? "s" : " ", steps, steps / sequential);
    }

    // An agent's own work per step: the features in, the plan out.
    const nfv::Featurizer featurizer(model, arrivals->mapping, 4);
    const nfv::ActionDecoder decoder(model, nfv::DecoderSettings{});
    std::vector<float> pools(featurizer.pools() * featurizer.pool_features()), global(featurizer.global_features());
    one.reset();
    one.step(plan);
    const nfv::Forecast forecast = nfv::persistence_forecast(one.observation(), 4);
    const double featurize = rate([&] {
      for (int i = 0; i < 100; ++i) featurizer.featurize(one.observation(), forecast, pools, global);
      return 100;
    });
    std::mt19937_64 random(1);
    std::uniform_real_distribution<float> uniform(-1, 6);
    std::vector<float> output(decoder.pools());
    for (float& x : output) x = uniform(random);
    const double decode = rate([&] {
      for (int i = 0; i < 100; ++i) (void)decoder.decode(output, output);
      return 100;
    });
    std::printf("featurize  %8.1f us per observation (%zu pools x %zu features)\n", 1e6 / featurize, featurizer.pools(),
                featurizer.pool_features());
    std::printf("decode     %8.1f us per output into a valid plan (%zu pools), ratio to a step %.2f\n", 1e6 / decode,
                decoder.pools(), single / decode);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_steps: %s\n", e.what());
    return 1;
  }
}
