#include "marl_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "episode.h"
#include "marl_policy.h"
#include "rate_trace.h"

namespace nfv {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Plan starting_plan(const SystemModel& model) { return place_chains(model.topology(), 1, Placement::ingress); }

// One curve point per line, every field, in the CSV's order.
constexpr const char* kCurveHeader =
    "iteration,train_cost_per_slot,critic_loss,critic_spread,critic_spread_after,validation_cost,base_cost,online_cost,"
    "gossip_bytes,seconds";

std::string curve_line(const MarlCurvePoint& p) {
  std::ostringstream out;
  out.precision(17);
  out << p.iteration << ',' << p.train_cost << ',' << p.critic_loss << ',' << p.critic_spread << ','
      << p.critic_spread_after << ',' << p.validation_cost << ',' << p.base_cost << ',' << p.online_cost << ','
      << p.gossip_bytes << ',' << p.seconds;
  return out.str();
}

MarlCurvePoint parse_curve_line(const std::string& line) {
  MarlCurvePoint p;
  std::string field;
  std::istringstream in(line);
  std::vector<std::string> fields;
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (fields.size() != 10) throw std::runtime_error("a curve line of " + std::to_string(fields.size()) + " fields: '" + line + "'");
  p.iteration = std::stoul(fields[0]);
  p.train_cost = std::stod(fields[1]);
  p.critic_loss = std::stod(fields[2]);
  p.critic_spread = std::stod(fields[3]);
  p.critic_spread_after = std::stod(fields[4]);
  p.validation_cost = std::stod(fields[5]);
  p.base_cost = std::stod(fields[6]);
  p.online_cost = std::stod(fields[7]);
  p.gossip_bytes = std::stoull(fields[8]);
  p.seconds = std::stod(fields[9]);
  return p;
}

void write_file(const std::string& path, const std::string& text) {
  const std::string aside = path + ".tmp";
  {
    std::ofstream out(aside);
    out << text;
    if (!out) throw std::runtime_error(aside + ": cannot write");
  }
  std::filesystem::rename(aside, path);
}

}  // namespace

MarlTrainer::MarlTrainer(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> train,
                         MarlTrainSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)), all_(std::move(train)),
      graph_(site_graph(settings_.layout.graph, model_->topology())) {
  MarlTrainSettings& s = settings_;
  validate(s.agents);
  validate(s.layout);
  if (s.iterations == 0) throw std::invalid_argument("--iterations: expected at least 1");
  const std::size_t rows = all_->slots();
  const std::size_t day = daily_period_slots(all_->mapping.step_seconds);
  const std::size_t validation = s.validation_slots > 0 ? s.validation_slots : std::min(2 * day, rows / 4);
  if (validation == 0 || validation + s.game.episode_slots + 1 > rows)
    throw std::invalid_argument("marl training: " + std::to_string(rows) + " training rows cannot hold " +
                                std::to_string(validation) + " validation slots and an episode of " +
                                std::to_string(s.game.episode_slots) + " (need at least " +
                                std::to_string(validation + s.game.episode_slots + 1) + ")");
  learn_rows_ = std::make_shared<const ArrivalSchedule>(slot_range(*all_, 0, rows - validation));
  validation_ = std::make_shared<const ArrivalSchedule>(slot_range(*all_, rows - validation, rows));
  layout_ = std::make_shared<const SiteLayout>(model_, all_->mapping, s.layout, neighbour_lists(graph_));

  // Rewards in units of the base plan's cost per site and slot: the
  // critics' targets are then near 1 on any trace volume and topology.
  base_cost_ = validation_cost(nullptr);
  s.game.cost_unit = std::max(base_cost_ / static_cast<double>(validation * model_->sites()), 1e-9);
  s.game.seed = s.seed;
  environment_.forecast = parse_forecast_spec(s.layout.forecast);
  environment_.horizon = s.layout.horizon;
  environment_.arrival_noise = s.arrival_noise;
  game_ = std::make_unique<PlacementGame>(layout_, learn_rows_, environment_, starting_plan(*model_), s.game);
  agents_ = std::make_shared<DecentralizedActorCritic>(s.agents, graph_, *game_, s.seed);
}

MarlTrainer::~MarlTrainer() = default;

double MarlTrainer::validation_cost(const std::shared_ptr<const DecentralizedActorCritic>& agents) const {
  const EpisodeSummary summary =
      simulate(model_, validation_, std::make_unique<MarlPolicy>(layout_, agents), starting_plan(*model_),
               parse_forecast_spec(settings_.layout.forecast), settings_.layout.horizon, {}, learn_rows_,
               default_warm_up_slots(all_->mapping.step_seconds));
  return summary.cost.total();
}

