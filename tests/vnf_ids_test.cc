// ids: per-signature alert counts and per-packet verdicts agree with a naive
// search on random payloads scanned in whole bursts, drop signatures drop, patterns spanning mbuf segments match, and
// signature-file errors name file:line.
#include <fstream>
#include <random>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Ids : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_ids", 8191); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }
  static std::string write(const std::string& text) {
    const std::string path = "/tmp/nfv_sigs_" + std::to_string(getpid()) + "_" + std::to_string(files_++) + ".txt";
    std::ofstream(path) << text;
    return path;
  }
  static rte_mempool* pool_;
  static int files_;
};
rte_mempool* Ids::pool_ = nullptr;
int Ids::files_ = 0;

// Whole bursts, so the IDS scans several payloads side by side: a signature
// matching in two of them at once must count once for each, and every
// packet gets its own verdict.
TEST_F(Ids, AlertCountsAndVerdictsMatchANaiveSearchOnRandomPayloads) {
  // A 4-letter alphabet makes matches (and overlapping ones) common.
  std::mt19937 rng(5);
  std::vector<std::string> patterns;
  std::vector<bool> drops;
  std::string file;
  for (int i = 0; i < 1500; ++i) {
    std::string p(3 + rng() % 6, 'a');
    for (char& c : p) c = static_cast<char>('a' + rng() % 4);
    patterns.push_back(p);
    // A few long drop signatures, so some packets drop and most do not.
    drops.push_back(p.size() == 8 && i % 8 == 0);
    file += std::to_string(100 + i) + (drops.back() ? " drop \"" : " alert \"") + p + "\" random pattern\n";
  }
  auto ids = make_vnf("ids", {{"signatures_file", write(file)}});
  std::vector<uint64_t> expected(patterns.size(), 0);
  std::vector<rte_mbuf*> packets, expected_passed;
  int expected_dropped = 0;
  for (int i = 0; i < 300; ++i) {
    Bytes payload(rng() % 600);
    for (auto& b : payload) b = static_cast<uint8_t>('a' + rng() % 4);
    const std::string text(payload.begin(), payload.end());
    bool drop = false;
    for (size_t s = 0; s < patterns.size(); ++s) {
      const bool found = text.find(patterns[s]) != std::string::npos;
      expected[s] += found;
      drop |= found && drops[s];
    }
    const uint8_t proto = (i & 1) ? IPPROTO_TCP : IPPROTO_UDP;
    packets.push_back(ipv4_packet(pool_, proto, "10.0.0.1", 1000, "10.0.0.2", 80, payload));
    if (drop) expected_dropped++;
    else expected_passed.push_back(packets.back());
  }
  BurstResult r = run_vnf(*ids, packets);
  EXPECT_EQ(r.passed, expected_passed) << "a packet got another's verdict, or the order changed";
  EXPECT_EQ(r.dropped.size(), static_cast<size_t>(expected_dropped));
  EXPECT_GT(expected_dropped, 10);
  EXPECT_LT(expected_dropped, 290);
  r.free_all();
  auto c = counters(*ids);
  uint64_t total = 0;
  for (size_t s = 0; s < patterns.size(); ++s) {
    const std::string name = "alerts_sid_" + std::to_string(100 + s);
    EXPECT_EQ(c.count(name) ? c[name] : 0, expected[s]) << "signature '" << patterns[s] << "'";
    total += expected[s];
  }
  EXPECT_GT(total, 1000u);
  EXPECT_EQ(c["packets_scanned"], 300u);
  EXPECT_EQ(c["packets_dropped"], static_cast<uint64_t>(expected_dropped));
}

