// The decentralized actor-critic with one OS process per agent
// (marl/agent_processes.h, docs/marl.md "Agents as processes") on Simple
// Spread, against the stacked run in the same process, same seed: whether
// the parameters agree, the time and traffic of each, and the team-return
// curve through a kill and a rejoin: an agent's process is killed in the
// middle of one iteration and restarted from its last checkpoint later.
// Prints the team return by window for the stacked run, the processes
// without a fault and the processes through the fault, the last over the
// one before (measured in the same run: 1 = the fault cost nothing), and
// writes the per-iteration curves to <out>/marl_processes.csv and a chart.
// Then int8 gossip with error feedback against float32 gossip, both as
// processes, over a few seeds: the bytes saved, the team return, and how far
// apart the agents' critics end.
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
  --seed S               (default 1)
  --kill AGENT@IT        kill that agent's process in the middle of iteration IT (default 1@60)
  --restart IT           restart it from its last checkpoint when the team reaches IT (default 100)
  --checkpoint-every N   iterations between each agent's checkpoints (default 10)
  --peer-timeout MS      an agent silent this long is written off (default 3000)
  --gossip-rounds T      t_gossip (default 1)
  --window N             iterations per printed point (default 20)
  --int8-seeds N         seeds for int8 against float32 gossip (default 3; 0: leave out)
  --out DIR              CSV and SVG (default marl-bench)
)";

