// libFuzzer target over the packet parser and each VNF's process() (clang,
// ASan + UBSan). NFV_FUZZ_TARGET picks one: parser, firewall, nat, lb,
// router, ids, monitor, ratelimit. An input is a template choice, a segment
// split and a length, then bytes XORed over a valid frame (so mutations land
// in header fields, not only in noise), then any extra tail. The instance
// lives across inputs, so stateful VNFs are fuzzed with state too; nat and
// lb run as slot 1 of a pool of 2, so their reply steering is fuzzed too.
// Inputs whose first byte has its top bit set carry the pod's header mark.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "header_mark.h"
#include "packet_parser.h"
#include "vnf.h"

namespace {

std::unique_ptr<nfv::Vnf> g_vnf;
std::shared_ptr<const nfv::OwnerSlot> g_steering;  // nat and lb, as slot 1 of a pool of 2
rte_mempool* g_pool = nullptr;
std::vector<std::vector<uint8_t>> g_templates;

std::vector<uint8_t> ipv4_frame(uint8_t proto, int l4_len, bool vlan) {
  std::vector<uint8_t> f = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1};
  if (vlan) f.insert(f.end(), {0x81, 0x00, 0x00, 0x07});
  f.insert(f.end(), {0x08, 0x00});
  const int total = 20 + l4_len;
  const uint8_t ip[20] = {0x45, 0, static_cast<uint8_t>(total >> 8), static_cast<uint8_t>(total), 0, 1, 0, 0, 64, proto, 0, 0,
                          10, 0, 0, 1, 203, 0, 113, 1};
  f.insert(f.end(), ip, ip + 20);
  std::vector<uint8_t> l4(static_cast<size_t>(l4_len), 'A');
  if (proto == 6) {
    l4[0] = 0x10; l4[1] = 0x00; l4[2] = 0x00; l4[3] = 80; l4[12] = 0x50;
  } else if (proto == 17) {
    l4[0] = 0x10; l4[1] = 0x00; l4[2] = 0x00; l4[3] = 53; l4[4] = static_cast<uint8_t>(l4_len >> 8); l4[5] = static_cast<uint8_t>(l4_len);
  } else if (proto == 1) {
    l4[0] = 8; l4[1] = 0; l4[4] = 0x12; l4[5] = 0x34;
  }
  f.insert(f.end(), l4.begin(), l4.end());
  return f;
}

std::vector<uint8_t> ipv6_frame(uint8_t next, int payload) {
  std::vector<uint8_t> f = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x60, 0, 0, 0,
                            static_cast<uint8_t>(payload >> 8), static_cast<uint8_t>(payload), next, 64};
  for (int i = 0; i < 32; ++i) f.push_back(static_cast<uint8_t>(i == 0 ? 0x20 : i == 1 ? 0x01 : i));
  std::vector<uint8_t> p(static_cast<size_t>(payload), 'B');
  if (next == 0) { p[0] = 6; p[1] = 0; }  // hop-by-hop, then TCP
  if (payload >= 28) p[8 + 12] = 0x50;
  f.insert(f.end(), p.begin(), p.end());
  return f;
}

