// The packet parser on real mbufs: IPv4, VLANs, IPv6 extension headers,
// every kind of malformed frame named, random bytes never read past the end.
#include <random>

#include <gtest/gtest.h>

#include "header_mark.h"
#include "mbuf_pool_test.h"
#include "packet_builder.h"
#include "packet_parser.h"

namespace nfv {
namespace {

using namespace nfv::test;

class PacketParser : public MbufPoolTest {
 protected:
  ParseStatus parse(const Bytes& frame, ParsedPacket& out) {
    rte_mbuf* m = to_mbuf(pool_, frame);
    const ParseStatus status = parse_packet(m, out);
    rte_pktmbuf_free(m);
    return status;
  }
  ParseStatus parse(const Bytes& frame) {
    ParsedPacket out;
    return parse(frame, out);
  }
};

TEST_F(PacketParser, ParsesTcpOverIpv4AndUdpOverDoubleTaggedVlan) {
  ParsedPacket p;
  ASSERT_EQ(parse(concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 6, 20), tcp(1234, 80)}), p), ParseStatus::kOk);
  EXPECT_EQ(p.key.family, AddressFamily::kIpv4);
  EXPECT_EQ(p.ipv4_src(), 0x0a000001u);
  EXPECT_EQ(p.key.src_port, 1234);
  EXPECT_EQ(p.key.dst_port, 80);
  EXPECT_EQ(p.l4_offset, 34);

  ASSERT_EQ(parse(concat({ethernet(0x88a8), vlan_tag(10, 0x8100), vlan_tag(20, 0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 12),
                          udp(53, 5353, 4)}),
                  p),
            ParseStatus::kOk);
  EXPECT_EQ(p.vlan_tags, 2);
  EXPECT_EQ(p.key.protocol, 17);
  EXPECT_EQ(p.key.dst_port, 5353);
}

TEST_F(PacketParser, ParsesIpv6ThroughExtensionHeaders) {
  // Hop-by-hop options (8 bytes) then UDP.
  const Bytes hop_by_hop = {17, 0, 1, 4, 0, 0, 0, 0};
  ParsedPacket p;
  ASSERT_EQ(parse(concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 0, 8 + 8 + 4), hop_by_hop, udp(1000, 2000, 4)}), p),
            ParseStatus::kOk);
  EXPECT_EQ(p.key.family, AddressFamily::kIpv6);
  EXPECT_EQ(p.key.protocol, 17);
  EXPECT_EQ(p.key.dst_port, 2000);
  // A later fragment has no ports to read.
  const Bytes fragment = {6, 0, 0x05, 0x00, 0, 0, 0, 1};  // offset 160
  ASSERT_EQ(parse(concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 44, 8 + 8), fragment, Bytes(8, 0)}), p),
            ParseStatus::kOk);
  EXPECT_TRUE(p.later_fragment);
  EXPECT_EQ(p.key.protocol, 6);
  EXPECT_EQ(p.key.dst_port, 0);
}

TEST_F(PacketParser, MalformedFramesAreNamedNeverReadPastTheEnd) {
  EXPECT_EQ(parse(Bytes(10, 0)), ParseStatus::kTruncatedL2);
  EXPECT_EQ(parse(concat({ethernet(0x8100), Bytes{0, 1}})), ParseStatus::kTruncatedL2);
  EXPECT_EQ(parse(concat({ethernet(0x0806), Bytes(28, 0)})), ParseStatus::kNonIp);
  EXPECT_EQ(parse(concat({ethernet(0x0800), Bytes(12, 0x45)})), ParseStatus::kBadIpv4Header);
  Bytes bad_ihl = ipv4("1.1.1.1", "2.2.2.2", 17, 8);
  bad_ihl[0] = 0x44;
  EXPECT_EQ(parse(concat({ethernet(0x0800), bad_ihl, udp(1, 2, 0)})), ParseStatus::kBadIpv4Header);
  Bytes bad_version = ipv4("1.1.1.1", "2.2.2.2", 17, 8);
  bad_version[0] = 0x65;
  EXPECT_EQ(parse(concat({ethernet(0x0800), bad_version, udp(1, 2, 0)})), ParseStatus::kBadIpv4Header);
  // Total length claims more than the frame holds.
  EXPECT_EQ(parse(concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 500), udp(1, 2, 0)})), ParseStatus::kBadIpv4Length);
  EXPECT_EQ(parse(concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 6, 10), Bytes(10, 0)})), ParseStatus::kTruncatedL4);
  EXPECT_EQ(parse(concat({ethernet(0x86dd), Bytes(30, 0x60)})), ParseStatus::kBadIpv6Header);
  EXPECT_EQ(parse(concat({ethernet(0x86dd), ipv6("::1", "::2", 17, 100), udp(1, 2, 0)})), ParseStatus::kBadIpv6Length);
  // Padding after a short datagram (a 60-byte minimum frame) is fine.
  Bytes padded = concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 8), udp(1, 2, 0)});
  padded.resize(60, 0);
  EXPECT_EQ(parse(padded), ParseStatus::kOk);
}

TEST_F(PacketParser, RandomBytesNeverCrashTheParser) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    Bytes frame(rng() % 200);
    for (auto& b : frame) b = static_cast<uint8_t>(rng());
    if (frame.size() >= 14 && i % 2) frame[12] = 0x08, frame[13] = i % 4 == 1 ? 0x00 : 0xdd;
    if (frame.size() >= 15 && i % 4 == 1) frame[14] = static_cast<uint8_t>(0x40 | (rng() % 16));
    ParsedPacket p;
    const ParseStatus s = parse(frame, p);
    if (s == ParseStatus::kOk) {
      EXPECT_LE(p.l4_offset, frame.size());
    }
  }
}

}  // namespace
}  // namespace nfv