double MarlTrainer::online_cost() const {
  // A build without Ipopt has no online policy: no reference, the rest the same.
  if (!policy_names().contains("online")) return NAN;
  if (online_cost_ < 0) {
    const EpisodeSummary summary =
        simulate(model_, validation_, make_policy("online", settings_.online, PolicyContext(model_, validation_->mapping)),
                 starting_plan(*model_), parse_forecast_spec(settings_.layout.forecast), settings_.layout.horizon, {},
                 learn_rows_, default_warm_up_slots(all_->mapping.step_seconds));
    online_cost_ = summary.cost.total();
  }
  return online_cost_;
}

double MarlTrainer::env_slots_per_second() const {
  return rollout_seconds_ > 0 ? static_cast<double>(env_slots_) / rollout_seconds_ : 0.0;
}

double MarlTrainer::iterations_per_second() const {
  return update_seconds_ > 0 ? static_cast<double>(curve_.empty() ? 0 : iteration_) / update_seconds_ : 0.0;
}

void MarlTrainer::start_curve() {
  // Iteration 0: the untrained agents, so the curve starts where they do.
  MarlCurvePoint start;
  start.validation_cost = validation_cost(agents_);
  start.base_cost = base_cost_;
  start.online_cost = online_cost();
  best_validation_ = start.validation_cost;
  curve_.push_back(start);
  save();
  save_best();
}

void MarlTrainer::run(const std::function<void(const MarlCurvePoint&, std::size_t)>& progress) {
  const MarlTrainSettings& s = settings_;
  if (curve_.empty()) {
    start_curve();
    if (progress) progress(curve_.front(), s.iterations);
  }
  while (iteration_ < s.iterations) {
    const auto began = std::chrono::steady_clock::now();
    const Rollout rollout = agents_->collect(*game_);
    const double rollout_s = seconds_since(began);
    const auto updating = std::chrono::steady_clock::now();
    const IterationStats stats = agents_->update(rollout);
    update_seconds_ += seconds_since(updating);
    rollout_seconds_ += rollout_s;
    env_slots_ += game_->slots_stepped();
    ++iteration_;
    MarlCurvePoint p;
    p.iteration = iteration_;
    p.train_cost = game_->episode_cost().total() / static_cast<double>(std::max<std::uint64_t>(1, game_->slots_stepped()));
    p.critic_loss = stats.critic_loss;
    p.critic_spread = stats.critic_spread;
    p.critic_spread_after = stats.critic_spread_after;
    p.gossip_bytes = agents_->traffic().bytes;
    const bool validate_now = (s.validate_every > 0 && iteration_ % s.validate_every == 0) || iteration_ == s.iterations;
    if (validate_now) {
      p.validation_cost = validation_cost(agents_);
      p.base_cost = base_cost_;
      p.online_cost = online_cost();
    }
    seconds_ += seconds_since(began);
    p.seconds = seconds_;
    curve_.push_back(p);
    if (validate_now) {
      const bool best = p.validation_cost < best_validation_;
      if (best) best_validation_ = p.validation_cost;
      save();
      if (best) save_best();
    }
    if (progress) progress(p, s.iterations);
  }
}

AgentProcessesRun MarlTrainer::run_processes(AgentProcessOptions options) {
  const MarlTrainSettings& s = settings_;
  if (!curve_.empty()) throw std::invalid_argument("--mode processes: a run starts afresh (each agent resumes on its own)");
  processes_ = true;
  start_curve();
  options.checkpoint_dir = marl_checkpoint_files(s.out).agents;
  std::filesystem::create_directories(options.checkpoint_dir);
  const EnvironmentFactory make_game = [this] {
    return std::make_unique<PlacementGame>(layout_, learn_rows_, environment_, starting_plan(*model_), settings_.game);
  };
  const auto began = std::chrono::steady_clock::now();
  AgentProcessesRun run = run_agent_processes(s.agents, graph_, make_game, s.seed, s.iterations, options);
  seconds_ = seconds_since(began);
  update_seconds_ = seconds_;
  std::vector<std::string> files;
  for (std::size_t k = 0; k < layout_->sites(); ++k) files.push_back(agent_file(options.checkpoint_dir, k, ".pt"));
  agents_ = DecentralizedActorCritic::load_team(files, graph_, MarlShape::of(*game_), s.agents.device);
  iteration_ = run.team_return.size();
  const double slots = static_cast<double>(s.game.episode_slots);
  // Each agent's log says what it had sent by each iteration; the team's is their sum.
  std::vector<std::uint64_t> sent(run.team_return.size(), 0);
  for (const AgentProcessReport& agent : run.agents)
    for (const AgentIteration& it : agent.iterations)
      if (it.iteration < sent.size()) sent[it.iteration] += it.gossip_bytes;  // iterations count from 0
  for (std::size_t t = 0; t < run.team_return.size(); ++t) {
    MarlCurvePoint p;
    p.iteration = t + 1;
    p.train_cost = -run.team_return[t] * cost_unit() / slots;  // the team's return per copy, back in cost
    p.gossip_bytes = sent[t];
    p.seconds = NAN;  // the processes keep their own time; the run's is on the last point
    curve_.push_back(p);
  }
  MarlCurvePoint& last = curve_.back();
  last.gossip_bytes = run.gossip.bytes;
  last.seconds = seconds_;
  last.validation_cost = validation_cost(agents_);
  last.base_cost = base_cost_;
  last.online_cost = online_cost();
  env_slots_ = run.team_return.size() * s.game.copies * s.game.episode_slots;
  rollout_seconds_ = seconds_;
  save();
  if (last.validation_cost < best_validation_) {
    best_validation_ = last.validation_cost;
    save();
    save_best();
  }
  return run;
}

