#include "packet_builder.h"

#include <arpa/inet.h>

#include <cstring>
#include <stdexcept>

#include <rte_ip.h>

namespace nfv::test {

static void put16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}

Bytes ethernet(uint16_t ether_type) {
  Bytes b = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
  put16(b, ether_type);
  return b;
}

Bytes vlan_tag(uint16_t vlan_id, uint16_t inner_ether_type) {
  Bytes b;
  put16(b, vlan_id);
  put16(b, inner_ether_type);
  return b;
}

Bytes ipv4(const std::string& src, const std::string& dst, uint8_t proto, uint16_t payload_len, uint16_t fragment) {
  Bytes b = {0x45, 0};
  put16(b, static_cast<uint16_t>(20 + payload_len));
  put16(b, 0x1234);
  put16(b, fragment);
  b.push_back(64);
  b.push_back(proto);
  put16(b, 0);
  b.resize(20);
  inet_pton(AF_INET, src.c_str(), &b[12]);
  inet_pton(AF_INET, dst.c_str(), &b[16]);
  const uint16_t sum = rte_ipv4_cksum(reinterpret_cast<const rte_ipv4_hdr*>(b.data()));
  std::memcpy(&b[10], &sum, 2);
  return b;
}

Bytes ipv6(const std::string& src, const std::string& dst, uint8_t next_header, uint16_t payload_len) {
  Bytes b = {0x60, 0, 0, 0};
  put16(b, payload_len);
  b.push_back(next_header);
  b.push_back(64);
  b.resize(40);
  inet_pton(AF_INET6, src.c_str(), &b[8]);
  inet_pton(AF_INET6, dst.c_str(), &b[24]);
  return b;
}

Bytes udp(uint16_t sport, uint16_t dport, uint16_t payload_len) {
  Bytes b;
  put16(b, sport);
  put16(b, dport);
  put16(b, static_cast<uint16_t>(8 + payload_len));
  put16(b, 0);
  b.resize(8 + payload_len, 0xab);
  return b;
}

Bytes tcp(uint16_t sport, uint16_t dport) {
  Bytes b;
  put16(b, sport);
  put16(b, dport);
  b.resize(12, 0);
  b.push_back(0x50);  // data offset 5 words
  b.push_back(0x02);  // SYN
  b.resize(20, 0);
  return b;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

rte_mbuf* to_mbuf(rte_mempool* pool, const Bytes& bytes) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (!m) throw std::runtime_error("mbuf pool empty");
  char* data = rte_pktmbuf_append(m, static_cast<uint16_t>(bytes.size()));
  if (!data) throw std::runtime_error("frame larger than an mbuf");
  std::memcpy(data, bytes.data(), bytes.size());
  return m;
}

Bytes from_mbuf(const rte_mbuf* m) {
  const auto* p = rte_pktmbuf_mtod(m, const uint8_t*);
  return Bytes(p, p + rte_pktmbuf_data_len(m));
}

rte_mempool* test_pool(const std::string& name, unsigned size) {
  rte_mempool* pool = rte_pktmbuf_pool_create(name.c_str(), size, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
  if (!pool) throw std::runtime_error("cannot create mempool " + name);
  return pool;
}

}  // namespace nfv::test
