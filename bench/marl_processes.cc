// The decentralized actor-critic with one OS process per agent
// (marl/agent_processes.h, docs/marl.md "Agents as processes") on Simple
// Spread. Against the stacked run in the same process, first seed: whether
// the parameters agree, the time and traffic of each. Then, seed by seed,
// the processes without a fault, through a fault (an agent's process killed
// in the middle of one iteration and restarted from its last checkpoint
// later) and with int8 gossip (error feedback): the team return by window,
// mean over seeds, each over the run without a fault (measured in the same
// run: 1 = no difference), the bytes saved and how far apart the agents'
// critics end. Per-iteration curves to <out>/marl_processes.csv, and a chart.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agent_processes.h"
#include "decentralized_actor_critic.h"
#include "mixing_matrix.h"
#include "option_values.h"
#include "simple_spread.h"
#include "svg_chart.h"

namespace {

constexpr const char* kUsage = R"(usage: marl_processes [options]
  --agents N             agents (= landmarks) (default 4)
  --graph G              ring | path | complete | edges 0-1,1-2,... (default ring)
  --iterations N         iterations (default 200); each one 10-step episode of every copy
  --copies N             episodes per iteration (default 16)
  --seed S               the first seed (default 1)
  --seeds N              seeds (default 3)
  --kill AGENT@IT        kill that agent's process in the middle of iteration IT (default 1@60)
  --restart IT           restart it from its last checkpoint when the team reaches IT (default 100)
  --checkpoint-every N   iterations between each agent's checkpoints (default 10)
  --peer-timeout MS      an agent silent this long is written off (default 3000)
  --gossip-rounds T      t_gossip (default 1)
  --window N             iterations per printed point (default 20)
  --no-int8              leave out the int8 gossip runs
  --out DIR              CSV and SVG (default marl-bench)
)";

struct Options {
  std::size_t agents = 4, iterations = 200, window = 20, checkpoint_every = 10;
  std::uint64_t seed = 1;
  std::size_t seeds = 3;
  bool int8 = true;
  std::string graph = "ring";
  nfv::AgentFault fault{.agent = 1, .at = 60, .restart_at = 100};
  std::size_t peer_timeout_ms = 3000;
  nfv::SimpleSpreadSettings env{.fixed_landmarks = true};
  nfv::MarlSettings marl{.reward_scale = 0.1};
  std::string out = "marl-bench";
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (option == "--no-int8") {
      o.int8 = false;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (option == "--agents") o.agents = nfv::option_positive_count(option, value);
    else if (option == "--graph") o.graph = value;
    else if (option == "--iterations") o.iterations = nfv::option_positive_count(option, value);
    else if (option == "--copies") o.env.copies = nfv::option_positive_count(option, value);
    else if (option == "--seed") o.seed = nfv::option_count(option, value);
    else if (option == "--kill") {
      const auto at = value.find('@');
      if (at == std::string::npos) throw std::invalid_argument("--kill: expected AGENT@ITERATION, got '" + value + "'");
      o.fault.agent = nfv::option_count(option, value.substr(0, at));
      o.fault.at = nfv::option_count(option, value.substr(at + 1));
    }
    else if (option == "--restart") o.fault.restart_at = nfv::option_count(option, value);
    else if (option == "--checkpoint-every") o.checkpoint_every = nfv::option_positive_count(option, value);
    else if (option == "--peer-timeout") o.peer_timeout_ms = nfv::option_positive_count(option, value);
    else if (option == "--gossip-rounds") o.marl.gossip_rounds = nfv::option_count(option, value);
    else if (option == "--window") o.window = nfv::option_positive_count(option, value);
    else if (option == "--seeds") o.seeds = nfv::option_positive_count(option, value);
    else if (option == "--out") o.out = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  o.env.agents = o.agents;
  if (o.fault.agent >= o.agents) throw std::invalid_argument("--kill: agent " + std::to_string(o.fault.agent) + " of " + std::to_string(o.agents));
  if (o.fault.at >= o.iterations || *o.fault.restart_at >= o.iterations)
    throw std::invalid_argument("--kill, --restart: expected iterations below --iterations " + std::to_string(o.iterations));
  nfv::validate(o.marl);
  return o;
}

double window_mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += v[i];
  return sum / static_cast<double>(to - from);
}

