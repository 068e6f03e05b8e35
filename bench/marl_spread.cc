// The decentralized actor-critic's sanity experiment (marl/, docs/marl.md):
// the paper's modified Simple Spread on a 13 x 5 grid, N agents and N
// landmarks, episodes of 10 steps, critics of width m = 20 and depth D = 5.
// For every N, reward split (each agent its landmark's term, or agent 0 the
// whole team reward) and seed it trains with the consensual TD error at each
// t_gossip of --gossip-rounds, and with the Q value instead (the paper's
// ablation) at the largest t_gossip; it prints the team return per episode
// over windows of iterations (mean and spread over seeds), the ratio of the
// last window's return to a uniformly random policy's (measured in the same
// run: lower = closer to the landmarks; 1 = no better than random), of the
// largest t_gossip's to t_gossip 0's, iterations per second, the gossip
// traffic and how much of the critics' disagreement consensus leaves. Writes the per-seed curves as CSV and one SVG chart per N and
// split to the output folder (default marl-bench/). The agents gossip over a
// path by default: the sparsest connected graph, where t_gossip matters
// most. One LibTorch thread by default.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "decentralized_actor_critic.h"
#include "mixing_matrix.h"
#include "option_values.h"
#include "progress_bar.h"
#include "simple_spread.h"
#include "svg_chart.h"

namespace {

constexpr const char* kUsage = R"(usage: marl_spread [options]
  --agents LIST          agent counts (= landmarks), e.g. 2,3,4 (default 3)
  --seeds N              seeds per variant (default 5)
  --iterations N         iterations per run; each is one 10-step episode of every copy (default 300)
  --copies N             episodes per iteration (default 16)
  --window N             iterations per curve point (default 25)
  --gossip-rounds LIST   t_gossip values with the consensual TD error (default 0,1,10)
  --no-ablation          leave out the Q-value actor at the largest t_gossip
  --graph G              path | ring | complete | edges 0-1,1-2,... (default path: the slowest consensus)
  --split LIST           local rewards: landmark, first_agent (default both)
  --random-landmarks     landmarks drawn again every episode (default: once per seed, the map)
  --width M --depth D    critic width and depth (default 20, 5)
  --critic-steps K       TD steps per iteration (default 10)
  --radius B             projection radius (default 10)
  --alpha A --beta B     critic and actor step sizes (default 0.01, 0.05)
  --gamma G              discount (default 0.9)
  --reward-scale S       rewards x S for the critic (default 0.1)
  --layout L             stacked | looped (default stacked)
  --device D             cpu | cuda (default cpu)
  --threads N            LibTorch threads (default 1)
  --out DIR              CSV and SVG files (default marl-bench)
)";

struct Options {
  std::vector<std::size_t> agents{3};
  std::size_t seeds = 5, iterations = 300, window = 25;
  std::vector<std::size_t> gossip_rounds{0, 1, 10};
  bool ablation = true;
  std::string graph = "path";
  std::vector<nfv::RewardSplit> splits{nfv::RewardSplit::landmark, nfv::RewardSplit::first_agent};
  nfv::SimpleSpreadSettings env;
  nfv::MarlSettings marl;
  int threads = 1;
  std::string out = "marl-bench";
};

std::vector<std::size_t> count_list(const std::string& option, const std::string& text) {
  std::vector<std::size_t> values;
  for (const std::string& item : nfv::option_list(text)) values.push_back(nfv::option_count(option, item));
  if (values.empty()) throw std::invalid_argument(option + ": expected at least one number");
  return values;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.marl.reward_scale = 0.1;
  o.env.fixed_landmarks = true;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (option == "--no-ablation") { o.ablation = false; continue; }
    if (option == "--random-landmarks") { o.env.fixed_landmarks = false; continue; }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (option == "--agents") o.agents = count_list(option, value);
    else if (option == "--seeds") o.seeds = nfv::option_positive_count(option, value);
    else if (option == "--iterations") o.iterations = nfv::option_positive_count(option, value);
    else if (option == "--copies") o.env.copies = nfv::option_positive_count(option, value);
    else if (option == "--window") o.window = nfv::option_positive_count(option, value);
    else if (option == "--gossip-rounds") o.gossip_rounds = count_list(option, value);
    else if (option == "--graph") o.graph = value;
    else if (option == "--split") {
      o.splits.clear();
      for (const std::string& item : nfv::option_list(value)) o.splits.push_back(nfv::parse_reward_split(option, item));
    }
    else if (option == "--width") o.marl.critic_width = nfv::option_positive_count(option, value);
    else if (option == "--depth") o.marl.critic_depth = nfv::option_positive_count(option, value);
    else if (option == "--critic-steps") o.marl.critic_steps = nfv::option_positive_count(option, value);
    else if (option == "--radius") o.marl.ball_radius = nfv::option_number(option, value);
    else if (option == "--alpha") o.marl.critic_step = nfv::option_number(option, value);
    else if (option == "--beta") o.marl.actor_step = nfv::option_number(option, value);
    else if (option == "--gamma") o.marl.gamma = nfv::option_number(option, value);
    else if (option == "--reward-scale") o.marl.reward_scale = nfv::option_number(option, value);
    else if (option == "--layout") o.marl.layout = nfv::parse_network_layout(option, value);
    else if (option == "--device") o.marl.device = value;
    else if (option == "--threads") o.threads = static_cast<int>(nfv::option_positive_count(option, value));
    else if (option == "--out") o.out = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  for (std::size_t n : o.agents)
    if (n < 2) throw std::invalid_argument("--agents: expected counts of at least 2, got " + std::to_string(n));
  nfv::validate(o.marl);
  return o;
}

