// nfv-train drl: trains the DRL scaling policy's TD3 agent on the simulator
// over the training rows of a trace (drl_trainer.h), prints its progress,
// and writes the checkpoint nfv-scaler and nfv-sim serve with
// `--policy drl --param checkpoint=FILE`, with the training curve as CSV
// and SVG.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "drl_trainer.h"
#include "option_values.h"
#include "progress_bar.h"
#include "scenario.h"
#include "svg_chart.h"
#include "train_command.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-train drl [options]

Trains the DRL scaling policy (TD3 with prioritized replay, per-chain
critics) on the fluid simulator over the training rows of a trace, and
validates it against the online policy on held-back slots.

the system and its traffic (training uses the train rows of --split):
%s
training:
  --envs K               environments stepped at once (default 8)
  --steps N              slots each environment runs (default 3000)
  --episode N            slots per episode (default one day of trace steps)
  --validation N         last train rows held back to validate (default two
                         days of trace steps, at most a quarter of the rows)
  --validate-every N     slots between validations (default 250)
  --horizon N            forecast steps in the features (default 3)
  --learn-split          the agent also learns each hop's split over its sites
                         (default: the cheapest site within the SLA takes it)
  --base forecast|online what the zero action plans: forecast (default), the
                         forecast with --headroom at the cheapest site; online,
                         the online policy's plan for the slot (with --teacher's
                         parameters), each chain's instances scaled by
                         2^(R s), s the mean of its pools' scale outputs
  --residual-range R     with --base online: R above (default 1: half to twice
                         online's instances)
  --headroom X           the base plan's instances per instance of forecast
                         need (default 1.1); the agent learns around it
  --sites-per-hop N      candidate sites per hop, those nearest the chain's
                         route among the sites within its SLA (default 4; 0: all)
  --forecast MODEL[:K=V] what the agent plans with (default ewma:alpha=0.5;
                         e.g. rnn:checkpoint=gru.pt); serve with the same
  --arrival-noise X      log-normal noise on the training rates (default 0.1)
  --start N              slots that fill the replay buffer before learning
                         (default 100)
  --imitation N          start from the online policy: it acts in the start
                         slots and the actor first clones it with N updates
                         (default 0: the untrained actor acts, with noise)
  --teacher KEY=VALUE    an online-policy parameter for the teacher and the
                         validation baseline, repeatable
  --critic-warmup N      critic-only updates on the start slots before the
                         actor learns (default 500)
  --actor-weights size|even  the actor weighs each chain's value by the chain's
                         size, minimising the system's cost (default), or
                         weighs chains alike
  --explore X            std of the exploration noise on actions (default 0.2)
  --explore-per chain|pool  one noise per chain shared by its pools (default)
                         or one per pool
  --explore-theta X      its pull back to 0 per slot (default 0.15; 1: independent
                         noise every slot)
  --batch N              chains per update (default 128)
  --updates N            updates per slot (default 4)
  --replay N             replay capacity in slots of the whole system (default
                         16384; each holds one sample per chain)
  --uniform              uniform replay instead of prioritized
  --hidden N             hidden units (default 64)
  --gamma X              discount per slot (default 0.9)
  --actor-lr X           (default 0.0003)   --critic-lr X  (default 0.001)
  --tau X                target-network averaging (default 0.01)
  --bc-target replay|zero  what TD3+BC's term keeps the actor near: the replayed
                         actions, or the zero action (default: zero with
                         --base online, else replay)
  --bc-alpha X           TD3+BC: the actor keeps near the replayed actions
                         unless the critic is sure (default 2.5; 0: plain TD3)
  --device cpu|cuda      where the networks train (default cpu)
  --seed N               (default 1)
  --threads N            LibTorch threads (default 1: deterministic)
  --env-threads N        environment helper threads besides the main one (default 1)
output:
  --out FILE             checkpoint (default drl.pt; FILE.best holds the best
                         validation so far)
  --checkpoint-every N   slots (default 500)
  --curve FILE           training curve CSV (default FILE.curve.csv; the
                         plot goes next to it as .svg)
  --resume               continue the run saved in --out
  --fine-tune FILE       start from this checkpoint's networks (trained on any
                         topology), as a new run
  --quiet                no progress bar
)";