// RMS distance of the agents' critics to their average.
double critics_apart(const std::vector<std::vector<float>>& critics) {
  const std::size_t n = critics.size(), p = critics[0].size();
  double sum = 0;
  for (std::size_t k = 0; k < p; ++k) {
    double mean = 0;
    for (const auto& c : critics) mean += c[k];
    mean /= static_cast<double>(n);
    for (const auto& c : critics) sum += (c[k] - mean) * (c[k] - mean);
  }
  return std::sqrt(sum / static_cast<double>(n));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// One seed's runs as processes.
struct SeedRuns {
  nfv::AgentProcessesRun clean, fault, int8;
  enum Which { kClean, kFault, kInt8 };
  const nfv::AgentProcessesRun& operator[](Which which) const { return which == kClean ? clean : which == kFault ? fault : int8; }
};

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv);
  nfv::set_marl_threads(1);
  const nfv::MixingMatrix graph = nfv::MixingMatrix::parse("--graph", o.graph, o.agents);
  std::filesystem::create_directories(o.out);
  nfv::AgentProcessOptions options;
  options.store_port = 0;
  options.checkpoint_every = o.checkpoint_every;
  options.peer_timeout = std::chrono::milliseconds(o.peer_timeout_ms);
  options.checkpoint_dir = o.out + "/marl_processes_agents";
  std::printf("Simple Spread, N = %zu on a %s, %zu iterations of %zu copies, seeds %llu-%llu, t_gossip %zu; "
              "agent %zu killed in iteration %llu, back at %llu (checkpoints every %zu, peer timeout %zu ms)\n",
              o.agents, o.graph.c_str(), o.iterations, o.env.copies, static_cast<unsigned long long>(o.seed),
              static_cast<unsigned long long>(o.seed + o.seeds - 1), o.marl.gossip_rounds, o.fault.agent,
              static_cast<unsigned long long>(o.fault.at), static_cast<unsigned long long>(*o.fault.restart_at),
              o.checkpoint_every, o.peer_timeout_ms);

  // The stacked run, first seed: the reference.
  const auto start = std::chrono::steady_clock::now();
  nfv::SimpleSpread stacked_env(o.env, o.seed);
  nfv::DecentralizedActorCritic stacked(o.marl, graph, stacked_env, o.seed);
  std::vector<double> stacked_returns;
  for (std::size_t it = 0; it < o.iterations; ++it) stacked_returns.push_back(stacked.iterate(stacked_env).team_return);
  const double stacked_seconds = seconds_since(start);

  std::vector<SeedRuns> runs;
  for (std::size_t k = 0; k < o.seeds; ++k) {
    const std::uint64_t seed = o.seed + k;
    const nfv::EnvironmentFactory make = [&] { return std::make_unique<nfv::SimpleSpread>(o.env, seed); };
    SeedRuns r;
    options.int8_gossip = false;
    r.clean = nfv::run_agent_processes(o.marl, graph, make, seed, o.iterations, options);
    r.fault = nfv::run_agent_processes(o.marl, graph, make, seed, o.iterations, options, o.fault);
    options.int8_gossip = true;
    if (o.int8) r.int8 = nfv::run_agent_processes(o.marl, graph, make, seed, o.iterations, options);
    runs.push_back(std::move(r));
    std::printf("  seed %llu done\n", static_cast<unsigned long long>(seed));
  }
  const SeedRuns& first = runs.front();

  double largest = 0;
  for (std::size_t k = 0; k < o.agents; ++k) {
    const std::vector<float> critic = stacked.critic_parameters(k), actor = stacked.actor_parameters(k);
    for (std::size_t p = 0; p < critic.size(); ++p) largest = std::max(largest, static_cast<double>(std::abs(critic[p] - first.clean.critic[k][p])));
    for (std::size_t p = 0; p < actor.size(); ++p) largest = std::max(largest, static_cast<double>(std::abs(actor[p] - first.clean.actor[k][p])));
  }
  std::printf("\nparity (seed %llu): processes vs stacked after %zu iterations, largest parameter difference %.3g (%s), returns %s\n",
              static_cast<unsigned long long>(o.seed), o.iterations, largest, largest == 0 ? "bit for bit" : "not bit for bit",
              first.clean.team_return == stacked_returns ? "identical" : "differ");
  std::printf("time (seed %llu): stacked %.1f s (%.1f it/s); processes %.1f s (%.1f it/s, %.2f x stacked); with the fault %.1f s\n",
              static_cast<unsigned long long>(o.seed), stacked_seconds, static_cast<double>(o.iterations) / stacked_seconds,
              first.clean.seconds, static_cast<double>(o.iterations) / first.clean.seconds, first.clean.seconds / stacked_seconds,
              first.fault.seconds);
  std::printf("traffic per run (seed %llu): gossip %.2f MB in %llu messages (stacked counts %.2f MB), actions through the store %.2f MB; "
              "with the fault: gossip %.2f MB, actions %.2f MB\n",
              static_cast<unsigned long long>(o.seed), static_cast<double>(first.clean.gossip.bytes) / 1e6,
              static_cast<unsigned long long>(first.clean.gossip.messages), static_cast<double>(stacked.traffic().bytes) / 1e6,
              static_cast<double>(first.clean.action_bytes) / 1e6, static_cast<double>(first.fault.gossip.bytes) / 1e6,
              static_cast<double>(first.fault.action_bytes) / 1e6);

  // Mean over seeds of a window of each run's curve.
  const auto window = [&](SeedRuns::Which which, std::size_t from, std::size_t to) {
    std::vector<double> per_seed;
    for (const SeedRuns& r : runs) per_seed.push_back(window_mean(r[which].team_return, from, to));
    return mean_of(per_seed);
  };
  const auto clean_of = SeedRuns::kClean, fault_of = SeedRuns::kFault, int8_of = SeedRuns::kInt8;
  std::printf("\nteam return per episode by window of %zu iterations, mean over %zu seeds (live agents through the fault)\n",
              o.window, o.seeds);
  std::printf("  %-10s %9s %9s %12s %9s %11s %6s\n", "iterations", "processes", "fault", "fault/clean", "int8", "int8/clean", "live");
  for (std::size_t from = 0; from < o.iterations; from += o.window) {
    const std::size_t to = std::min(o.iterations, from + o.window);
    const double c = window(clean_of, from, to), f = window(fault_of, from, to), q = o.int8 ? window(int8_of, from, to) : NAN;
    const auto live = std::minmax_element(first.fault.live_agents.begin() + static_cast<std::ptrdiff_t>(from),
                                          first.fault.live_agents.begin() + static_cast<std::ptrdiff_t>(to));
    std::printf("  %4zu-%-5zu %9.1f %9.1f %12.3f %9.1f %11.3f %3zu-%zu\n", from, to - 1, c, f, f / c, q, q / c, *live.first,
                *live.second);
  }
  const std::size_t last = o.iterations - std::min(o.iterations, o.window);
  const double clean_last = window(clean_of, last, o.iterations), fault_last = window(fault_of, last, o.iterations);
  std::printf("last window: fault / clean %.3f (returns are negative: above 1 = worse)\n", fault_last / clean_last);
  if (o.int8) {
    std::vector<double> apart_float, apart_int8;
    for (const SeedRuns& r : runs) {
      apart_float.push_back(critics_apart(r.clean.critic));
      apart_int8.push_back(critics_apart(r.int8.critic));
    }
    const double int8_last = window(int8_of, last, o.iterations);
    std::printf("int8 gossip with error feedback: %.2f MB per run instead of %.2f MB (%.1f%% saved, the same %llu messages); "
                "last window %.1f against %.1f (int8 / float32 %.3f); the critics end %.2e apart against %.2e "
                "(RMS distance to their average)\n",
                static_cast<double>(first.int8.gossip.bytes) / 1e6, static_cast<double>(first.clean.gossip.bytes) / 1e6,
                100.0 * (1.0 - static_cast<double>(first.int8.gossip.bytes) / static_cast<double>(first.clean.gossip.bytes)),
                static_cast<unsigned long long>(first.int8.gossip.messages), int8_last, clean_last, int8_last / clean_last,
                mean_of(apart_int8), mean_of(apart_float));
  }

  const std::string csv_path = o.out + "/marl_processes.csv";
  std::ofstream csv(csv_path);
  csv << "seed,iteration,processes,fault,int8,live_agents_fault\n";
  for (std::size_t k = 0; k < runs.size(); ++k)
    for (std::size_t it = 0; it < o.iterations; ++it)
      csv << o.seed + k << ',' << it << ',' << runs[k].clean.team_return[it] << ',' << runs[k].fault.team_return[it] << ','
          << (o.int8 ? runs[k].int8.team_return[it] : NAN) << ',' << runs[k].fault.live_agents[it] << '\n';
  nfv::LineChart chart{"Simple Spread, N = " + std::to_string(o.agents) + ": agent " + std::to_string(o.fault.agent) +
                           " killed at " + std::to_string(o.fault.at) + ", back at " + std::to_string(*o.fault.restart_at),
                       "iteration", "team return per episode (window mean over seeds)", {}};
  chart.series = {{"processes, no fault", {}, {}, "", false}, {"processes, kill and rejoin", {}, {}, "", false}};
  if (o.int8) chart.series.push_back({"processes, int8 gossip", {}, {}, "", true});
  for (std::size_t to = o.window; to <= o.iterations; to += o.window)
    for (std::size_t c = 0; c < chart.series.size(); ++c) {
      chart.series[c].x.push_back(static_cast<double>(to));
      chart.series[c].y.push_back(window(static_cast<SeedRuns::Which>(c), to - o.window, to));
    }
  nfv::write_svg(chart, nfv::svg_path_for(csv_path));
  std::printf("curves: %s, chart: %s\n", csv_path.c_str(), nfv::svg_path_for(csv_path).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "marl_processes: %s\n", e.what());
  return 1;
}
