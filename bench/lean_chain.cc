// lean_chain: the bench's 4-VNF chain, firewall (1,000 rules) -> nat -> lb
// -> router (10,000 routes), written as one fused loop with nothing around
// it: rx a burst, parse each packet once, rte_acl behind a verdict cache,
// nat's rte_hash lookup and source rewrite, lb's rte_hash lookup and
// destination rewrite (each table behind a flow cache; the caches are the
// VNFs' own), rte_lpm with the TTL and MAC
// rewrite, tx. It keeps what a stateful chain must keep
// (a session and a connection per flow, their last-seen times) and drops
// everything else the pod and the VNFs add: no chain classification beyond
// one prefix, no flow pins, no per-VNF counters, no pools or instances, no
// IPv6, ICMP or reply direction. Same libraries, same tables (chain_tables.h),
// same parser and checksum code as the VNFs. vnf_throughput runs it next to
// testpmd as the cost of this chain's work when nothing else is paid for.
//
// With --vnfs DIR it runs the chain's four VNF instances instead (their
// bench configuration, vnf_cases.h; DIR takes the router's routes file),
// process() after process() on each burst: what the VNFs cost without the
// pod around them.
//
//   lean_chain PCAP SECONDS FILE_PREFIX [--vnfs DIR]
//
// Prints one line: packets, Mpps sent, cycles per packet (busy cycles of the
// forwarding lcore over received packets, as testpmd --record-core-cycles),
// and the sessions and connections it holds; exits 1 if a packet of the
// first burst it forwards is not what the chain should make of it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rte_acl.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "chain_tables.h"
#include "checksum.h"
#include "flow_cache.h"
#include "verdict_cache.h"
#include "hash_table.h"
#include "packet_parser.h"
#include "burst_size.h"
#include "vnf.h"
#include "vnf_cases.h"

namespace {

constexpr uint16_t kBurst = nfv::kBurstSize;  // the pod's, so that the two compare
constexpr uint32_t kExternalAddress = (203u << 24) | (0u << 16) | (113u << 8) | 1;  // nat's 203.0.113.1

// nat's key: the internal endpoint (address and port, network order) and protocol.
struct alignas(8) NatKey {
  uint32_t addr;
  uint16_t port;
  uint8_t protocol;
  uint8_t pad[9];
};
// lb's key: the connection's 5-tuple (network order).
struct alignas(8) Tuple {
  uint32_t src, dst;
  uint16_t src_port, dst_port;
  uint8_t protocol, pad[3];
};
static_assert(sizeof(NatKey) == 16 && sizeof(Tuple) == 16);

uint32_t read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint16_t read16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

class LeanChain {
 public:
  bool build() {
    acl_ = nfv::bench::create_bench_acl("lean_acl");
    sessions_ = nfv::bench::create_bench_hash("lean_nat");
    connections_ = nfv::bench::create_bench_hash("lean_lb");
    lpm_ = nfv::bench::create_bench_lpm("lean_lpm");
    for (int h = 0; h < 16; ++h) hop_mac_[h] = rte_ether_addr{{0x02, 0, 0, 0, 0, static_cast<uint8_t>(h)}};
    if (!acl_ || !sessions_ || !connections_ || !lpm_) return false;
    // Per-flow state indexed by table position, sized once (as the VNFs do).
    session_key_.assign(rte_hash_max_key_id(sessions_) + 1, NatKey{});
    connection_key_.assign(rte_hash_max_key_id(connections_) + 1, Tuple{});
    verdicts_.init(nfv::kDefaultVerdictCacheEntries);
    session_cache_.init(nfv::kDefaultFlowCacheSlots);
    connection_cache_.init(nfv::kDefaultFlowCacheSlots);
    session_port_.assign(rte_hash_max_key_id(sessions_) + 1, 0);
    session_seen_.assign(rte_hash_max_key_id(sessions_) + 1, 0);
    backend_.assign(rte_hash_max_key_id(connections_) + 1, 0);
    connection_seen_.assign(rte_hash_max_key_id(connections_) + 1, 0);
    return true;
  }

