// NSH encapsulation on real mbufs: the frame and the chain context round
// trip; what decapsulation cannot carry is refused by name.
#include <gtest/gtest.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "chain_meta.h"
#include "header_mark.h"
#include "mbuf_pool_test.h"
#include "nsh.h"
#include "packet_builder.h"

namespace nfv {
namespace {

using namespace nfv::test;

class NshTest : public MbufPoolTest {};

TEST_F(NshTest, NshEncapsulationRoundTripsTheFrameAndTheContext) {
  const Bytes inner = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8 + 20), udp(1, 2, 20)});
  rte_mbuf* m = to_mbuf(pool_, inner);
  NshFields sent;
  sent.spi = 0xabcdef;
  sent.si = 3;
  sent.ingress_ns = 0x0102030405060708ull;
  sent.flow_hash = 0xdeadbeef;
  sent.src_site = 4;
  sent.dst_site = 9;
  rte_ether_addr src{{2, 0, 0, 0, 0, 1}}, dst{{2, 0, 0, 0, 0, 2}};
  const uint64_t mark = register_header_mark();
  HeaderLayout layout;
  ASSERT_TRUE(check_and_mark(m, mark, layout));
  ASSERT_NE(m->ol_flags & mark, 0u) << "a plain IPv4 frame is marked";
  ASSERT_TRUE(nsh_encap(m, src, dst, sent));
  EXPECT_EQ(m->ol_flags & mark, 0u) << "the marked headers moved: the mark must go";
  EXPECT_TRUE(is_nsh_frame(m));
  EXPECT_EQ(rte_pktmbuf_pkt_len(m), inner.size() + kNshEncapBytes);
  const uint8_t* nsh = rte_pktmbuf_mtod_offset(m, const uint8_t*, 14);
  EXPECT_EQ(nsh[0], 0x0f) << "version 0, TTL 63 (high bits)";
  EXPECT_EQ(nsh[1], 0xc6) << "TTL low bits, length 6";
  EXPECT_EQ(nsh[2], 1) << "MD type 1";
  EXPECT_EQ(nsh[3], 3) << "next protocol Ethernet";
  NshFields got;
  ASSERT_EQ(nsh_decap(m, got), NshStatus::kOk);
  EXPECT_EQ(got.spi, sent.spi);
  EXPECT_EQ(got.si, sent.si);
  EXPECT_EQ(got.ttl, kNshInitialTtl - 1);
  EXPECT_EQ(got.ingress_ns, sent.ingress_ns);
  EXPECT_EQ(got.flow_hash, sent.flow_hash);
  EXPECT_EQ(got.src_site, 4);
  EXPECT_EQ(got.dst_site, 9);
  EXPECT_EQ(from_mbuf(m), inner);
  // As the receiving pod does: the inner frame is checked and marked afresh.
  EXPECT_TRUE(check_and_mark(m, mark, layout));
  EXPECT_NE(m->ol_flags & mark, 0u);
  rte_pktmbuf_free(m);
}

TEST_F(NshTest, NshDecapRejectsWhatItCannotCarry) {
  const Bytes inner = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8), udp(1, 2, 0)});
  auto encapsulated = [&](uint8_t ttl) {
    rte_mbuf* m = to_mbuf(pool_, inner);
    NshFields f;
    f.spi = 1;
    f.si = 1;
    f.ttl = ttl;
    EXPECT_TRUE(nsh_encap(m, rte_ether_addr{}, rte_ether_addr{}, f));
    return m;
  };
  NshFields out;
  rte_mbuf* m = encapsulated(1);
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kTtlExpired);
  rte_pktmbuf_free(m);
  m = encapsulated(63);
  rte_pktmbuf_mtod_offset(m, uint8_t*, 14)[2] = 2;  // MD type 2
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kUnsupported);
  rte_pktmbuf_free(m);
  m = to_mbuf(pool_, concat({ethernet(kEtherTypeNsh), Bytes(20, 0)}));
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kTruncated);
  rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace nfv
