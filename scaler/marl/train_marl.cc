// nfv-train marl: trains the decentralized placement agents, one per site
// (marl_trainer.h), on the simulator over the training rows of a trace,
// prints its progress, and writes the directory nfv-scaler and nfv-sim
// serve with `--policy marl --param checkpoints=DIR`, with the training
// curve as CSV and SVG.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "marl_policy.h"
#include "marl_trainer.h"
#include "option_values.h"
#include "progress_bar.h"
#include "scenario.h"
#include "svg_chart.h"
#include "train_command.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-train marl [options]

Trains the decentralized actor-critic placement agents, one per site of the
topology, on the fluid simulator over the training rows of a trace, and
validates them against the base plan and the online policy on held-back
slots (docs/marl.md).

the system and its traffic (training uses the train rows of --split):
%s
the agents:
  --agents-from-topology one agent per site of --topology (the only mapping;
                         accepted for clarity)
  --graph G              who gossips with whom: topology (the WAN links,
                         default), ring, path, complete or an edge list 0-1,1-2
  --gossip-rounds N      t_gossip, consensus rounds per iteration (default 1)
  --width N              critic width m (default 64)   --depth N  critic depth D (default 3)
  --actor-width N        (default 32)   --actor-depth N  (default 2)
  --critic-steps N       K local TD steps per iteration (default 10)
  --ball-radius X        B (default 10)
  --critic-step X        alpha (default 0.01)   --actor-step X  beta (default 0.05)
  --gamma X              discount per slot (default 0.9)
  --prior-logit X        the actors start favouring the base action by this
                         logit (default 3; 0: near uniform, as in the paper)
  --actor-signal consensus_td|q_value|counterfactual  (default consensus_td)
  --layout stacked|looped              (default stacked)
  --mode stacked         one process runs every agent (processes: one OS
                         process per agent, where built with Gloo)
  --device cpu|cuda      (default cpu)
the placement:
  --scale-levels LIST    a site's instance levels, in units of ln 4 around the
                         base plan (default -0.3,-0.15,0,0.15,0.3)
  --take-levels LIST     how much more or less of its hops' traffic a site
                         takes (default -0.5,0,0.5)
  --headroom X           the base plan's instances per instance of forecast
                         need (default 1.1)
  --sites-per-hop N      candidate sites per hop (default 4; 0: all within the SLA)
  --horizon N            forecast steps (default 3)
  --forecast MODEL[:K=V] (default ewma:alpha=0.5); serve with the same
training:
  --iterations N         (default 300)
  --copies K             simulators stepped together (default 8)
  --episode N            slots per episode (default 24)
  --arrival-noise X      log-normal noise on the training rates (default 0.1)
  --validation N         last train rows held back to validate (default two
                         days of trace steps, at most a quarter of the rows)
  --validate-every N     iterations (default 25)
  --online KEY=VALUE     an online-policy parameter for the baseline, repeatable
  --seed N               (default 1)
  --threads N            LibTorch threads (default 1: deterministic)
  --env-threads N        helper threads stepping the copies (default 1)
output:
  --out DIR              the agents, their settings, the curve (default marl)
  --resume               continue the run saved in --out
  --quiet                no progress bar
)";

struct Options {
  nfv::ScenarioOptions scenario;
  nfv::MarlTrainSettings settings;
  int threads = 1;
  bool resume = false;
  bool quiet = false;
};