  // Runs a burst through the chain; what goes on is compacted into pkts[0..return).
  uint16_t run(rte_mbuf** pkts, uint16_t n, uint64_t now) {
    uint8_t* ip[kBurst];
    const uint8_t* acl_input[kBurst];
    uint16_t k = 0;
    for (uint16_t i = 0; i < n; ++i) {
      nfv::ParsedPacket p;
      if (!nfv::parse_plain_ipv4(pkts[i], p) || p.key.protocol != IPPROTO_UDP || (p.ipv4_dst() >> 16) != (198u << 8 | 19u)) {
        drop(pkts[i]);
        continue;
      }
      pkts[k] = pkts[i];
      ip[k] = rte_pktmbuf_mtod_offset(pkts[k], uint8_t*, p.l3_offset);
      acl_input[k] = ip[k] + offsetof(rte_ipv4_hdr, next_proto_id);
      ++k;
    }
    // Firewall: the cache's answer, else rte_acl's (remembered); a packet
    // matching a (deny) rule is dropped.
    uint32_t rule[kBurst];
    nfv::VerdictCache::Key keys[kBurst];
    uint32_t hashes[kBurst], missed_rule[kBurst];
    const uint8_t* missed_input[kBurst];
    uint16_t missed[kBurst], n_missed = 0;
    for (uint16_t j = 0; j < k; ++j) {  // buckets prefetched a pass ahead, as the firewall does
      keys[j] = nfv::VerdictCache::Key::ipv4(ip[j] + offsetof(rte_ipv4_hdr, src_addr), ip[j] + sizeof(rte_ipv4_hdr), IPPROTO_UDP);
      hashes[j] = nfv::VerdictCache::hash(keys[j]);
      verdicts_.prefetch(hashes[j]);
    }
    for (uint16_t j = 0; j < k; ++j) {
      if (verdicts_.find(keys[j], hashes[j], rule[j])) continue;
      missed_input[n_missed] = acl_input[j];
      missed[n_missed++] = j;
    }
    if (n_missed) rte_acl_classify(acl_, missed_input, missed_rule, n_missed, 1);
    for (uint16_t q = 0; q < n_missed; ++q) {
      rule[missed[q]] = missed_rule[q];
      verdicts_.remember(keys[missed[q]], hashes[missed[q]], missed_rule[q]);
    }
    uint16_t m = 0;
    for (uint16_t j = 0; j < k; ++j) {
      if (rule[j]) {
        drop(pkts[j]);
        continue;
      }
      pkts[m] = pkts[j];
      ip[m++] = ip[j];
    }
    translate_sources(ip, m, now);
    balance(ip, m, now);
    return route(pkts, ip, m);
  }

  uint32_t sessions() const { return rte_hash_count(sessions_); }
  uint32_t connections() const { return rte_hash_count(connections_); }
  uint64_t dropped() const { return dropped_; }

 private:
  void drop(rte_mbuf* m) {
    dropped_++;
    rte_pktmbuf_free(m);
  }

  // Looks the keys up, first in the cache (a position whose stored key is
  // this one), then the rest in the table, adding the missing ones
  // (`on_new(position, hash)`), and returns each key's position.
  template <typename Key, typename OnNew>
  static void find_or_add(rte_hash* table, nfv::FlowCache& cache, std::vector<Key>& stored, const Key* keys, uint16_t n,
                          int32_t* positions, OnNew&& on_new) {
    const void* missed_keys[kBurst];
    uint32_t hashes[kBurst];
    uint16_t missed[kBurst];
    uint16_t n_missed = 0;
    for (uint16_t j = 0; j < n; ++j) {
      const uint32_t hash = nfv::table_hash(&keys[j], sizeof(Key));
      const int32_t candidate = cache.candidate(hash);
      if (candidate >= 0 && std::memcmp(&stored[candidate], &keys[j], sizeof(Key)) == 0) {
        positions[j] = candidate;
        continue;
      }
      missed_keys[n_missed] = &keys[j];
      hashes[n_missed] = hash;
      missed[n_missed++] = j;
    }
    if (n_missed == 0) return;
    int32_t found[kBurst];
    rte_hash_lookup_with_hash_bulk(table, missed_keys, hashes, n_missed, found);
    for (uint16_t m = 0; m < n_missed; ++m) {
      int32_t pos = found[m];
      if (pos < 0) pos = rte_hash_lookup_with_hash(table, missed_keys[m], hashes[m]);  // added earlier in this burst
      if (pos < 0) {
        pos = rte_hash_add_key_with_hash(table, missed_keys[m], hashes[m]);
        if (pos >= 0) {
          stored[pos] = keys[missed[m]];
          on_new(pos, hashes[m]);
        }
      }
      if (pos >= 0) cache.remember(hashes[m], pos);
      positions[missed[m]] = pos;
    }
  }