struct Variant {
  std::string name;
  std::size_t gossip_rounds;
  nfv::ActorSignal signal;
};

// One training run's team return per iteration, its speed and traffic.
struct Run {
  std::vector<double> returns;
  double seconds = 0;
  double disagreement_kept = 0;  // critics' spread after consensus / before, mean over iterations
  nfv::GossipTraffic traffic;
};

// What one table of the bench varies: the agents and how the reward is split.
struct Block {
  std::size_t agents;
  nfv::RewardSplit split;
  nfv::SimpleSpreadSettings environment(const Options& o) const {
    nfv::SimpleSpreadSettings s = o.env;
    s.agents = agents;
    s.split = split;
    return s;
  }
  std::string name() const { return "N=" + std::to_string(agents) + " " + nfv::to_string(split); }
};

Run train(const Options& o, const Block& block, const Variant& v, std::uint64_t seed, nfv::ProgressBar& bar,
          std::size_t& done, std::size_t total) {
  nfv::SimpleSpread env(block.environment(o), seed);
  nfv::MarlSettings settings = o.marl;
  settings.gossip_rounds = v.gossip_rounds;
  settings.actor_signal = v.signal;
  nfv::DecentralizedActorCritic learner(settings, nfv::MixingMatrix::parse("--graph", o.graph, block.agents), env, seed);
  Run run;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t it = 0; it < o.iterations; ++it) {
    const nfv::IterationStats stats = learner.iterate(env);
    run.returns.push_back(stats.team_return);
    run.disagreement_kept += stats.critic_spread_after / std::max(stats.critic_spread, 1e-30) / static_cast<double>(o.iterations);
    bar.update(++done, total, block.name() + " " + v.name + " seed " + std::to_string(seed));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.traffic = learner.traffic();
  return run;
}