std::vector<double> levels(const std::string& option, const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : nfv::option_list(text)) out.push_back(nfv::option_number(option, item));
  if (out.empty()) throw std::invalid_argument(option + ": expected a comma-separated list of numbers");
  return out;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.scenario.needs_training = true;
  nfv::MarlTrainSettings& s = o.settings;
  s.agents.critic_width = 64;
  s.agents.critic_depth = 3;
  s.agents.actor_width = 32;
  s.agents.actor_depth = 2;
  s.agents.prior_logit = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      std::printf(kUsage, nfv::kScenarioUsage);
      std::exit(0);
    }
    if (option == "--agents-from-topology") continue;
    if (option == "--resume") {
      o.resume = true;
      continue;
    }
    if (option == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (nfv::scenario_option(option, value, o.scenario)) continue;
    if (option == "--graph") s.layout.graph = value;
    else if (option == "--gossip-rounds") s.agents.gossip_rounds = nfv::option_count(option, value);
    else if (option == "--width") s.agents.critic_width = nfv::option_positive_count(option, value);
    else if (option == "--depth") s.agents.critic_depth = nfv::option_positive_count(option, value);
    else if (option == "--actor-width") s.agents.actor_width = nfv::option_positive_count(option, value);
    else if (option == "--actor-depth") s.agents.actor_depth = nfv::option_positive_count(option, value);
    else if (option == "--critic-steps") s.agents.critic_steps = nfv::option_positive_count(option, value);
    else if (option == "--ball-radius") s.agents.ball_radius = nfv::option_number(option, value);
    else if (option == "--critic-step") s.agents.critic_step = nfv::option_number(option, value);
    else if (option == "--actor-step") s.agents.actor_step = nfv::option_number(option, value);
    else if (option == "--gamma") s.agents.gamma = nfv::option_number(option, value);
    else if (option == "--prior-logit") s.agents.prior_logit = nfv::option_number(option, value);
    else if (option == "--actor-signal") s.agents.actor_signal = nfv::parse_actor_signal(option, value);
    else if (option == "--layout") s.agents.layout = nfv::parse_network_layout(option, value);
    else if (option == "--device") s.agents.device = value;
    else if (option == "--mode") {
      if (value != "stacked" && value != "processes")
        throw std::invalid_argument("--mode: expected stacked or processes, got '" + value + "'");
      if (value == "processes")
        throw std::invalid_argument("--mode processes: not available in this build of nfv-train (see docs/marl.md)");
    } else if (option == "--scale-levels") s.layout.scale_levels = levels(option, value);
    else if (option == "--take-levels") s.layout.take_levels = levels(option, value);
    else if (option == "--headroom") s.layout.headroom = nfv::option_number(option, value);
    else if (option == "--sites-per-hop") s.layout.sites_per_hop = nfv::option_count(option, value);
    else if (option == "--horizon") s.layout.horizon = nfv::option_positive_count(option, value);
    else if (option == "--forecast") s.layout.forecast = nfv::forecast_spec_text(nfv::parse_forecast_spec(value));
    else if (option == "--iterations") s.iterations = nfv::option_positive_count(option, value);
    else if (option == "--copies") s.game.copies = nfv::option_positive_count(option, value);
    else if (option == "--episode") s.game.episode_slots = nfv::option_positive_count(option, value);
    else if (option == "--arrival-noise") s.arrival_noise = nfv::option_number(option, value);
    else if (option == "--validation") s.validation_slots = nfv::option_positive_count(option, value);
    else if (option == "--validate-every") s.validate_every = nfv::option_count(option, value);
    else if (option == "--online") nfv::add_named_param(option, value, s.online);
    else if (option == "--seed") s.seed = nfv::option_count(option, value);
    else if (option == "--threads") o.threads = static_cast<int>(nfv::option_positive_count(option, value));
    else if (option == "--env-threads") s.game.threads = nfv::option_count(option, value);
    else if (option == "--out") s.out = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  if (s.agents.device != "cpu" && s.agents.device != "cuda")
    throw std::invalid_argument("--device: expected cpu or cuda, got '" + s.agents.device + "'");
  nfv::validate(s.agents);
  nfv::validate(s.layout);
  return o;
}

void write_chart(const std::vector<nfv::MarlCurvePoint>& curve, const std::string& csv_path) {
  nfv::LineChart chart;
  chart.title = "marl vs the base plan and online on the validation slots";
  chart.x_label = "iterations";
  chart.y_label = "cost over the validation slots";
  chart.series = {{"marl", {}, {}, "", false}, {"base plan", {}, {}, "", true}, {"online", {}, {}, "", true}};
  for (const nfv::MarlCurvePoint& p : curve) {
    if (std::isnan(p.validation_cost)) continue;
    const auto x = static_cast<double>(p.iteration);
    chart.series[0].x.push_back(x);
    chart.series[0].y.push_back(p.validation_cost);
    chart.series[1].x.push_back(x);
    chart.series[1].y.push_back(p.base_cost);
    chart.series[2].x.push_back(x);
    chart.series[2].y.push_back(p.online_cost);
  }
  const std::string svg_path = nfv::svg_path_for(csv_path);
  nfv::write_svg(chart, svg_path);
  std::printf("curve       %s, %s\n", csv_path.c_str(), svg_path.c_str());
}

