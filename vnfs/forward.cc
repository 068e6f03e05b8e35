// forward: passes every packet on unchanged. The cheapest possible hop; it
// measures what the framework itself costs per hop.
#include "vnf.h"

namespace nfv {
namespace {

class ForwardVnf final : public Vnf {
 public:
  void init(const VnfSettings& settings) override { settings.reject_unknown({}); }

  uint16_t process(rte_mbuf**, uint16_t n, rte_mbuf**, uint16_t*) override {
    bursts_++;
    return n;
  }

  static constexpr bool kStateful = false;
  bool stateful() const override { return kStateful; }
  // No tickets: running it costs less than repeating it would
  // (a chain with it goes hop by hop, dataplane/chain_fast_path.h).

  void visit_counters(const CounterVisitor& visit) const override { visit("bursts", read_counter(bursts_)); }

 private:
  uint64_t bursts_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("forward", ForwardVnf, "passes every packet on unchanged");

}  // namespace nfv
