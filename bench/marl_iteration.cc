// What one training iteration of marl/ costs (docs/marl.md, "On a GPU"):
// DecentralizedActorCritic::update() on one fixed rollout (every agent's K
// critic steps, consensus, the gossiped TD errors, the actor step), N agents
// (default 12) with hidden width 256, a batch of 256 samples and 10 gossip
// rounds. Measured in one run: the stacked agents (batched matmuls) and the
// looped ones (the one-by-one reference) on the CPU, and on CUDA when there
// is one: update(), the same work on static buffers (static_update.h) and,
// when built with CUDA graphs, that work captured once and replayed
// (captured_update.h). Prints ms per iteration and the ratios the targets
// are about; --check first compares the paths' parameters after a few
// iterations; --out writes marl_iteration.csv. Never asserts on time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <torch/cuda.h>

#include "decentralized_actor_critic.h"
#include "mixing_matrix.h"
#include "option_values.h"
#include "simple_spread.h"
#include "stacked_mlp.h"
#include "static_update.h"
#ifdef NFV_CUDA_GRAPHS
#include "captured_update.h"
#endif

namespace {

constexpr const char* kUsage = R"(usage: marl_iteration [options]
  --agents N             agents (default 12)
  --width M              hidden width of every critic and actor (default 256)
  --batch B              samples per update: episode steps x copies (default 256)
  --episode H            steps per episode of Simple Spread (default 8; copies = B / H)
  --gossip-rounds T      t_gossip, for the critics and for the TD errors (default 10)
  --critic-steps K       TD steps per iteration (default 10)
  --critic-depth D       hidden layers of each critic (default 5)
  --actor-depth D        hidden layers of each actor (default 2)
  --graph G              ring | path | complete | edges 0-1,1-2,... (default ring)
  --devices LIST         cpu, cuda (default: cpu, and cuda when LibTorch sees one)
  --layouts LIST         stacked, looped (default both)
  --warmup N             untimed iterations before each timing (default 2)
  --seconds S            time each variant about this long (default 2)
  --min-iterations N     but at least N iterations (default 3)
  --max-iterations N     and at most N (default 2000)
  --rounds R             time every variant R times in turns, report the median (default 1)
  --threads N            LibTorch CPU threads (default: every core, here )";

constexpr const char* kUsageEnd = R"()
  --check                first compare the paths' parameters after 3 iterations
  --no-graph             leave out the CUDA-graph variant (when built with it)
  --out DIR              also write DIR/marl_iteration.csv
)";

struct Options {
  std::size_t agents = 12, width = 256, batch = 256, episode = 8, gossip_rounds = 10, critic_steps = 10;
  std::size_t critic_depth = 5, actor_depth = 2;
  std::string graph = "ring";
  std::vector<std::string> devices, layouts{"stacked", "looped"};
  std::size_t warmup = 2, min_iterations = 3, max_iterations = 2000, rounds = 1;
  double seconds = 2;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool check = false, with_graph = true;
  std::string out;
};

std::vector<std::string> names(const std::string& option, const std::string& text, const std::vector<std::string>& known) {
  std::vector<std::string> out = nfv::option_list(text);
  for (const std::string& name : out)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw std::invalid_argument(option + ": unknown '" + name + "'");
  if (out.empty()) throw std::invalid_argument(option + ": expected at least one name");
  return out;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help") {
      std::printf("%s%d%s", kUsage, o.threads, kUsageEnd);
      std::exit(0);
    }
    if (option == "--check") { o.check = true; continue; }
    if (option == "--no-graph") { o.with_graph = false; continue; }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (option == "--agents") o.agents = nfv::option_positive_count(option, value);
    else if (option == "--width") o.width = nfv::option_positive_count(option, value);
    else if (option == "--batch") o.batch = nfv::option_positive_count(option, value);
    else if (option == "--episode") o.episode = nfv::option_positive_count(option, value);
    else if (option == "--gossip-rounds") o.gossip_rounds = nfv::option_count(option, value);
    else if (option == "--critic-steps") o.critic_steps = nfv::option_positive_count(option, value);
    else if (option == "--critic-depth") o.critic_depth = nfv::option_positive_count(option, value);
    else if (option == "--actor-depth") o.actor_depth = nfv::option_count(option, value);
    else if (option == "--graph") o.graph = value;
    else if (option == "--devices") o.devices = names(option, value, {"cpu", "cuda"});
    else if (option == "--layouts") o.layouts = names(option, value, {"stacked", "looped"});
    else if (option == "--warmup") o.warmup = nfv::option_count(option, value);
    else if (option == "--seconds") o.seconds = nfv::option_number(option, value);
    else if (option == "--min-iterations") o.min_iterations = nfv::option_positive_count(option, value);
    else if (option == "--max-iterations") o.max_iterations = nfv::option_positive_count(option, value);
    else if (option == "--rounds") o.rounds = nfv::option_positive_count(option, value);
    else if (option == "--threads") o.threads = static_cast<int>(nfv::option_positive_count(option, value));
    else if (option == "--out") o.out = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  if (o.batch % o.episode != 0)
    throw std::invalid_argument("--batch: expected a multiple of --episode (" + std::to_string(o.episode) + "), got " +
                                std::to_string(o.batch));
  if (o.devices.empty()) {
    o.devices = {"cpu"};
    if (torch::cuda::is_available()) o.devices.push_back("cuda");
  }
  return o;
}