TEST_F(Ids, DropSignaturesDropAndHeadersAreNotScanned) {
  auto ids = make_vnf("ids", {{"signatures_file", write("1 drop \"/etc/passwd\" path traversal\n"
                                                        "2 alert \"\\x90\\x90\\x90\\x90\" nop sled\n"
                                                        "3 alert \"say \\\"hi\\\" # not a comment\"\n")}});
  const std::string get = "GET /../../etc/passwd HTTP/1.1\r\n";
  const std::string quoted = "they say \"hi\" # not a comment";
  BurstResult r = run_vnf(*ids, {ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.1", 1, "10.0.0.2", 80, Bytes(get.begin(), get.end())),
                                 ipv4_packet(pool_, IPPROTO_UDP, "10.0.0.1", 1, "10.0.0.2", 80, Bytes(8, 0x90)),
                                 ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.1", 1, "10.0.0.2", 80, Bytes(quoted.begin(), quoted.end())),
                                 // 0x9090 as ports: headers are not payload.
                                 ipv4_packet(pool_, IPPROTO_UDP, "10.0.0.1", 0x9090, "10.0.0.2", 0x9090, Bytes(4, 0))});
  EXPECT_EQ(r.dropped.size(), 1u);
  EXPECT_EQ(r.passed.size(), 3u);
  r.free_all();
  auto c = counters(*ids);
  EXPECT_EQ(c["alerts_sid_1"], 1u);
  EXPECT_EQ(c["alerts_sid_2"], 1u) << "one alert per packet, however often it matches";
  EXPECT_EQ(c["alerts_sid_3"], 1u);
  EXPECT_EQ(c["packets_dropped"], 1u);
}

TEST_F(Ids, MatchesAcrossSegmentsOfAJumboFrame) {
  auto ids = make_vnf("ids", {{"signatures_file", write("7 alert \"SPLIT-ACROSS\"\n")}});
  // 3000 payload bytes in two segments, the signature straddling the boundary.
  Bytes payload(3000, 'x');
  const std::string sig = "SPLIT-ACROSS";
  const size_t first_len = 1800;  // bytes of the frame in the first segment
  const size_t sig_at = first_len - 42 - 5;
  std::copy(sig.begin(), sig.end(), payload.begin() + static_cast<long>(sig_at));
  rte_mbuf* whole = ipv4_packet(pool_, IPPROTO_UDP, "10.0.0.1", 1, "10.0.0.2", 2, Bytes(payload.begin(), payload.begin() + 1));
  // Build the frame bytes, then split them over two mbufs.
  Bytes frame = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, static_cast<uint16_t>(8 + payload.size())), udp(1, 2, 0), payload});
  frame[38] = static_cast<uint8_t>((8 + payload.size()) >> 8);
  frame[39] = static_cast<uint8_t>(8 + payload.size());
  rte_pktmbuf_free(whole);
  rte_mbuf* head = to_mbuf(pool_, Bytes(frame.begin(), frame.begin() + static_cast<long>(first_len)));
  rte_mbuf* tail = to_mbuf(pool_, Bytes(frame.begin() + static_cast<long>(first_len), frame.end()));
  ASSERT_EQ(rte_pktmbuf_chain(head, tail), 0);
  BurstResult r = run_vnf(*ids, {head});
  EXPECT_EQ(r.passed.size(), 1u);
  r.free_all();
  auto c = counters(*ids);
  EXPECT_EQ(c["alerts_sid_7"], 1u);
  EXPECT_EQ(c["jumbo"], 1u);
  EXPECT_EQ(c["payload_bytes_scanned"], 3000u);
}

TEST_F(Ids, SignatureFileErrorsNameFileAndLine) {
  const std::string path = write("1 alert \"ok\"\n2 alert \"bad \\q escape\"\n");
  try {
    make_vnf("ids", {{"signatures_file", path}});
    FAIL();
  } catch (const VnfConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_vnf("ids", {{"signatures_file", write("1 block \"x\"\n")}}), VnfConfigError);
  EXPECT_THROW(make_vnf("ids", {{"signatures_file", write("1 alert \"\"\n")}}), VnfConfigError);
  EXPECT_NO_THROW(make_vnf("ids", {{"random_signatures", "1000"}}));
}

}  // namespace
}  // namespace nfv
