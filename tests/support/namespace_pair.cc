#include "namespace_pair.h"

#include "subprocess.h"

namespace nfv::test {

NamespacePair::NamespacePair(std::string prefix, std::string subnet) : prefix_(std::move(prefix)) {
  teardown();
  const std::string& p = prefix_;
  const std::string client = subnet + ".1", server = subnet + ".2";
  const std::string setup = "set -e\n"
      "ip netns add " + p + "-cli\n"
      "ip netns add " + p + "-srv\n"
      "ip link add " + p + "-c0 type veth peer name " + p + "-c1\n"
      "ip link add " + p + "-s0 type veth peer name " + p + "-s1\n"
      "ip link set " + p + "-c0 netns " + p + "-cli\n"
      "ip link set " + p + "-s0 netns " + p + "-srv\n"
      "ip netns exec " + p + "-cli ip addr add " + client + "/24 dev " + p + "-c0\n"
      "ip netns exec " + p + "-srv ip addr add " + server + "/24 dev " + p + "-s0\n"
      "for ns in " + p + "-cli " + p + "-srv; do ip netns exec $ns ip link set lo up; done\n"
      "ip netns exec " + p + "-cli ip link set " + p + "-c0 up\n"
      "ip netns exec " + p + "-srv ip link set " + p + "-s0 up\n"
      "sysctl -qw net.ipv6.conf." + p + "-c1.disable_ipv6=1 net.ipv6.conf." + p + "-s1.disable_ipv6=1\n"
      "ip link set " + p + "-c1 up\n"
      "ip link set " + p + "-s1 up\n"
      "ethtool -K " + p + "-c1 tx off rx off >/dev/null\n"
      "ethtool -K " + p + "-s1 tx off rx off >/dev/null\n"
      "ip netns exec " + p + "-cli ethtool -K " + p + "-c0 tx off rx off >/dev/null\n"
      "ip netns exec " + p + "-srv ethtool -K " + p + "-s0 tx off rx off >/dev/null\n"
      "CMAC=$(ip netns exec " + p + "-cli cat /sys/class/net/" + p + "-c0/address)\n"
      "SMAC=$(ip netns exec " + p + "-srv cat /sys/class/net/" + p + "-s0/address)\n"
      "ip netns exec " + p + "-cli ip neigh replace " + server + " lladdr $SMAC dev " + p + "-c0 nud permanent\n"
      "ip netns exec " + p + "-srv ip neigh replace " + client + " lladdr $CMAC dev " + p + "-s0 nud permanent\n";
  const CommandResult result = run_command(setup);
  ok_ = result.exit_code == 0;
  error_ = result.output;
}

NamespacePair::~NamespacePair() { teardown(); }

void NamespacePair::teardown() const {
  const std::string& p = prefix_;
  run_command("ip netns del " + p + "-cli 2>/dev/null; ip netns del " + p + "-srv 2>/dev/null; ip link del " + p +
              "-c1 2>/dev/null; ip link del " + p + "-s1 2>/dev/null; true");
}

}  // namespace nfv::test