struct Options {
  nfv::ScenarioOptions scenario;
  nfv::DrlTrainSettings settings;
  int threads = 1;
  std::string curve;
  std::string fine_tune;
  bool resume = false;
  bool quiet = false;
  double residual_range = 1;
  bool residual_range_given = false;
  std::string bc_target;  // empty: by --base
};

double positive_number(const std::string& option, const std::string& text) {
  const double value = nfv::option_number(option, text);
  if (!(value > 0)) throw std::invalid_argument(option + ": expected a positive number, got '" + text + "'");
  return value;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.settings.out = "drl.pt";
  o.scenario.needs_training = true;
  std::string command = "nfv-train drl";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  o.settings.config_text = command;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      std::printf(kUsage, nfv::kScenarioUsage);
      std::exit(0);
    }
    if (option == "--uniform") {
      o.settings.replay.prioritized = false;
      continue;
    }
    if (option == "--learn-split") {
      o.settings.scale.learn_split = true;
      continue;
    }
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
    nfv::DrlTrainSettings& s = o.settings;
    if (option == "--envs") s.envs = nfv::option_positive_count(option, value);
    else if (option == "--steps") s.steps = nfv::option_positive_count(option, value);
    else if (option == "--episode") s.episode_slots = nfv::option_positive_count(option, value);
    else if (option == "--validation") s.validation_slots = nfv::option_positive_count(option, value);
    else if (option == "--validate-every") s.validate_every = nfv::option_count(option, value);
    else if (option == "--horizon") s.horizon = nfv::option_positive_count(option, value);
    else if (option == "--headroom") s.scale.headroom = positive_number(option, value);
    else if (option == "--base") s.scale.base = nfv::parse_action_base(option, value);
    else if (option == "--residual-range") {
      o.residual_range = positive_number(option, value);
      o.residual_range_given = true;
    }
    else if (option == "--bc-target") {
      if (value != "replay" && value != "zero") throw std::invalid_argument("--bc-target: expected replay or zero, got '" + value + "'");
      o.bc_target = value;
    }
    else if (option == "--sites-per-hop") s.scale.sites_per_hop = nfv::option_count(option, value);
    else if (option == "--forecast") s.forecast = nfv::parse_forecast_spec(value);
    else if (option == "--arrival-noise") s.arrival_noise = nfv::option_number(option, value);
    else if (option == "--start") s.start_steps = nfv::option_count(option, value);
    else if (option == "--imitation") {
      s.imitation_updates = nfv::option_count(option, value);
      s.imitation = s.imitation_updates > 0;
    } else if (option == "--teacher") nfv::add_named_param(option, value, s.teacher);
    else if (option == "--explore-per") {
      if (value != "chain" && value != "pool") throw std::invalid_argument("--explore-per: expected chain or pool, got '" + value + "'");
      s.explore_per_chain = value == "chain";
    } else if (option == "--actor-weights") {
      if (value != "size" && value != "even") throw std::invalid_argument("--actor-weights: expected size or even, got '" + value + "'");
      s.size_weighted_actor = value == "size";
    } else if (option == "--critic-warmup") s.critic_warmup = nfv::option_count(option, value);
    else if (option == "--explore") s.explore_noise = nfv::option_number(option, value);
    else if (option == "--explore-theta") s.explore_theta = nfv::option_number(option, value);
    else if (option == "--batch") s.batch = nfv::option_positive_count(option, value);
    else if (option == "--updates") s.updates_per_step = nfv::option_positive_count(option, value);
    else if (option == "--replay") s.replay.capacity = nfv::option_positive_count(option, value);
    else if (option == "--hidden") s.agent.hidden = nfv::option_positive_count(option, value);
    else if (option == "--gamma") s.agent.gamma = nfv::option_number(option, value);
    else if (option == "--actor-lr") s.agent.actor_lr = positive_number(option, value);
    else if (option == "--critic-lr") s.agent.critic_lr = positive_number(option, value);
    else if (option == "--tau") s.agent.tau = positive_number(option, value);
    else if (option == "--bc-alpha") s.agent.bc_alpha = nfv::option_number(option, value);
    else if (option == "--device") s.agent.device = value;
    else if (option == "--seed") s.seed = nfv::option_count(option, value);
    else if (option == "--threads") o.threads = static_cast<int>(nfv::option_positive_count(option, value));
    else if (option == "--env-threads") s.threads = nfv::option_count(option, value);
    else if (option == "--out") s.out = value;
    else if (option == "--checkpoint-every") s.checkpoint_every = nfv::option_count(option, value);
    else if (option == "--curve") o.curve = value;
    else if (option == "--fine-tune") o.fine_tune = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  const bool residual = o.settings.scale.base == nfv::ActionBase::online;
  if (o.residual_range_given && !residual)
    throw std::invalid_argument("--residual-range: only with --base online (it bounds the residual on online's plan)");
  if (residual) o.settings.scale.kappa = o.residual_range * std::log(2.0);
  o.settings.agent.bc_to_zero = o.bc_target.empty() ? residual : o.bc_target == "zero";
  if (o.settings.start_steps < 2)
    throw std::invalid_argument("--start: at least 2 slots (they set the input statistics)");
  if (!(o.settings.explore_theta > 0 && o.settings.explore_theta <= 1))
    throw std::invalid_argument("--explore-theta: expected a number in (0, 1]");
  if (o.settings.agent.device != "cpu" && o.settings.agent.device != "cuda")
    throw std::invalid_argument("--device: expected cpu or cuda, got '" + o.settings.agent.device + "'");
  if (!(o.settings.agent.gamma >= 0 && o.settings.agent.gamma < 1))
    throw std::invalid_argument("--gamma: expected a number in [0, 1)");
  return o;
}