void MarlTrainer::save() const {
  const MarlCheckpointFiles files = marl_checkpoint_files(settings_.out);
  std::filesystem::create_directories(settings_.out);
  write_file(files.layout, to_text(settings_.layout));
  agents_->save(files.learner);
  std::ostringstream state;
  state.precision(17);
  state << "mode " << (processes_ ? "processes" : "stacked") << "\niteration " << iteration_ << "\ncost_unit " << cost_unit() << "\nbase_cost " << base_cost_
        << "\nonline_cost " << online_cost_ << "\nbest_validation " << best_validation_ << "\nseconds " << seconds_
        << " " << rollout_seconds_ << " " << update_seconds_ << " " << env_slots_ << "\nrandom " << game_->random_state()
        << "\n";
  for (const MarlCurvePoint& p : curve_) state << "point " << curve_line(p) << "\n";
  write_file(files.state, state.str());
  std::ostringstream csv;
  csv << kCurveHeader << "\n";
  for (const MarlCurvePoint& p : curve_) csv << curve_line(p) << "\n";
  write_file(files.curve, csv.str());
}

void MarlTrainer::save_best() const {
  const MarlCheckpointFiles files = marl_checkpoint_files(settings_.out);
  std::filesystem::copy_file(files.learner, files.best, std::filesystem::copy_options::overwrite_existing);
}

void MarlTrainer::resume() {
  const MarlCheckpointFiles files = marl_checkpoint_files(settings_.out);
  std::ifstream in(files.state);
  if (!in) throw std::runtime_error(files.state + ": cannot read: nothing to resume");
  try {
    std::string key, line;
    double cost_unit = 0;
    std::vector<MarlCurvePoint> curve;
    while (in >> key) {
      if (key == "mode") {
        std::string mode;
        in >> mode;
        // The team gathered from a processes run has no generators to go on
        // with, and each agent's process resumes on its own.
        if (mode != "stacked") throw std::runtime_error("made by --mode " + mode + ": only a stacked run resumes");
      } else if (key == "iteration") in >> iteration_;
      else if (key == "cost_unit") in >> cost_unit;
      else if (key == "base_cost") in >> base_cost_;
      else if (key == "online_cost") in >> online_cost_;
      else if (key == "best_validation") in >> best_validation_;
      else if (key == "seconds") in >> seconds_ >> rollout_seconds_ >> update_seconds_ >> env_slots_;
      else if (key == "random") {
        std::getline(in, line);
        game_->set_random_state(line);
        continue;
      } else if (key == "point") {
        in >> line;
        curve.push_back(parse_curve_line(line));
      } else {
        throw std::runtime_error("unknown key '" + key + "'");
      }
      if (!in) throw std::runtime_error("an unreadable value for '" + key + "'");
    }
    if (std::abs(cost_unit - this->cost_unit()) > 1e-9 * cost_unit)
      throw std::runtime_error("made on another system or trace (cost unit " + std::to_string(cost_unit) + ", here " +
                               std::to_string(this->cost_unit()) + ")");
    curve_ = std::move(curve);
  } catch (const std::exception& e) {
    throw std::runtime_error(files.state + ": " + e.what());
  }
  agents_ = DecentralizedActorCritic::load(files.learner, graph_, *game_);
}

}  // namespace nfv