nfv::SimpleSpread make_game(const Options& o) {
  nfv::SimpleSpreadSettings game;
  game.agents = o.agents;
  game.episode_length = o.episode;
  game.copies = o.batch / o.episode;
  game.fixed_landmarks = true;
  return nfv::SimpleSpread(game, 1);
}

nfv::MarlSettings make_settings(const Options& o, const std::string& device, const std::string& layout) {
  nfv::MarlSettings s;
  s.critic_width = s.actor_width = o.width;
  s.critic_depth = o.critic_depth;
  s.actor_depth = o.actor_depth;
  s.critic_steps = o.critic_steps;
  s.gossip_rounds = o.gossip_rounds;
  s.reward_scale = 0.1;
  s.device = device;
  s.layout = nfv::parse_network_layout("--layouts", layout);
  return s;
}

void wait_for(const std::string& device) {
  if (device == "cuda") torch::cuda::synchronize();
}

// One way of making an iteration, on a learner of its own.
struct Path {
  std::unique_ptr<nfv::DecentralizedActorCritic> learner;
  std::unique_ptr<nfv::StaticUpdate> fixed;
#ifdef NFV_CUDA_GRAPHS
  std::unique_ptr<nfv::CapturedUpdate> graph;
#endif
  std::function<void()> step;
};

// kind: update (update() itself), static (StaticUpdate), graph (CapturedUpdate).
Path make_path(const Options& o, const nfv::MarlEnvironment& game, const nfv::Rollout& rollout, const std::string& device,
               const std::string& layout, const std::string& kind) {
  Path p;
  p.learner = std::make_unique<nfv::DecentralizedActorCritic>(make_settings(o, device, layout),
                                                              nfv::MixingMatrix::parse("--graph", o.graph, o.agents), game, 7);
  nfv::DecentralizedActorCritic& learner = *p.learner;
  if (kind == "update") {
    p.step = [&learner, &rollout] { learner.update(rollout); };
    return p;
  }
  p.fixed = std::make_unique<nfv::StaticUpdate>(learner, rollout);
  nfv::StaticUpdate& fixed = *p.fixed;
  if (kind == "static") {
    p.step = [&fixed] { fixed.run(); };
    return p;
  }
#ifdef NFV_CUDA_GRAPHS
  p.graph = std::make_unique<nfv::CapturedUpdate>(fixed, 3);
  nfv::CapturedUpdate& graph = *p.graph;
  p.step = [&graph] { graph.replay(); };
#endif
  return p;
}

// One variant being timed: its name, layout, path kind and rounds.
struct Variant {
  std::string name, layout, kind;
  std::unique_ptr<Path> path;
  std::size_t iterations = 0;
  std::vector<double> ms;  // per round
};

struct Timing {
  std::size_t iterations = 0;
  double ms = 0;  // per iteration
};

// After the warm-up (run()): iterations until --seconds, within --min/--max-iterations.
Timing time_path(const Options& o, Path& path, const std::string& device) {
  wait_for(device);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Timing t;
  while (t.iterations < o.min_iterations || (t.iterations < o.max_iterations && elapsed() < o.seconds)) {
    path.step();
    ++t.iterations;
  }
  wait_for(device);
  t.ms = 1e3 * elapsed() / static_cast<double>(t.iterations);
  return t;
}

std::vector<float> all_parameters(const nfv::DecentralizedActorCritic& learner) {
  std::vector<float> out;
  for (std::size_t i = 0; i < learner.agents(); ++i) {
    for (float v : learner.critic_parameters(i)) out.push_back(v);
    for (float v : learner.actor_parameters(i)) out.push_back(v);
  }
  return out;
}

