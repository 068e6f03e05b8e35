// The scaler service's slot loop on the simulator backend (in process):
// the journal has one entry per slot with the policy, the plan, the reason
// and costs that add up; shadow mode decides without applying; a failing
// policy leaves the last good plan in force, never zero; per-site limits
// hold; a policy switch through the control API takes effect at the next
// slot (status and metrics answer while it builds the policy), drl (with
// its guard) included and switched live both ways; a restarted scaler
// resumes from its journal exactly where an uninterrupted run would be;
// config mistakes name the field.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>

#include "support/bounded_wait.h"
#include "drl_trainer.h"
#include "marl_trainer.h"
#include "journal.h"
#include "scaler_service.h"

namespace nfv {
namespace {

std::string temp_dir() {
  char pattern[] = "/tmp/nfv-scaler-test-XXXXXX";
  return mkdtemp(pattern);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Polls the running service's slot counter, 30 s at most.
void wait_for_slot(const ScalerService& service, std::uint64_t slot) {
  nfv::test::poll_until([&] { return service.next_slot() >= slot; }, std::chrono::seconds(30));
  ASSERT_GE(service.next_slot(), slot) << "the scaler did not reach slot " << slot << " in 30 s";
}

// demo3 (NYCMng, CHINng, KSCYng; chains video: 3 hops, calls: 2 hops), a
// diurnal-like trace in packets/s with a period of 24 slots, `rows` long;
// the config's lines up to its policy.
std::string system_yaml(const std::string& dir, int rows = 24) {
  std::string trace = "# units: pkt/s\n# step_seconds: 300\nslot,video,calls\n";
  for (int t = 0; t < rows; ++t) {
    const double day = std::sin(2 * M_PI * t / 24.0);
    trace += std::to_string(t) + "," + std::to_string(static_cast<int>(1.2e6 + 0.9e6 * day)) + "," +
             std::to_string(static_cast<int>(6e5 + 4e5 * day)) + "\n";
  }
  write(dir + "/trace.csv", trace);
  return "name: test\ntopology: " NFV_SOURCE_ROOT "/topologies/data/demo3.yaml\nbackend: sim\ntrace: {csv: " + dir +
         "/trace.csv}\njournal: " + dir + "/journal.jsonl\n";
}

std::string setup_yaml(const std::string& dir, const std::string& policy, const std::string& extra = "") {
  return system_yaml(dir) + "policy: " + policy + "\n" + extra;
}

std::vector<scaler::JournalEntry> run_service(const std::string& dir, const std::string& yaml) {
  write(dir + "/scaler.yaml", yaml);
  ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
  std::atomic<bool> stop{false};
  service.run(stop);
  return Journal::read(dir + "/journal.jsonl");
}

std::int64_t instances_at(const scaler::JournalEntry& e, const std::string& site) {
  std::int64_t n = 0;
  for (const auto& pool : e.plan())
    if (pool.site() == site) n += pool.instances();
  return n;
}

TEST(ScalerService, JournalsEverySlotWithPlanReasonAndCostsThatAddUp) {
  const std::string dir = temp_dir();
  const auto entries = run_service(dir, setup_yaml(dir, "{name: online}"));
  ASSERT_EQ(entries.size(), 24u);
  double total = 0;
  for (std::size_t t = 0; t < entries.size(); ++t) {
    const auto& e = entries[t];
    EXPECT_EQ(e.slot(), t);
    EXPECT_EQ(e.policy().name(), "online");
    EXPECT_TRUE(e.applied());
    EXPECT_TRUE(e.error().empty()) << e.error();
    if (t == 0) {
      // Nothing measured yet: the starting plan runs the first slot.
      EXPECT_NE(e.reason().find("no slot measured yet"), std::string::npos) << e.reason();
    } else {
      EXPECT_NE(e.reason().find("Ipopt solved"), std::string::npos) << e.reason();
      EXPECT_FALSE(e.policy_state().empty());
    }
    ASSERT_EQ(e.chains_size(), 2);
    total += e.cost().total();
    EXPECT_NEAR(e.cost_so_far().total(), total, 1e-6 * total);
    EXPECT_NEAR(e.cost().total(), e.cost().operating() + e.cost().deployment() + e.cost().wan() + e.cost().sla_penalty(), 1e-9);
  }
  // The instances follow the traffic: more at the peak (slot 6) than in the trough (slot 18).
  EXPECT_GT(entries[6].instances(), entries[18].instances() + 2);
}

TEST(ScalerService, ShadowModeDecidesAndJournalsButNeverApplies) {
  const std::string dir = temp_dir();
  const auto entries = run_service(dir, setup_yaml(dir, "{name: online}", "shadow: true\nslots: 8\n"));
  ASSERT_EQ(entries.size(), 8u);
  for (const auto& e : entries) {
    EXPECT_FALSE(e.applied());
    EXPECT_TRUE(e.shadow());
    // The simulator keeps running the starting plan: one instance per hop, 5 in all, never started anew.
    EXPECT_EQ(e.cost().deployment(), 0);
    EXPECT_NEAR(e.cost().operating(), 5.0, 1e-9);
  }
  EXPECT_GT(entries[3].instances(), 5u);  // what it would have done
}

TEST(ScalerService, AFailingPolicyLeavesTheLastGoodPlanNeverZero) {
  const std::string dir = temp_dir();
  // Threshold held to at most 0 instances per pool wants to stop everything.
  const auto entries = run_service(dir, setup_yaml(dir, "{name: threshold, params: {min: '0', max: '0'}}", "slots: 4\n"));
  ASSERT_EQ(entries.size(), 4u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.instances(), 5u);
    if (e.slot() == 0) continue;  // nothing measured: the starting plan, the policy not asked
    EXPECT_NE(e.error().find("no instance at all"), std::string::npos) << e.error();
    EXPECT_NE(e.reason().find("kept the last good plan"), std::string::npos) << e.reason();
  }
}

TEST(ScalerService, PerSiteLimitsHold) {
  const std::string dir = temp_dir();
  const auto entries = run_service(
      dir, setup_yaml(dir, "{name: threshold, params: {placement: path}}", "slots: 12\nlimits: [{site: NYCMng, max_instances: 4}, {site: KSCYng, min_instances: 3}]\n"));
  bool limited = false;
  for (const auto& e : entries) {
    EXPECT_LE(instances_at(e, "NYCMng"), 4) << "slot " << e.slot();
    EXPECT_GE(instances_at(e, "KSCYng"), 3) << "slot " << e.slot();
    limited = limited || e.reason().find("site NYCMng limited") != std::string::npos;
  }
  EXPECT_TRUE(limited);
}

// A policy whose building a test holds: the first build (the check when it
// is asked for) goes through, later ones wait until released (30 s at most).
std::atomic<int> held_builds{0};
std::atomic<bool> release_held{false};
const PolicyRegistration kHeld{
    "held_for_test", "static, built only when the test lets it", with_placement({}),
    [](const ParamReader& params, const PolicyContext& context) {
      if (held_builds.fetch_add(1) > 0) nfv::test::poll_until([] { return release_held.load(); }, std::chrono::seconds(30));
      return make_static_policy(placed_plan(params, context.model->topology()));
    }};

// A switch builds the new policy before its slot (a checkpoint to load, a
// solver to set up: seconds); status requests and metrics scrapes are
// answered meanwhile, naming the switch, not held until it is built.
TEST(ScalerService, StatusAndMetricsAnswerWhileASwitchBuildsItsPolicy) {
  held_builds = 0;
  release_held = false;
  const std::string dir = temp_dir();
  // A long trace: the run ends when the test stops it, however slow the machine.
  write(dir + "/scaler.yaml", system_yaml(dir, 1000) + "policy: {name: threshold}\nrealtime: true\nslot_seconds: 0.1\n");
  ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
  std::atomic<bool> stop{false};
  std::thread loop([&] { service.run(stop); });
  // Whatever fails below, the build is let go and the loop ends.
  struct Ending {
    std::atomic<bool>& stop;
    std::thread& loop;
    ~Ending() {
      release_held = true;
      stop = true;
      if (loop.joinable()) loop.join();
    }
  } ending{stop, loop};
  wait_for_slot(service, 2);
  control::Request ask;
  ask.mutable_set_policy()->set_name("held_for_test");
  ASSERT_TRUE(service.handle(ask).ok());
  ASSERT_TRUE(nfv::test::poll_until([] { return held_builds.load() >= 2; }, std::chrono::seconds(30)))
      << "the slot loop never started building the policy asked for";
  auto answers = std::async(std::launch::async, [&] {
    control::Request status;
    status.mutable_scaler_status();
    return std::make_pair(service.handle(status), service.metrics());
  });
  const bool answered = answers.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release_held = true;
  // The slot being built for runs before the loop sees the stop.
  stop = true;
  loop.join();
  ASSERT_TRUE(answered) << "status and metrics waited for the policy's build";
  const auto [status, metrics] = answers.get();
  EXPECT_EQ(status.scaler().policy().name(), "threshold");
  EXPECT_EQ(status.scaler().pending_policy().name(), "held_for_test");
  EXPECT_NE(metrics.find("nfv_scaler_policy_info{policy=\"threshold\"} 1"), std::string::npos) << metrics;
  const auto entries = Journal::read(dir + "/journal.jsonl");
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries.back().policy().name(), "held_for_test");
  EXPECT_NE(entries.back().reason().find("policy switched from threshold to held_for_test"), std::string::npos)
      << entries.back().reason();
}

TEST(ScalerService, APolicySwitchTakesEffectAtTheNextSlot) {
  const std::string dir = temp_dir();
  write(dir + "/scaler.yaml", setup_yaml(dir, "{name: online}", "realtime: true\nslot_seconds: 0.2\ncontrol: {token: t}\n"));
  ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
  std::atomic<bool> stop{false};
  std::thread loop([&] { service.run(stop); });
  wait_for_slot(service, 5);
  control::Request bad;
  bad.mutable_set_policy()->set_name("marl");
  EXPECT_FALSE(service.handle(bad).ok());
  control::Request request;
  request.mutable_set_policy()->set_name("threshold");
  const std::uint64_t asked_at = service.next_slot();
  ASSERT_TRUE(service.handle(request).ok());
  loop.join();
  const auto entries = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(entries.size(), 24u);
  std::uint64_t first_threshold = 0;
  for (const auto& e : entries)
    if (e.policy().name() == "threshold") {
      first_threshold = e.slot();
      break;
    }
  // The slot being decided when asked, or the next one; never later.
  EXPECT_GE(first_threshold, asked_at);
  EXPECT_LE(first_threshold, asked_at + 1);
  EXPECT_NE(entries[first_threshold].reason().find("policy switched from online to threshold"), std::string::npos);
  for (const auto& e : entries) EXPECT_EQ(e.policy().name(), e.slot() < first_threshold ? "online" : "threshold");
}

// A small drl checkpoint trained on the service's own system, served with
// the online guard, switched to online and back through the control API:
// the journal holds each drl slot's action, value and guard decision.
TEST(ScalerService, DrlServesWithItsGuardAndSwitchesLiveWithOnline) {
  const std::string dir = temp_dir();
  const std::string head = system_yaml(dir, 96);
  write(dir + "/train.yaml", head + "policy: {name: online}\n");
  const ScalerSetup training = load_scaler_setup(dir + "/train.yaml");
  DrlTrainSettings settings;
  settings.envs = 2;
  settings.steps = 40;
  settings.episode_slots = 12;
  settings.validation_slots = 24;
  settings.validate_every = 0;
  settings.start_steps = 12;
  settings.forecast = ForecastSpec{"persistence", {}};
  settings.horizon = 1;
  settings.agent.hidden = 16;
  settings.out = dir + "/drl.pt";
  DrlTrainer trainer(training.model, training.arrivals, settings);
  trainer.run();

  write(dir + "/scaler.yaml", head + "policy: {name: drl, params: {checkpoint: " + settings.out +
                                  ", guard: online}}\nslots: 24\nrealtime: true\nslot_seconds: 0.2\ncontrol: {token: t}\n");
  ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
  std::atomic<bool> stop{false};
  std::thread loop([&] { service.run(stop); });
  control::Request to_online, to_drl;
  to_online.mutable_set_policy()->set_name("online");
  to_drl.mutable_set_policy()->set_name("drl");
  (*to_drl.mutable_set_policy()->mutable_params())["checkpoint"] = settings.out;
  wait_for_slot(service, 6);
  ASSERT_TRUE(service.handle(to_online).ok());
  wait_for_slot(service, 12);
  ASSERT_TRUE(service.handle(to_drl).ok());
  loop.join();
  EXPECT_NE(service.metrics().find("nfv_scaler_guard_fallbacks_total"), std::string::npos);
  const auto entries = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(entries.size(), 24u);
  std::vector<std::string> sequence;
  std::size_t learned = 0;
  for (const auto& e : entries) {
    if (sequence.empty() || sequence.back() != e.policy().name()) sequence.push_back(e.policy().name());
    if (e.policy().name() != "drl" || e.slot() == 0) {
      EXPECT_FALSE(e.has_learned()) << "slot " << e.slot();
      continue;
    }
    ASSERT_TRUE(e.has_learned()) << "slot " << e.slot();
    ++learned;
    EXPECT_TRUE(e.learned().guard() == "agent" || e.learned().guard() == "online") << e.learned().guard();
    EXPECT_EQ(e.learned().guard() == "online", !e.learned().guard_reason().empty());
    EXPECT_GT(e.learned().actions_size(), 0);
    EXPECT_TRUE(std::isfinite(e.learned().value()));
  }
  EXPECT_EQ(sequence, (std::vector<std::string>{"drl", "online", "drl"}));
  EXPECT_GT(learned, 12u);
}

// The marl policy (one actor per site) serves from nfv-train marl's
// directory and is switched live to online and back through the control
// plane (nfvctl's request); each of its slots says what the sites chose.
TEST(ScalerService, MarlServesFromItsDirectoryAndSwitchesLiveWithOnline) {
  const std::string dir = temp_dir();
  const std::string head = system_yaml(dir, 96);
  write(dir + "/train.yaml", head + "policy: {name: online}\n");
  const ScalerSetup training = load_scaler_setup(dir + "/train.yaml");
  MarlTrainSettings settings;
  settings.agents.critic_width = 16;
  settings.agents.critic_depth = 2;
  settings.agents.actor_width = 8;
  settings.agents.actor_depth = 1;
  settings.agents.critic_steps = 2;
  settings.game.copies = 2;
  settings.game.episode_slots = 6;
  settings.iterations = 2;
  settings.validate_every = 0;
  settings.validation_slots = 24;
  settings.layout.horizon = 1;
  settings.layout.forecast = "persistence";
  settings.out = dir + "/marl";
  MarlTrainer trainer(training.model, training.arrivals, settings);
  trainer.run({});

  write(dir + "/scaler.yaml", head + "policy: {name: marl, params: {checkpoints: " + settings.out +
                                  "}}\nslots: 24\nrealtime: true\nslot_seconds: 0.2\ncontrol: {token: t}\n");
  ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
  std::atomic<bool> stop{false};
  std::thread loop([&] { service.run(stop); });
  control::Request to_online, to_marl, broken;
  to_online.mutable_set_policy()->set_name("online");
  to_marl.mutable_set_policy()->set_name("marl");
  (*to_marl.mutable_set_policy()->mutable_params())["checkpoints"] = settings.out;
  broken.mutable_set_policy()->set_name("marl");
  (*broken.mutable_set_policy()->mutable_params())["checkpoints"] = dir + "/nowhere";
  wait_for_slot(service, 6);
  ASSERT_TRUE(service.handle(to_online).ok());
  EXPECT_FALSE(service.handle(broken).ok());  // named in the error, and online keeps deciding
  wait_for_slot(service, 12);
  ASSERT_TRUE(service.handle(to_marl).ok());
  loop.join();
  const auto entries = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(entries.size(), 24u);
  std::vector<std::string> sequence;
  for (const auto& e : entries) {
    if (sequence.empty() || sequence.back() != e.policy().name()) sequence.push_back(e.policy().name());
    if (e.policy().name() == "marl" && e.slot() > 0) {
      EXPECT_NE(e.reason().find("site actions"), std::string::npos) << "slot " << e.slot() << ": " << e.reason();
    }
  }
  EXPECT_EQ(sequence, (std::vector<std::string>{"marl", "online", "marl"}));
}

TEST(ScalerService, ARestartedScalerResumesFromItsJournal) {
  const std::string whole = temp_dir(), split = temp_dir();
  const auto uninterrupted = run_service(whole, setup_yaml(whole, "{name: online}"));
  run_service(split, setup_yaml(split, "{name: online}", "slots: 10\n"));
  const auto resumed = run_service(split, setup_yaml(split, "{name: online}"));
  ASSERT_EQ(resumed.size(), uninterrupted.size());
  for (std::size_t t = 0; t < resumed.size(); ++t) {
    EXPECT_EQ(resumed[t].slot(), t);
    EXPECT_EQ(resumed[t].instances(), uninterrupted[t].instances()) << "slot " << t;
    EXPECT_NEAR(resumed[t].cost_so_far().total(), uninterrupted[t].cost_so_far().total(),
                1e-6 * uninterrupted[t].cost_so_far().total())
        << "slot " << t;
  }
}

// Killed while writing a slot's line: the torn line is cut off when the
// scaler starts again, and the slots after it follow in lines of their own.
TEST(ScalerService, AJournalLineTornByAKillIsCutOffAndTheRunResumes) {
  const std::string dir = temp_dir();
  run_service(dir, setup_yaml(dir, "{name: online}", "slots: 10\n"));
  const std::string journal = dir + "/journal.jsonl";
  std::ifstream in(journal);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t last_line = whole.rfind('\n', whole.size() - 2) + 1;
  {
    std::ofstream torn(journal, std::ios::app);
    torn << whole.substr(last_line, (whole.size() - last_line) / 2);  // half of a line, no newline
  }
  const auto resumed = run_service(dir, setup_yaml(dir, "{name: online}"));
  ASSERT_EQ(resumed.size(), 24u);
  for (std::size_t t = 0; t < resumed.size(); ++t) EXPECT_EQ(resumed[t].slot(), t);
}

// A journal past journal_max_mib rotates to JOURNAL.1: on disk it stays
// under twice the size, the slots kept read back in order, and a restarted
// scaler resumes after the last of them.
TEST(ScalerService, AJournalPastItsSizeRotatesAndTheRunResumesFromWhatIsKept) {
  // The size: two and a half of this system's entries, as a short run writes them.
  const std::string probe = temp_dir();
  run_service(probe, setup_yaml(probe, "{name: online}", "slots: 4\n"));
  const auto max_bytes = std::filesystem::file_size(probe + "/journal.jsonl") * 5 / 8;
  char max_mib[32];
  std::snprintf(max_mib, sizeof max_mib, "%.9f", static_cast<double>(max_bytes) / (1 << 20));
  const std::string rotate = "journal_max_mib: " + std::string(max_mib) + "\n";

  const std::string dir = temp_dir();
  const std::string journal = dir + "/journal.jsonl";
  const auto first = run_service(dir, setup_yaml(dir, "{name: online}", "slots: 10\n" + rotate));
  ASSERT_TRUE(std::filesystem::exists(Journal::rotated_path(journal)));
  EXPECT_LE(std::filesystem::file_size(journal), max_bytes);
  EXPECT_LE(std::filesystem::file_size(Journal::rotated_path(journal)), 2 * max_bytes);
  ASSERT_FALSE(first.empty());
  EXPECT_LT(first.size(), 10u) << "the oldest slots went with the rotations";
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].slot(), 10 - first.size() + i);

  const auto resumed = run_service(dir, setup_yaml(dir, "{name: online}", rotate));
  ASSERT_FALSE(resumed.empty());
  EXPECT_EQ(resumed.back().slot(), 23u);
  for (std::size_t i = 1; i < resumed.size(); ++i) EXPECT_EQ(resumed[i].slot(), resumed[i - 1].slot() + 1);
  for (const auto& e : resumed) EXPECT_TRUE(e.error().empty()) << "slot " << e.slot() << ": " << e.error();

  // A .1 that the journal does not follow (left from another run) is refused, named.
  std::ifstream older(Journal::rotated_path(journal));
  std::string first_line;
  std::getline(older, first_line);
  write(journal, first_line + "\n");
  try {
    Journal::read(journal);
    FAIL() << "a journal that does not follow its .1 was read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("not one journal (remove both to start afresh)"), std::string::npos) << e.what();
  }

  write(dir + "/bad.yaml", setup_yaml(dir, "{name: online}", "journal_max_mib: -1\n"));
  try {
    load_scaler_setup(dir + "/bad.yaml");
    FAIL() << "a negative journal_max_mib was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("journal_max_mib"), std::string::npos) << e.what();
  }
}