struct Options {
  std::size_t agents = 4, iterations = 200, window = 20, checkpoint_every = 10;
  std::uint64_t seed = 1;
  std::string graph = "ring";
  nfv::AgentFault fault{.agent = 1, .kill_at = 60, .restart_at = 100};
  std::size_t peer_timeout_ms = 3000, int8_seeds = 3;
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
      o.fault.kill_at = nfv::option_count(option, value.substr(at + 1));
    }
    else if (option == "--restart") o.fault.restart_at = nfv::option_count(option, value);
    else if (option == "--checkpoint-every") o.checkpoint_every = nfv::option_positive_count(option, value);
    else if (option == "--peer-timeout") o.peer_timeout_ms = nfv::option_positive_count(option, value);
    else if (option == "--gossip-rounds") o.marl.gossip_rounds = nfv::option_count(option, value);
    else if (option == "--window") o.window = nfv::option_positive_count(option, value);
    else if (option == "--int8-seeds") o.int8_seeds = nfv::option_count(option, value);
    else if (option == "--out") o.out = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  o.env.agents = o.agents;
  if (o.fault.agent >= o.agents) throw std::invalid_argument("--kill: agent " + std::to_string(o.fault.agent) + " of " + std::to_string(o.agents));
  if (o.fault.kill_at >= o.iterations || *o.fault.restart_at >= o.iterations)
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

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv);
  nfv::set_marl_threads(1);
  const nfv::MixingMatrix graph = nfv::MixingMatrix::parse("--graph", o.graph, o.agents);
  const nfv::EnvironmentFactory make = [&] { return std::make_unique<nfv::SimpleSpread>(o.env, o.seed); };
  std::filesystem::create_directories(o.out);
  nfv::AgentProcessOptions options;
  options.store_port = 0;
  options.checkpoint_every = o.checkpoint_every;
  options.peer_timeout = std::chrono::milliseconds(o.peer_timeout_ms);
  std::printf("Simple Spread, N = %zu on a %s, %zu iterations of %zu copies, seed %llu, t_gossip %zu; "
              "agent %zu killed in iteration %llu, restarted at %llu (checkpoints every %zu, peer timeout %zu ms)\n",
              o.agents, o.graph.c_str(), o.iterations, o.env.copies, static_cast<unsigned long long>(o.seed),
              o.marl.gossip_rounds, o.fault.agent, static_cast<unsigned long long>(o.fault.kill_at),
              static_cast<unsigned long long>(*o.fault.restart_at), o.checkpoint_every, o.peer_timeout_ms);

  // The stacked run: the reference.
  auto start = std::chrono::steady_clock::now();
  const auto env = make();
  nfv::DecentralizedActorCritic stacked(o.marl, graph, *env, o.seed);
  std::vector<double> stacked_returns;
  for (std::size_t it = 0; it < o.iterations; ++it) stacked_returns.push_back(stacked.iterate(*env).team_return);
  const double stacked_seconds = seconds_since(start);

  options.checkpoint_dir = o.out + "/marl_processes_agents";
  const nfv::AgentProcessesRun clean = nfv::run_agent_processes(o.marl, graph, make, o.seed, o.iterations, options);
  options.checkpoint_dir = o.out + "/marl_processes_fault_agents";
  const nfv::AgentProcessesRun faulty = nfv::run_agent_processes(o.marl, graph, make, o.seed, o.iterations, options, o.fault);

  double largest = 0;
  for (std::size_t k = 0; k < o.agents; ++k) {
    const std::vector<float> critic = stacked.critic_parameters(k), actor = stacked.actor_parameters(k);
    for (std::size_t p = 0; p < critic.size(); ++p) largest = std::max(largest, static_cast<double>(std::abs(critic[p] - clean.critic[k][p])));
    for (std::size_t p = 0; p < actor.size(); ++p) largest = std::max(largest, static_cast<double>(std::abs(actor[p] - clean.actor[k][p])));
  }
  std::printf("\nparity: processes vs stacked after %zu iterations, largest parameter difference %.3g (%s), returns %s\n",
              o.iterations, largest, largest == 0 ? "bit for bit" : "not bit for bit",
              clean.team_return == stacked_returns ? "identical" : "differ");
  std::printf("time: stacked %.1f s (%.1f it/s); processes %.1f s (%.1f it/s, %.2f x stacked); with the fault %.1f s\n",
              stacked_seconds, static_cast<double>(o.iterations) / stacked_seconds, clean.seconds,
              static_cast<double>(o.iterations) / clean.seconds, clean.seconds / stacked_seconds, faulty.seconds);
  std::printf("traffic per run: gossip %.2f MB in %llu messages (stacked counts %.2f MB), actions through the store %.2f MB; "
              "with the fault: gossip %.2f MB, actions %.2f MB\n",
              static_cast<double>(clean.gossip.bytes) / 1e6, static_cast<unsigned long long>(clean.gossip.messages),
              static_cast<double>(stacked.traffic().bytes) / 1e6, static_cast<double>(clean.action_bytes) / 1e6,
              static_cast<double>(faulty.gossip.bytes) / 1e6, static_cast<double>(faulty.action_bytes) / 1e6);

  std::printf("\nteam return per episode by window of %zu iterations (live agents in the faulty run)\n", o.window);
  std::printf("  %-10s %9s %9s %9s %12s %6s\n", "iterations", "stacked", "processes", "fault", "fault/clean", "live");
  for (std::size_t from = 0; from < o.iterations; from += o.window) {
    const std::size_t to = std::min(o.iterations, from + o.window);
    const double s = window_mean(stacked_returns, from, to), c = window_mean(clean.team_return, from, to),
                 f = window_mean(faulty.team_return, from, to);
    const auto live = std::minmax_element(faulty.live_agents.begin() + static_cast<std::ptrdiff_t>(from),
                                          faulty.live_agents.begin() + static_cast<std::ptrdiff_t>(to));
    std::printf("  %4zu-%-5zu %9.1f %9.1f %9.1f %12.3f %3zu-%zu\n", from, to - 1, s, c, f, f / c, *live.first, *live.second);
  }
  const std::size_t last = o.iterations - std::min(o.iterations, o.window);
  std::printf("last window: fault / clean %.3f (team return: lower ratio = better, as returns are negative)\n",
              window_mean(faulty.team_return, last, o.iterations) / window_mean(clean.team_return, last, o.iterations));

  const std::string csv_path = o.out + "/marl_processes.csv";
  std::ofstream csv(csv_path);
  csv << "iteration,stacked,processes,fault,live_agents\n";
  nfv::LineChart chart{"Simple Spread, N = " + std::to_string(o.agents) + ": agent " + std::to_string(o.fault.agent) +
                           " killed at " + std::to_string(o.fault.kill_at) + ", back at " + std::to_string(*o.fault.restart_at),
                       "iteration", "team return per episode (window mean)", {}};
  nfv::ChartSeries clean_series{"processes, no fault", {}, {}, "", false}, fault_series{"processes, kill and rejoin", {}, {}, "", false};
  for (std::size_t it = 0; it < o.iterations; ++it) {
    csv << it << ',' << stacked_returns[it] << ',' << clean.team_return[it] << ',' << faulty.team_return[it] << ','
        << faulty.live_agents[it] << '\n';
    if ((it + 1) % o.window == 0) {
      clean_series.x.push_back(static_cast<double>(it + 1));
      clean_series.y.push_back(window_mean(clean.team_return, it + 1 - o.window, it + 1));
      fault_series.x.push_back(static_cast<double>(it + 1));
      fault_series.y.push_back(window_mean(faulty.team_return, it + 1 - o.window, it + 1));
    }
  }
  chart.series = {clean_series, fault_series};
  nfv::write_svg(chart, nfv::svg_path_for(csv_path));
  std::printf("curves: %s, chart: %s\n", csv_path.c_str(), nfv::svg_path_for(csv_path).c_str());

  if (o.int8_seeds == 0) return 0;
  // int8 against float32 gossip, seed by seed (the first seed's float32 run is the one above).
  std::vector<double> float_last, int8_last, float_apart, int8_apart;
  std::uint64_t float_bytes = 0, int8_bytes = 0;
  for (std::size_t k = 0; k < o.int8_seeds; ++k) {
    const std::uint64_t seed = o.seed + k;
    const nfv::EnvironmentFactory make_seeded = [&] { return std::make_unique<nfv::SimpleSpread>(o.env, seed); };
    options.checkpoint_dir = o.out + "/marl_processes_agents";
    options.int8_gossip = false;
    const nfv::AgentProcessesRun exact = k == 0 ? clean : nfv::run_agent_processes(o.marl, graph, make_seeded, seed, o.iterations, options);
    options.int8_gossip = true;
    const nfv::AgentProcessesRun int8 = nfv::run_agent_processes(o.marl, graph, make_seeded, seed, o.iterations, options);
    float_last.push_back(window_mean(exact.team_return, last, o.iterations));
    int8_last.push_back(window_mean(int8.team_return, last, o.iterations));
    float_apart.push_back(critics_apart(exact.critic));
    int8_apart.push_back(critics_apart(int8.critic));
    float_bytes = exact.gossip.bytes;
    int8_bytes = int8.gossip.bytes;
    std::printf("  seed %llu: last window float32 %.1f, int8 %.1f; critics apart (RMS to their average) %.2e, %.2e\n",
                static_cast<unsigned long long>(seed), float_last.back(), int8_last.back(), float_apart.back(), int8_apart.back());
  }
  const auto mean_of = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  std::printf("int8 gossip with error feedback over %zu seeds: %.2f MB per run instead of %.2f MB (%.1f%% saved); "
              "last window %.1f against %.1f (int8 / float32 %.3f); critics apart %.2e against %.2e\n",
              o.int8_seeds, static_cast<double>(int8_bytes) / 1e6, static_cast<double>(float_bytes) / 1e6,
              100.0 * (1.0 - static_cast<double>(int8_bytes) / static_cast<double>(float_bytes)), mean_of(int8_last),
              mean_of(float_last), mean_of(int8_last) / mean_of(float_last), mean_of(int8_apart), mean_of(float_apart));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "marl_processes: %s\n", e.what());
  return 1;
}