// The largest parameter difference from update()'s after 3 iterations.
void check_paths(const Options& o, const nfv::MarlEnvironment& game, const nfv::Rollout& rollout, const std::string& device,
                 const std::vector<std::string>& kinds) {
  Path reference = make_path(o, game, rollout, device, "stacked", "update");
  for (int i = 0; i < 3; ++i) reference.step();
  const std::vector<float> expected = all_parameters(*reference.learner);
  for (const std::string& kind : kinds) {
    if (kind == "update") continue;
    Path path = make_path(o, game, rollout, device, "stacked", kind);
    for (int i = 0; i < 3; ++i) path.step();
    wait_for(device);
    const std::vector<float> got = all_parameters(*path.learner);
    float worst = 0, largest = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      worst = std::max(worst, std::abs(got[k] - expected[k]));
      largest = std::max(largest, std::abs(expected[k]));
    }
    std::printf("check %-4s %-6s vs update(): largest |difference| %.3g (parameters up to %.3g; %s)\n", device.c_str(),
                kind.c_str(), worst, largest, worst <= 1e-4 * std::max(1.0f, largest) ? "agree" : "DIFFER");
  }
}

nfv::MlpShape critic_shape(const Options& o, const nfv::MarlEnvironment& game) {
  return {static_cast<std::int64_t>(game.state_size() + o.agents * game.actions()), static_cast<std::int64_t>(o.width),
          static_cast<std::int64_t>(o.critic_depth), 1};
}

// The floating-point work of one iteration, roughly (2 per multiply-add,
// weights only): per agent, K TD steps of a target pass, a pass and its
// backward (twice a pass), two passes for the TD errors, the actor's pass
// and backward; both gossips, W times every agent's row, t_gossip times.
double iteration_gflop(const Options& o, const nfv::MarlEnvironment& game) {
  const auto weights = [](const nfv::MlpShape& shape) {
    double w = 0;
    for (std::int64_t l = 0; l < shape.layers(); ++l) w += double(shape.layer_inputs(l)) * double(shape.layer_outputs(l));
    return w;
  };
  const nfv::MlpShape critic = critic_shape(o, game);
  const nfv::MlpShape actor{static_cast<std::int64_t>(game.observation_size()), static_cast<std::int64_t>(o.width),
                            static_cast<std::int64_t>(o.actor_depth), static_cast<std::int64_t>(game.actions())};
  const double pass = 2.0 * double(o.batch), n = double(o.agents);
  const double networks = n * pass * ((4.0 * double(o.critic_steps) + 2.0) * weights(critic) + 3.0 * weights(actor));
  const double gossip = 2.0 * double(o.gossip_rounds) * n * n * (double(critic.parameters()) + double(o.batch));
  return (networks + gossip) * 1e-9;
}