void write_curve(const std::vector<nfv::DrlCurvePoint>& curve, const std::string& csv_path, const std::string& title) {
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error(csv_path + ": cannot write");
  csv << "step,updates,train_cost_per_slot,critic_loss,actor_loss,mean_q,validation_cost,online_cost,seconds\n";
  nfv::LineChart chart;
  chart.title = title;
  chart.x_label = "slots per environment";
  chart.y_label = "cost over the validation slots";
  chart.series = {{"drl", {}, {}, "", false}, {"online", {}, {}, "", true}};
  for (const nfv::DrlCurvePoint& p : curve) {
    csv << p.step << ',' << p.updates << ',' << p.train_cost << ',' << p.critic_loss << ',' << p.actor_loss << ','
        << p.mean_q << ',' << p.validation_cost << ',' << p.online_cost << ',' << p.seconds << '\n';
    chart.series[0].x.push_back(static_cast<double>(p.step));
    chart.series[0].y.push_back(p.validation_cost);
    chart.series[1].x.push_back(static_cast<double>(p.step));
    chart.series[1].y.push_back(p.online_cost);
  }
  const std::string svg_path = nfv::svg_path_for(csv_path);
  nfv::write_svg(chart, svg_path);
  std::printf("curve       %s, %s\n", csv_path.c_str(), svg_path.c_str());
}