  // nat: the internal source becomes 203.0.113.1 and a port of its session.
  void translate_sources(uint8_t** ip, uint16_t n, uint64_t now) {
    NatKey keys[kBurst];
    int32_t positions[kBurst];
    for (uint16_t j = 0; j < n; ++j) keys[j] = NatKey{read32(ip[j] + 12), read16(ip[j] + 20), IPPROTO_UDP, {}};
    find_or_add(sessions_, session_cache_, session_key_, keys, n, positions, [&](int32_t pos, uint32_t) { session_port_[pos] = next_port_++; });
    for (uint16_t j = 0; j < n; ++j) {
      const int32_t pos = positions[j];
      if (pos < 0) continue;  // table full: passes untranslated (not in the bench)
      session_seen_[pos] = now;
      nfv::rewrite_endpoint(ip[j] + 10, ip[j] + 12, ip[j] + 20, rte_cpu_to_be_32(kExternalAddress),
                            rte_cpu_to_be_16(session_port_[pos]), ip[j] + 26, nfv::L4Checksum::kUdp);
    }
  }

  // lb: a new connection picks one of the 3 backends by its hash; the
  // destination becomes that backend, port 9000.
  void balance(uint8_t** ip, uint16_t n, uint64_t now) {
    Tuple keys[kBurst];
    int32_t positions[kBurst];
    for (uint16_t j = 0; j < n; ++j)
      keys[j] = Tuple{read32(ip[j] + 12), read32(ip[j] + 16), read16(ip[j] + 20), read16(ip[j] + 22), IPPROTO_UDP, {}};
    find_or_add(connections_, connection_cache_, connection_key_, keys, n, positions, [&](int32_t pos, uint32_t hash) { backend_[pos] = 1 + hash % 3; });
    for (uint16_t j = 0; j < n; ++j) {
      const int32_t pos = positions[j];
      if (pos < 0) continue;
      connection_seen_[pos] = now;
      nfv::rewrite_endpoint(ip[j] + 10, ip[j] + 16, ip[j] + 22, rte_cpu_to_be_32((10u << 24) | (10u << 16) | backend_[pos]),
                            rte_cpu_to_be_16(nfv::bench::kServicePort), ip[j] + 26, nfv::L4Checksum::kUdp);
    }
  }

  // router: LPM on the destination, TTL decrement, next hop's MAC.
  uint16_t route(rte_mbuf** pkts, uint8_t** ip, uint16_t n) {
    uint32_t destinations[kBurst], hops[kBurst];
    for (uint16_t j = 0; j < n; ++j) destinations[j] = rte_be_to_cpu_32(read32(ip[j] + 16));
    if (n) rte_lpm_lookup_bulk(lpm_, destinations, hops, n);
    uint16_t kept = 0;
    for (uint16_t j = 0; j < n; ++j) {
      if (!(hops[j] & RTE_LPM_LOOKUP_SUCCESS) || ip[j][offsetof(rte_ipv4_hdr, time_to_live)] <= 1) {
        drop(pkts[j]);
        continue;
      }
      nfv::decrement_ipv4_ttl(ip[j]);
      rte_pktmbuf_mtod(pkts[j], rte_ether_hdr*)->dst_addr = hop_mac_[hops[j] & 15];
      pkts[kept++] = pkts[j];
    }
    return kept;
  }

