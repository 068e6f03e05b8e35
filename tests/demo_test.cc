// `./nfv demo` as a user runs it: deploy/demo/run-demo.sh starts three pods,
// nfv-replay and nfv-scaler on one slot clock. The run ends whole (exit 0,
// every slot journaled, every mbuf back), and slot k of the scaler measured
// slot k of the traffic: each journal slot's measured arrivals match what
// the replay sent in the same slot, per chain, within 5%.
#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace nfv::test