int run(const Options& o) {
  nfv::set_marl_threads(o.threads);
  nfv::SimpleSpread game = make_game(o);
  // One rollout for every path: collected once by the initial policies.
  const nfv::Rollout rollout = nfv::DecentralizedActorCritic(make_settings(o, "cpu", "stacked"),
                                                             nfv::MixingMatrix::parse("--graph", o.graph, o.agents), game, 7)
                                   .collect(game);
  const double gflop = iteration_gflop(o, game);
  {
    const nfv::MarlSettings s = make_settings(o, "cpu", "stacked");
    std::printf("marl_iteration: %zu agents, width %zu, batch %zu (%zu copies x %zu steps), t_gossip %zu, K %zu, critic depth %zu "
                "(%lld parameters per agent), actor depth %zu, graph %s, %d CPU threads; about %.1f GFLOP an iteration\n",
                o.agents, o.width, o.batch, game.copies(), o.episode, s.gossip_rounds, s.critic_steps, o.critic_depth,
                static_cast<long long>(critic_shape(o, game).parameters()), o.actor_depth, o.graph.c_str(), o.threads, gflop);
  }

  std::vector<std::string> gpu_kinds{"static"};
#ifdef NFV_CUDA_GRAPHS
  if (o.with_graph) gpu_kinds.push_back("graph");
#else
  if (std::find(o.devices.begin(), o.devices.end(), "cuda") != o.devices.end())
    std::printf("(built without CUDA graphs: no graph variant)\n");
#endif
  if (o.check)
    for (const std::string& device : o.devices) try {
        check_paths(o, game, rollout, device, device == "cuda" ? gpu_kinds : std::vector<std::string>{"static"});
      } catch (const std::exception& e) {
        std::printf("check %s failed: %s\n", device.c_str(), e.what());
      }

  std::map<std::string, double> ms;  // "device variant"
  std::ofstream csv;
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    csv.open(o.out + "/marl_iteration.csv");
    csv << "device,variant,agents,width,batch,gossip_rounds,critic_steps,critic_depth,actor_depth,threads,iterations,ms_per_iteration\n";
  }
  // Every variant of a device is made and warmed up first, then timed in
  // turns, --rounds times: a machine whose speed drifts slows them alike.
  std::printf("%-5s %-8s %10s %14s %10s%s\n", "dev", "variant", "iterations", "ms/iteration", "GFLOP/s",
              o.rounds > 1 ? "   (ms: median; min, max of rounds)" : "");
  for (const std::string& device : o.devices) {
    std::vector<Variant> variants;
    for (const std::string& layout : o.layouts) variants.push_back({layout, layout, "update"});
    if (device == "cuda")
      for (const std::string& kind : gpu_kinds) variants.push_back({kind, "stacked", kind});
    for (Variant& v : variants) try {
        v.path = std::make_unique<Path>(make_path(o, game, rollout, device, v.layout, v.kind));
        for (std::size_t i = 0; i < o.warmup; ++i) v.path->step();
        wait_for(device);
      } catch (const std::exception& e) {  // one variant failing (a capture, say) leaves the others' figures
        std::printf("%-5s %-8s failed: %s\n", device.c_str(), v.name.c_str(), e.what());
        v.path.reset();
      }
    for (std::size_t round = 0; round < o.rounds; ++round)
      for (Variant& v : variants) try {
          if (!v.path) continue;
          const Timing t = time_path(o, *v.path, device);
          v.iterations += t.iterations;
          v.ms.push_back(t.ms);
        } catch (const std::exception& e) {
          std::printf("%-5s %-8s failed: %s\n", device.c_str(), v.name.c_str(), e.what());
          v.path.reset();
        }
    for (Variant& v : variants) {
      if (v.ms.empty()) continue;
      std::vector<double> sorted = v.ms;
      std::sort(sorted.begin(), sorted.end());
      const double median = sorted[sorted.size() / 2];
      ms[device + " " + v.name] = median;
      std::printf("%-5s %-8s %10zu %14.3f %10.1f", device.c_str(), v.name.c_str(), v.iterations, median, gflop / median * 1e3);
      if (sorted.size() > 1) std::printf("   (%.3f, %.3f)", sorted.front(), sorted.back());
      std::printf("\n");
      if (csv.is_open())
        csv << device << "," << v.name << "," << o.agents << "," << o.width << "," << o.batch << "," << o.gossip_rounds << ","
            << o.critic_steps << "," << o.critic_depth << "," << o.actor_depth << "," << o.threads << "," << v.iterations << ","
            << median << "\n";
    }
    std::fflush(stdout);
  }

  // The ratios the targets are stated in (docs/marl.md, "On a GPU").
  const auto has = [&](const std::string& key) { return ms.count(key) > 0; };
  const auto ratio = [&](const char* what, const std::string& slow, const std::string& fast, double target) {
    if (!has(slow) || !has(fast)) return;
    const double r = ms[slow] / ms[fast];
    std::printf("%-44s %8.2fx", what, r);
    if (target > 0) std::printf("   (target >= %gx: %s)", target, r >= target ? "met" : "not met");
    std::printf("\n");
  };
  ratio("stacked over looped, cpu", "cpu looped", "cpu stacked", 0);
  ratio("stacked over looped, cuda", "cuda looped", "cuda stacked", 5);
  ratio("cuda over cpu, stacked update()", "cpu stacked", "cuda stacked", 0);
  ratio("cuda over cpu, looped update()", "cpu looped", "cuda looped", 0);
  ratio("static buffers over update(), cuda", "cuda stacked", "cuda static", 0);
  ratio("graph over update(), cuda", "cuda stacked", "cuda graph", 0);
  ratio("graph over static buffers, cuda", "cuda static", "cuda graph", 0);
  ratio("best cuda over cpu stacked", "cpu stacked", has("cuda graph") ? "cuda graph" : "cuda stacked", 5);
  ratio("best cuda over cuda looped", "cuda looped", has("cuda graph") ? "cuda graph" : "cuda stacked", 5);
  const std::string best = has("cuda graph") ? "cuda graph" : "cuda stacked";
  if (has(best))
    std::printf("one iteration on cuda (%s): %.3f ms   (target <= 2 ms: %s; aim 0.5 ms: %s)\n", best.c_str(), ms[best],
                ms[best] <= 2 ? "met" : "not met", ms[best] <= 0.5 ? "met" : "not met");
  if (csv.is_open()) std::printf("figures: %s/marl_iteration.csv\n", o.out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as it comes, through a pipe too
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "marl_iteration: %s\n", e.what());
    return 2;
  }
}