const char* param_set(const std::string& target, std::map<std::string, std::string>& p) {
  if (target == "firewall") p = {{"random_rules", "200"}, {"default", "allow"}};
  else if (target == "nat") p = {{"external", "203.0.113.1"}, {"internal", "10.0.0.0/8"}, {"port_min", "60000"}, {"sessions", "256"},
                                 {"udp_timeout", "1"}, {"icmp_timeout", "1"}, {"tcp_timeout", "1"}};
  else if (target == "lb") p = {{"services", "203.0.113.1:80/tcp=10.1.0.1:80,10.1.0.2:80;203.0.113.1:53/udp=10.1.0.3:53"},
                                {"connections", "256"}, {"conn_timeout", "1"}};
  else if (target == "router") p = {{"random_routes", "2000"}};
  else if (target == "ids") p = {{"random_signatures", "200"}};
  else if (target == "monitor") p = {{"flows", "256"}, {"top_k", "8"}, {"export_interval_ms", "1"}};
  else if (target == "ratelimit") p = {{"per", "flow"}, {"cir", "1000000"}, {"cbs", "3000"}, {"ebs", "3000"}, {"flows", "256"},
                                       {"colour_aware", "yes"}};
  else return nullptr;
  return "ok";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  const char* eal_args[] = {(*argv)[0], "-l", "0", "--no-huge", "-m", "512", "--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
                            "--file-prefix=nfv_fuzz"};
  if (rte_eal_init(static_cast<int>(std::size(eal_args)), const_cast<char**>(eal_args)) < 0) {
    std::fprintf(stderr, "EAL init failed\n");
    std::exit(1);
  }
  if (nfv::register_header_mark() == 0) {
    std::fprintf(stderr, "cannot register the header mark\n");
    std::exit(1);
  }
  g_pool = rte_pktmbuf_pool_create("fuzz", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
  const char* env = std::getenv("NFV_FUZZ_TARGET");
  const std::string target = env ? env : "parser";
  if (target != "parser") {
    nfv::VnfSettings settings;
    settings.instance_name = target + "@fuzz";
    if (!param_set(target, settings.params)) {
      std::fprintf(stderr, "NFV_FUZZ_TARGET: unknown target '%s'\n", target.c_str());
      std::exit(1);
    }
    settings.slot = 1;
    settings.slots = 2;
    g_vnf = nfv::VnfRegistry::instance().create(target);
    g_vnf->init(settings);
    g_steering = g_vnf->owner_slot();
  }
  g_templates = {ipv4_frame(6, 40, false), ipv4_frame(17, 30, false), ipv4_frame(1, 16, false), ipv4_frame(17, 12, true),
                 ipv6_frame(6, 40),        ipv6_frame(0, 40),         ipv4_frame(47, 8, false)};
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  std::vector<uint8_t> frame = g_templates[data[0] % g_templates.size()];
  const size_t split = data[1];
  for (size_t i = 3; i < size; ++i) {
    if (i - 3 < frame.size()) frame[i - 3] ^= data[i];
    else frame.push_back(data[i]);
  }
  // data[2] trims the frame (0 keeps it whole); split > 0 puts the frame in two segments.
  if (data[2] && data[2] < frame.size()) frame.resize(data[2]);
  if (frame.empty() || frame.size() > 4000) return 0;
  // Segments of at most one mbuf's room each; `split` sets the first one's size.
  const size_t room = rte_pktmbuf_data_room_size(g_pool) - RTE_PKTMBUF_HEADROOM;
  const size_t first = split && split < frame.size() ? split : std::min(frame.size(), room);
  rte_mbuf* head = nullptr;
  for (size_t at = 0; at < frame.size();) {
    const size_t len = std::min(at == 0 ? first : room, frame.size() - at);
    rte_mbuf* seg = rte_pktmbuf_alloc(g_pool);
    char* dst = seg ? rte_pktmbuf_append(seg, static_cast<uint16_t>(len)) : nullptr;
    if (!dst) std::abort();
    std::memcpy(dst, frame.data() + at, len);
    if (!head) head = seg;
    else if (rte_pktmbuf_chain(head, seg) != 0) std::abort();
    at += len;
  }
  // Half the inputs are marked as the pod marks what it receives (header_mark.h),
  // so the VNFs' trust in the mark is fuzzed too.
  if (data[0] & 0x80) {
    nfv::HeaderLayout layout;
    nfv::check_and_mark(head, nfv::g_header_mark, layout);
  }
  if (!g_vnf) {
    nfv::ParsedPacket p;
    nfv::parse_packet(head, p);
    rte_pktmbuf_free(head);
    return 0;
  }
  if (g_steering) {
    uint32_t hash = 0;
    const int slot = g_steering->slot_of(head, hash);
    if (slot < -1 || slot >= 2) std::abort();  // a slot of the pool, or none
  }
  rte_mbuf* burst[1] = {head};
  rte_mbuf* dropped[1];
  uint16_t n_dropped = 0;
  // Some inputs ask for the chain fast path's tickets (vnf.h), as a pod recording a flow does.
  nfv::FlowTicketOut ticket;
  const uint16_t kept = data[0] & 0x40 ? g_vnf->process_with_tickets(burst, 1, dropped, &n_dropped, &ticket)
                                       : g_vnf->process(burst, 1, dropped, &n_dropped);
  if (kept + n_dropped != 1) std::abort();  // every packet is accounted for
  if (ticket.repeatable && !kept) std::abort();  // only a packet that goes on can be repeated
  rte_pktmbuf_free(kept ? burst[0] : dropped[0]);
  if (rte_mempool_in_use_count(g_pool) != 0) std::abort();  // no mbuf kept or leaked
  return 0;
}