  rte_acl_ctx* acl_ = nullptr;
  rte_hash* sessions_ = nullptr;
  rte_hash* connections_ = nullptr;
  rte_lpm* lpm_ = nullptr;
  nfv::VerdictCache verdicts_;
  nfv::FlowCache session_cache_, connection_cache_;
  std::vector<NatKey> session_key_;  // by table position, for the caches' check
  std::vector<Tuple> connection_key_;
  std::vector<uint16_t> session_port_;
  std::vector<uint64_t> session_seen_;
  std::vector<uint32_t> backend_;
  std::vector<uint64_t> connection_seen_;
  uint16_t next_port_ = 1024;
  rte_ether_addr hop_mac_[16];
  uint64_t dropped_ = 0;
};

// The chain's VNF instances, each one's process() in turn on a burst.
class VnfSequence {
 public:
  explicit VnfSequence(const std::string& dir) {
    for (const auto& c : nfv::bench::chain_cases(nfv::bench::vnf_cases(dir))) {
      nfv::VnfSettings settings;
      settings.instance_name = c.name + "@lean_chain";
      settings.socket_id = static_cast<int>(rte_socket_id());
      settings.params = c.params;
      vnfs_.push_back(nfv::VnfRegistry::instance().create(c.name));
      vnfs_.back()->init(settings);
    }
  }

  uint16_t run(rte_mbuf** pkts, uint16_t n) {
    for (auto& vnf : vnfs_) {
      rte_mbuf* dropped[kBurst];
      uint16_t n_dropped = 0;
      n = vnf->process(pkts, n, dropped, &n_dropped);
      if (n_dropped) rte_pktmbuf_free_bulk(dropped, n_dropped);
      dropped_ += n_dropped;
    }
    return n;
  }

  uint64_t dropped() const { return dropped_; }