int run(const Options& o) {
  nfv::set_marl_threads(o.threads);
  const nfv::Scenario scenario = nfv::load_scenario(o.scenario);
  std::printf("%s", scenario.describe().c_str());
  nfv::MarlTrainer trainer(scenario.model, scenario.train, o.settings);
  if (o.resume) {
    trainer.resume();
    std::printf("resumed     %s at iteration %zu of %zu\n", o.settings.out.c_str(), trainer.iteration(),
                o.settings.iterations);
  }
  const nfv::MarlTrainSettings& s = o.settings;
  const nfv::MixingMatrix& graph = trainer.graph();
  std::printf("agents      %zu sites, %zu actions each; graph %s: %zu edges, lambda2 %.4f; t_gossip %zu\n",
              trainer.layout().sites(), trainer.layout().actions(), s.layout.graph.c_str(), graph.edges().size(),
              graph.second_eigenvalue_modulus(), s.agents.gossip_rounds);
  std::printf("networks    critic m=%zu D=%zu, actor %zu x %zu, K=%zu, B=%g, alpha %g, beta %g, gamma %g, prior %g, %s, %s\n",
              s.agents.critic_width, s.agents.critic_depth, s.agents.actor_width, s.agents.actor_depth,
              s.agents.critic_steps, s.agents.ball_radius, s.agents.critic_step, s.agents.actor_step, s.agents.gamma,
              s.agents.prior_logit,
              nfv::to_string(s.agents.layout), s.agents.device.c_str());
  std::printf("training    %zu iterations x %zu copies x %zu slots, %zu validation slots, forecast %s x %zu, seed %llu\n",
              s.iterations, s.game.copies, s.game.episode_slots, trainer.validation_slots(), s.layout.forecast.c_str(),
              s.layout.horizon, static_cast<unsigned long long>(s.seed));
  std::printf("baselines   base plan %.2f, cost unit %.4f per site and slot\n", trainer.base_cost(), trainer.cost_unit());

  nfv::ProgressBar bar("train", !o.quiet);
  double last_validation = NAN;
  trainer.run([&](const nfv::MarlCurvePoint& p, std::size_t iterations) {
    if (!std::isnan(p.validation_cost)) last_validation = p.validation_cost;
    char text[200];
    std::snprintf(text, sizeof text, "cost/slot %.2f  critic %.4f  validation %.1f (base %.1f, online %.1f)", p.train_cost,
                  p.critic_loss, last_validation, trainer.base_cost(), trainer.online_cost());
    bar.update(p.iteration, iterations, text);
  });
  const auto& curve = trainer.curve();
  double best = NAN;
  for (const auto& p : curve)
    if (!std::isnan(p.validation_cost) && (std::isnan(best) || p.validation_cost < best)) best = p.validation_cost;
  const double online = trainer.online_cost(), base = trainer.base_cost();
  char done[200];
  std::snprintf(done, sizeof done, "%zu iterations in %.0f s: validation %.1f, best %.1f", trainer.iteration(),
                curve.back().seconds, last_validation, best);
  bar.finish(done);
  std::printf("validation  marl %.2f (best %.2f), base plan %.2f, online %.2f over %zu slots: %.3f x online, %.3f x base "
              "(best %.3f x online)\n",
              last_validation, best, base, online, trainer.validation_slots(), last_validation / online,
              last_validation / base, best / online);
  const std::uint64_t bytes = curve.back().gossip_bytes;
  std::printf("gossip      %llu bytes in %zu iterations (%.0f per iteration); observations %llu bytes per slot\n",
              static_cast<unsigned long long>(bytes), trainer.iteration(),
              trainer.iteration() ? static_cast<double>(bytes) / static_cast<double>(trainer.iteration()) : 0.0,
              static_cast<unsigned long long>(trainer.layout().message_bytes_per_slot()));
  std::printf("speed       %.1f environment slots/s, %.2f updates/s\n", trainer.env_slots_per_second(),
              trainer.iterations_per_second());
  std::printf("agents      %s (last), %s (best validation)\n", nfv::marl_checkpoint_files(s.out).learner.c_str(),
              nfv::marl_checkpoint_files(s.out).best.c_str());
  write_chart(curve, nfv::marl_checkpoint_files(s.out).curve);
  return 0;
}

const nfv::TrainCommandRegistration kMarl{
    "marl", "the decentralized placement agents (one per site) on the simulator over a trace's training rows",
    [](int argc, char** argv) { return run(parse_options(argc, argv)); }};

}  // namespace