TEST(ScalerService, PlansForThePredictorsForecast) {
  // EWMA with alpha 0.5: each slot's forecast is half the last measured rate
  // plus half the previous forecast, through the unit mapping both ways.
  const std::string dir = temp_dir();
  const auto entries = run_service(dir, setup_yaml(dir, "{name: online}", "forecast: {model: ewma, ewma_alpha: 0.5}\n"));
  ASSERT_EQ(entries.size(), 24u);
  for (std::size_t t = 2; t < entries.size(); ++t)
    for (int c = 0; c < 2; ++c) {
      const double expected = 0.5 * entries[t - 1].chains(c).arrival_pps() + 0.5 * entries[t - 1].chains(c).forecast_pps();
      EXPECT_NEAR(entries[t].chains(c).forecast_pps(), expected, 1e-6 * expected) << "slot " << t << " chain " << c;
    }
  // A model that does not exist is named with its field.
  write(dir + "/bad.yaml", setup_yaml(dir, "{name: online}", "forecast: {model: crystal_ball}\n"));
  try {
    ScalerService service(load_scaler_setup(dir + "/bad.yaml"));
    FAIL();
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("forecast.model"), std::string::npos) << e.what();
  }
}

TEST(ScalerService, ConfigMistakesNameTheField) {
  const std::string dir = temp_dir();
  const auto error_of = [&](const std::string& yaml) {
    try {
      parse_scaler_setup(yaml, "scaler.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string base = setup_yaml(dir, "{name: online}");
  EXPECT_NE(error_of(base + "slot_seconds: -1\n").find("slot_seconds: expected > 0"), std::string::npos);
  EXPECT_NE(error_of(base + "limits: [{site: Nowhere}]\n").find("limits[0].site"), std::string::npos);
  EXPECT_NE(error_of(base + "backend: pods\n").find("pods: expected at least one pod"), std::string::npos);
  EXPECT_NE(error_of(base + "polcy: {}\n").find("polcy"), std::string::npos);
  EXPECT_NE(error_of("name: x\ntopology: " NFV_SOURCE_ROOT "/topologies/data/demo3.yaml\n").find("trace: expected a trace"),
            std::string::npos);
  // The control API off loopback speaks mutual TLS only; TLS needs all three files.
  const std::string off_loopback = error_of(base + "control: {listen: 0.0.0.0, port: 9930, token: t}\n");
  EXPECT_NE(off_loopback.find("control.tls: expected cert, key and ca files: off loopback (listen 0.0.0.0)"), std::string::npos)
      << off_loopback;
  const std::string no_ca = error_of(base + "backend: pods\npods: [{name: a, control: 'a:1', token: t, sites: [NYCMng], "
                                            "tls: {cert: c.pem, key: k.pem}}]\n");
  EXPECT_NE(no_ca.find("pods[0].tls.ca: expected a PEM file"), std::string::npos) << no_ca;
  // The scaler sends the pods its token: in plaintext only to loopback.
  const std::string plain = error_of(base + "backend: pods\npods: [{name: a, control: 'nfv-pod-a:9900', token: t, sites: [NYCMng]}]\n");
  EXPECT_NE(plain.find("pods[0].tls: expected cert, key and ca files: off loopback (control nfv-pod-a:9900)"), std::string::npos)
      << plain;
}

}  // namespace
}  // namespace nfv