// A uniformly random joint policy's mean team return on the seed's map, over
// as many episodes as a window of training.
double random_policy_return(const Options& o, const Block& block, std::uint64_t seed) {
  nfv::SimpleSpread env(block.environment(o), seed);
  std::mt19937_64 pick(seed + 1000);
  std::vector<float> states(env.copies() * env.state_size()), rewards(env.copies() * block.agents);
  std::vector<std::int64_t> actions(env.copies() * block.agents);
  double total = 0;
  for (std::size_t episode = 0; episode < o.window; ++episode) {
    env.reset(states);
    for (std::size_t t = 0; t < env.episode_length(); ++t) {
      for (auto& a : actions) a = static_cast<std::int64_t>(pick() % nfv::SimpleSpread::kActions);
      env.step(actions, states, rewards);
      for (float r : rewards) total += r;
    }
  }
  return total / static_cast<double>(o.window * env.copies());
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double deviation(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.size() < 2 ? 0 : std::sqrt(s / static_cast<double>(v.size() - 1));
}

// The mean of iterations [begin, end) of a run.
double window_mean(const std::vector<double>& returns, std::size_t begin, std::size_t end) {
  return mean(std::vector<double>(returns.begin() + static_cast<std::ptrdiff_t>(begin), returns.begin() + static_cast<std::ptrdiff_t>(end)));
}

// One table: every variant over every seed, against the random policy;
// its rows go to the CSV, its curves to one chart.
void run_block(const Options& o, const Block& block, const std::vector<Variant>& variants, std::ofstream& csv,
               nfv::ProgressBar& bar, std::size_t& done, std::size_t total) {
  const std::size_t windows = (o.iterations + o.window - 1) / o.window;
  std::vector<double> random_returns;
  for (std::size_t seed = 1; seed <= o.seeds; ++seed) random_returns.push_back(random_policy_return(o, block, seed));
  const double random_return = mean(random_returns);
  nfv::LineChart chart{"Simple Spread, " + block.name() + " (mean of " + std::to_string(o.seeds) + " seeds)", "iteration",
                       "team return per episode", {}};
  std::vector<std::string> table;
  std::vector<double> last_of_variant;
  for (const Variant& v : variants) {
    std::vector<std::vector<double>> curves(windows);  // per window: one mean per seed
    std::vector<double> seconds, kept;
    nfv::GossipTraffic traffic;
    for (std::size_t seed = 1; seed <= o.seeds; ++seed) {
      const Run r = train(o, block, v, seed, bar, done, total);
      for (std::size_t it = 0; it < r.returns.size(); ++it)
        csv << block.agents << ',' << nfv::to_string(block.split) << ',' << v.name << ',' << seed << ',' << it << ','
            << r.returns[it] << '\n';
      for (std::size_t w = 0; w < windows; ++w)
        curves[w].push_back(window_mean(r.returns, w * o.window, std::min(o.iterations, (w + 1) * o.window)));
      seconds.push_back(r.seconds);
      kept.push_back(r.disagreement_kept);
      traffic = r.traffic;
    }
    nfv::ChartSeries series{v.name, {}, {}, "", v.signal == nfv::ActorSignal::q_value};
    std::string curve;
    for (std::size_t w = 0; w < windows; ++w) {
      series.x.push_back(static_cast<double>(std::min(o.iterations, (w + 1) * o.window)));
      series.y.push_back(mean(curves[w]));
      char cell[32];
      std::snprintf(cell, sizeof cell, " %7.1f", mean(curves[w]));
      curve += cell;
    }
    chart.series.push_back(series);
    const double last = mean(curves.back());
    last_of_variant.push_back(last);
    char line[512];
    std::snprintf(line, sizeof line,
                  "  %-9s first %7.1f  last %7.1f +- %5.1f  last/random %.3f  %6.1f it/s  gossip %llu rounds %.2f MB per run,"
                  " critics' disagreement kept %.3f\n"
                  "            windows:%s\n",
                  v.name.c_str(), mean(curves.front()), last, deviation(curves.back()), last / random_return,
                  static_cast<double>(o.iterations) / mean(seconds), static_cast<unsigned long long>(traffic.rounds),
                  static_cast<double>(traffic.bytes) / 1e6, mean(kept), curve.c_str());
    table.push_back(line);
  }
  chart.series.push_back({"random policy", {0, static_cast<double>(o.iterations)}, {random_return, random_return}, "#7f7f7f", true});
  bar.finish(block.name() + " done");
  std::printf("%s: team return per episode (-sum over steps and landmarks of the distance to the nearest agent), "
              "mean over %zu seeds of windows of %zu iterations\n  random policy %.1f\n",
              block.name().c_str(), o.seeds, o.window, random_return);
  for (const std::string& line : table) std::fputs(line.c_str(), stdout);
  const std::size_t largest = *std::max_element(o.gossip_rounds.begin(), o.gossip_rounds.end());
  const auto at = [&](std::size_t t) {
    return static_cast<std::size_t>(std::find(o.gossip_rounds.begin(), o.gossip_rounds.end(), t) - o.gossip_rounds.begin());
  };
  if (at(0) < o.gossip_rounds.size() && largest > 0)
    std::printf("  last window, t_gossip %zu / t_gossip 0: %.3f (below 1: closer to the landmarks with gossip)\n", largest,
                last_of_variant[at(largest)] / last_of_variant[at(0)]);
  if (o.ablation)
    std::printf("  last window, Q value / consensual TD error at t_gossip %zu: %.3f (above 1: the TD error does better)\n",
                largest, last_of_variant.back() / last_of_variant[at(largest)]);
  const std::string svg =
      o.out + "/marl_spread_n" + std::to_string(block.agents) + "_" + nfv::to_string(block.split) + ".svg";
  nfv::write_svg(chart, svg);
  std::printf("  chart: %s\n", svg.c_str());
  std::fflush(stdout);
}

int run(const Options& o) {
  nfv::set_marl_threads(o.threads);
  std::filesystem::create_directories(o.out);
  std::vector<Variant> variants;
  for (std::size_t t : o.gossip_rounds) variants.push_back({"td t=" + std::to_string(t), t, nfv::ActorSignal::consensus_td_error});
  const std::size_t largest = *std::max_element(o.gossip_rounds.begin(), o.gossip_rounds.end());
  if (o.ablation) variants.push_back({"q t=" + std::to_string(largest), largest, nfv::ActorSignal::q_value});

  std::printf("Simple Spread %zux%zu, episodes of %zu steps, %zu per iteration, %zu iterations, %zu seeds, landmarks %s; "
              "graph %s; critic m=%zu D=%zu K=%zu B=%g alpha=%g; actor beta=%g; gamma=%g; layout %s on %s\n",
              o.env.width, o.env.height, o.env.episode_length, o.env.copies, o.iterations, o.seeds,
              o.env.fixed_landmarks ? "fixed per seed" : "random per episode", o.graph.c_str(), o.marl.critic_width,
              o.marl.critic_depth, o.marl.critic_steps, o.marl.ball_radius, o.marl.critic_step, o.marl.actor_step,
              o.marl.gamma, nfv::to_string(o.marl.layout), o.marl.device.c_str());
  std::fflush(stdout);
  std::ofstream csv(o.out + "/marl_spread.csv");
  csv << "agents,split,variant,seed,iteration,team_return\n";
  nfv::ProgressBar bar("marl_spread", true);
  std::size_t done = 0;
  const std::size_t total = o.agents.size() * o.splits.size() * variants.size() * o.seeds * o.iterations;
  for (std::size_t agents : o.agents)
    for (nfv::RewardSplit split : o.splits) run_block(o, {agents, split}, variants, csv, bar, done, total);
  std::printf("curves: %s/marl_spread.csv\n", o.out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "marl_spread: %s\n", e.what());
    return 2;
  }
}
