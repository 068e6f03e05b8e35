// `./nfv demo` as a user runs it: deploy/demo/run-demo.sh starts three pods,
// nfv-replay and nfv-scaler on one slot clock. The run ends whole (exit 0,
// every slot journaled, every mbuf back), and slot k of the scaler measured
// slot k of the traffic: each journal slot's measured arrivals match what
// the replay sent in the same slot, per chain, within 5%. With --policy drl
// the checkpoint kept in deploy/demo serves the same pods, and the script
// that made it makes one again.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "journal.h"
#include "replay_runner.h"
#include "subprocess.h"

namespace nfv::test {
namespace {

constexpr int kSlots = 12;

TEST(Demo, RunsWholeAndEverySlotOfTheScalerMeasuresTheSameSlotOfTheTraffic) {
  const std::string script = required_env("NFV_DEMO");
  const std::string build = required_env("NFV_BUILD_ROOT");
  const std::string dir = make_temp_dir("demo");
  const CommandResult run = run_command(script + " " + build + " --slots " + std::to_string(kSlots) + " " + dir, 240);
  ASSERT_EQ(run.exit_code, 0) << run.output << read_file(dir + "/replay.log");
  EXPECT_NE(run.output.find("mbufs still in use after the pods closed: 0"), std::string::npos) << run.output;

  const auto journal = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(journal.size(), static_cast<std::size_t>(kSlots)) << run.output;
  // The replay's sent packets per slot and chain; its chains in the order
  // of its config (video, calls), as the scaler's topology has them.
  std::map<int, std::vector<double>> sent;
  for (const CsvRow& row : read_slot_csv(dir + "/replay.csv").rows) sent[std::stoi(row.at("slot"))].push_back(std::stod(row.at("sent")));
  ASSERT_EQ(sent.size(), static_cast<std::size_t>(kSlots));
  for (const auto& entry : journal) {
    const int slot = static_cast<int>(entry.slot());
    ASSERT_EQ(entry.chains_size(), 2);
    ASSERT_EQ(sent[slot].size(), 2u);
    for (int c = 0; c < 2; ++c) {
      const double measured = entry.chains(c).arrival_pps();  // 1-s slots: packets
      const double replayed = sent[slot][c];
      ASSERT_GT(replayed, 0);
      EXPECT_NEAR(measured, replayed, 0.05 * replayed)
          << "slot " << slot << " chain " << entry.chains(c).chain() << "\n" << run.output;
    }
    EXPECT_TRUE(entry.error().empty()) << "slot " << slot << ": " << entry.error();
  }
}

TEST(Demo, ServesTheDrlCheckpointKeptInTheRepository) {
  const std::string script = required_env("NFV_DEMO");
  const std::string dir = make_temp_dir("demo_drl");
  const CommandResult run = run_command(script + " " + required_env("NFV_BUILD_ROOT") + " --policy drl --slots 8 " + dir, 240);
  ASSERT_EQ(run.exit_code, 0) << run.output << read_file(dir + "/replay.log");
  EXPECT_NE(run.output.find("0 lost (0.000%)"), std::string::npos) << run.output;
  const auto journal = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(journal.size(), 8u) << run.output;
  std::size_t learned = 0;
  for (const auto& entry : journal) {
    EXPECT_EQ(entry.policy().name(), "drl");
    EXPECT_TRUE(entry.error().empty()) << "slot " << entry.slot() << ": " << entry.error();
    learned += entry.has_learned() ? 1 : 0;
  }
  EXPECT_GE(learned, 6u) << "the agent's actions, value and guard in the journal";
}

// train-drl.sh (the command documented for the kept checkpoint) trains a
// short version that serves the demo's system as the kept one does.
TEST(Demo, TheDrlCheckpointIsRemadeByItsScript) {
  const std::string build = required_env("NFV_BUILD_ROOT");
  const std::string here = std::filesystem::path(required_env("NFV_DEMO")).parent_path().string();
  const std::string dir = make_temp_dir("demo_drl_train");
  const CommandResult trained = run_command(here + "/train-drl.sh " + build + " " + dir + "/drl.pt --steps 120", 240);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  // Its first validation (the actor before any update, against online) is
  // the kept checkpoint's: the same command and seed.
  const auto first_validation = [](const std::string& file) {
    const std::vector<CsvRow> rows = read_csv_rows(file);
    if (rows.empty()) return std::make_pair(std::string("none"), std::string("none"));
    return std::make_pair(rows.front().at("validation_cost"), rows.front().at("online_cost"));
  };
  EXPECT_EQ(first_validation(dir + "/drl.curve.csv"), first_validation(here + "/drl.curve.csv"));
  // Both checkpoints plan the demo's April day in the simulator with the online guard.
  const CommandResult april = run_command(build + "/tools/nfv-trace columns --trace " + required_env("NFV_SHARED_DATA") +
                                              "/traffic/abilene/abilene_tm_5min_mbps.csv --trace-unit Mbit/s --block 1" +
                                              " --column 'NYCMng->IPLSng=video' --column 'CHINng->NYCMng=calls' > " + dir + "/april.csv",
                                          60);
  ASSERT_EQ(april.exit_code, 0) << april.output;
  for (const std::string& checkpoint : {dir + "/drl.pt", here + "/drl.pt"}) {
    const CommandResult sim = run_command(
        required_env("NFV_SIM") + " --topology " + here + "/topology.yaml --trace " + dir + "/april.csv --split none" +
            " --resample 1800 --slot-seconds 1 --packet-bytes 128 --queue-packets 512 --volume-scale 0.256" +
            " --sla-basis packet --sla-penalty 0.01 --slots 48 --policy drl --param checkpoint=" + checkpoint +
            " --param plan=" + here + "/plan.yaml --param candidates=plan 2>&1",
        120);
    ASSERT_EQ(sim.exit_code, 0) << checkpoint << "\n" << sim.output;
    EXPECT_NE(sim.output.find("cost "), std::string::npos) << sim.output;
  }
}

}  // namespace
}  // namespace nfv::test