int run(const Options& o) {
  nfv::set_drl_threads(o.threads);
  const nfv::Scenario scenario = nfv::load_scenario(o.scenario);
  std::printf("%s", scenario.describe().c_str());
  nfv::DrlTrainer trainer(scenario.model, scenario.train, o.settings);
  if (!o.fine_tune.empty()) {
    if (o.resume) throw std::invalid_argument("--fine-tune: give either --resume or --fine-tune");
    trainer.fine_tune(o.fine_tune);
    std::printf("fine-tune   from %s\n", o.fine_tune.c_str());
  }
  if (o.resume) {
    trainer.resume(o.settings.out);
    std::printf("resumed     %s at slot %zu of %zu\n", o.settings.out.c_str(), trainer.step(), o.settings.steps);
  }
  const nfv::DrlTrainSettings& s = o.settings;
  std::printf("training    %zu environments x %zu slots (episodes of %zu), %zu validation slots, forecast %s x %zu, "
              "seed %llu, %s\n",
              s.envs, s.steps, trainer.episode_slots(), trainer.validation_slots(),
              nfv::forecast_spec_text(s.forecast).c_str(), s.horizon, static_cast<unsigned long long>(s.seed),
              s.agent.device.c_str());
  const nfv::AgentShape& shape = trainer.agent().shape();
  std::size_t widest = 0;
  for (std::size_t c = 0; c < shape.chains; ++c) widest = std::max(widest, shape.chain_begin[c + 1] - shape.chain_begin[c]);
  std::printf("pools       %zu candidate pools (within the SLA) of %zu chains, at most %zu per chain; %zu + %zu features\n",
              shape.pools, shape.chains, widest, shape.pool_features, shape.global_features);
  // A resumed or fine-tuned agent keeps the settings it was made with.
  const nfv::AgentSettings& agent = trainer.agent().settings();
  std::printf("actions     zero = the %s plan%s\n", nfv::action_base_name(s.scale.base),
              s.scale.base == nfv::ActionBase::online ? ", a residual per chain" : "");
  std::printf("agent       TD3%s, hidden %zu, gamma %g, lr %g/%g, batch %zu, %s replay of %zu, imitation %zu updates\n",
              agent.bc_alpha > 0 ? (agent.bc_to_zero ? "+BC (towards 0)" : "+BC") : "", agent.hidden, agent.gamma, agent.actor_lr, agent.critic_lr, s.batch,
              s.replay.prioritized ? "prioritized" : "uniform", s.replay.capacity, s.imitation ? s.imitation_updates : 0);

  nfv::ProgressBar bar("train", !o.quiet);
  double last_imitation = NAN;
  trainer.run([&](const nfv::DrlProgress& p) {
    char text[200];
    if (p.phase == "imitate")
      std::snprintf(text, sizeof text, "imitate loss %.4f  critic %.4f", p.imitation_loss, p.critic_loss);
    else
      std::snprintf(text, sizeof text, "%-7s cost/slot %.2f  critic %.4f  validation %.1f (online %.1f)", p.phase.c_str(),
                    p.train_cost, p.critic_loss, p.validation_cost, p.online_cost);
    if (p.phase == "imitate") last_imitation = p.imitation_loss;
    bar.update(p.step, p.steps, text);
  });
  const auto& curve = trainer.curve();
  const nfv::DrlCurvePoint last = curve.empty() ? nfv::DrlCurvePoint{} : curve.back();
  double best = NAN;
  for (const auto& p : curve)
    if (std::isnan(best) || p.validation_cost < best) best = p.validation_cost;
  char done[200];
  std::snprintf(done, sizeof done, "%zu slots in %.0f s: validation %.1f, best %.1f, online %.1f", trainer.step(),
                last.seconds, last.validation_cost, best, last.online_cost);
  bar.finish(done);
  std::printf("validation  drl %.2f (best %.2f) vs online %.2f over %zu slots: %.3f x online (best %.3f x)\n",
              last.validation_cost, best, last.online_cost, trainer.validation_slots(),
              last.validation_cost / last.online_cost, best / last.online_cost);
  if (!std::isnan(last_imitation)) std::printf("imitation   behaviour-cloning loss %.4f at the end\n", last_imitation);
  std::printf("speed       %.1f environment slots/s, %.1f updates/s\n", trainer.env_steps_per_second(),
              trainer.updates_per_second());
  std::printf("replay      %s\n", trainer.replay_summary().describe().c_str());
  std::printf("checkpoint  %s (last), %s.best (best validation)\n", s.out.c_str(), s.out.c_str());
  write_curve(curve, o.curve.empty() ? s.out + ".curve.csv" : o.curve, "drl vs online on the validation slots");
  return 0;
}

const nfv::TrainCommandRegistration kDrl{
    "drl", "the DRL scaling policy (TD3) on the simulator over a trace's training rows",
    [](int argc, char** argv) { return run(parse_options(argc, argv)); }};

}  // namespace