 private:
  std::vector<std::unique_ptr<nfv::Vnf>> vnfs_;
  uint64_t dropped_ = 0;
};

// What the chain must make of a bench frame: source one of nat's external
// addresses 203.0.113.1-4 (lean: always .1), destination a backend
// 10.10.0.1-3:9000, TTL 63, a valid IPv4 header checksum.
bool forwarded_right(const rte_mbuf* m) {
  const auto* ip = rte_pktmbuf_mtod_offset(m, const rte_ipv4_hdr*, sizeof(rte_ether_hdr));
  const uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
  const uint16_t dst_port = rte_be_to_cpu_16(read16(reinterpret_cast<const uint8_t*>(ip) + 22));
  const uint32_t src = rte_be_to_cpu_32(ip->src_addr);
  return src >= kExternalAddress && src <= kExternalAddress + 3 && (dst >> 8) == ((10u << 16) | (10u << 8)) && (dst & 0xff) >= 1 &&
         (dst & 0xff) <= 3 && dst_port == nfv::bench::kServicePort && ip->time_to_live == 63 && rte_ipv4_cksum(ip) == 0;
}

struct Run {
  LeanChain* chain;
  VnfSequence* vnfs;  // instead of the fused chain, when set
  uint64_t seconds;
  uint64_t packets = 0, sent = 0, busy_cycles = 0, elapsed_cycles = 0;
  bool checked = false, right = true;
};

int forward(void* arg) {
  Run& run = *static_cast<Run*>(arg);
  rte_mbuf* pkts[kBurst];
  const uint64_t start = rte_rdtsc();
  const uint64_t end = start + run.seconds * rte_get_tsc_hz();
  uint64_t now = start;
  while (now < end) {
    now = rte_rdtsc();
    const uint16_t n = rte_eth_rx_burst(0, 0, pkts, kBurst);
    if (n == 0) continue;
    const uint16_t kept = run.vnfs ? run.vnfs->run(pkts, n) : run.chain->run(pkts, n, now);
    if (!run.checked && kept) {  // the first burst that comes out, every packet of it
      for (uint16_t i = 0; i < kept; ++i) run.right = run.right && forwarded_right(pkts[i]);
      run.checked = true;
    }
    const uint16_t sent = rte_eth_tx_burst(0, 0, pkts, kept);
    if (sent < kept) rte_pktmbuf_free_bulk(pkts + sent, kept - sent);
    run.packets += n;
    run.sent += sent;
    run.busy_cycles += rte_rdtsc() - now;
  }
  run.elapsed_cycles = rte_rdtsc() - start;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool vnf_mode = argc == 6 && std::string(argv[4]) == "--vnfs";
  if (argc != 4 && !vnf_mode) {
    std::fprintf(stderr, "usage: lean_chain PCAP SECONDS FILE_PREFIX [--vnfs DIR]\n");
    return 2;
  }
  const std::string vdev = std::string("net_pcap0,rx_pcap=") + argv[1] + ",infinite_rx=1";
  const std::string prefix = std::string("--file-prefix=") + argv[3];
  const char* eal_args[] = {argv[0], "-l", "0,1", "--no-pci", prefix.c_str(), "--huge-unlink", "--log-level=lib.eal:warning",
                            "--vdev", vdev.c_str()};
  if (rte_eal_init(static_cast<int>(std::size(eal_args)), const_cast<char**>(eal_args)) < 0) {
    std::fprintf(stderr, "lean_chain: EAL init failed (hugepages reserved? pcap readable?)\n");
    return 1;
  }
  rte_mempool* pool = rte_pktmbuf_pool_create("lean_pool", 65535, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()));
  rte_eth_conf conf{};
  const int socket = static_cast<int>(rte_socket_id());
  if (!pool || rte_eth_dev_count_avail() != 1 || rte_eth_dev_configure(0, 1, 1, &conf) != 0 ||
      rte_eth_rx_queue_setup(0, 0, 1024, socket, nullptr, pool) != 0 || rte_eth_tx_queue_setup(0, 0, 1024, socket, nullptr) != 0 ||
      rte_eth_dev_start(0) != 0) {
    std::fprintf(stderr, "lean_chain: cannot set up the net_pcap port\n");
    return 1;
  }
  LeanChain chain;
  std::unique_ptr<VnfSequence> vnfs;
  try {
    if (vnf_mode) vnfs = std::make_unique<VnfSequence>(argv[5]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lean_chain: %s\n", e.what());
    return 1;
  }
  if (!vnfs && !chain.build()) {
    std::fprintf(stderr, "lean_chain: cannot build the chain's tables\n");
    return 1;
  }
  Run run{&chain, vnfs.get(), static_cast<uint64_t>(std::max(1, std::atoi(argv[2])))};
  const unsigned lcore = rte_get_next_lcore(-1, 1, 0);
  if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(forward, &run, lcore) != 0) {
    std::fprintf(stderr, "lean_chain: needs a worker lcore (-l 0,1)\n");
    return 1;
  }
  rte_eal_wait_lcore(lcore);
  const double seconds = static_cast<double>(run.elapsed_cycles) / static_cast<double>(rte_get_tsc_hz());
  std::printf("lean_chain%s: packets=%lu sent=%lu Mpps=%.3f cycles_per_packet=%.1f dropped=%lu output=%s\n", vnfs ? " --vnfs" : "",
              run.packets, run.sent, static_cast<double>(run.sent) / seconds / 1e6,
              run.packets ? static_cast<double>(run.busy_cycles) / static_cast<double>(run.packets) : 0.0,
              vnfs ? vnfs->dropped() : chain.dropped(), run.checked && run.right ? "right" : "WRONG");
  if (!vnfs) std::printf("lean_chain: sessions=%u connections=%u\n", chain.sessions(), chain.connections());
  rte_eth_dev_stop(0);
  vnfs.reset();  // their tables live in EAL memory
  rte_eal_cleanup();
  return run.checked && run.right ? 0 : 1;
}
