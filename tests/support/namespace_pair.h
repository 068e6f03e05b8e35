// Two network namespaces for tests that carry kernel traffic through a pod:
// PREFIX-cli and PREFIX-srv, each holding one end of a veth pair (PREFIX-c0,
// PREFIX-s0) with SUBNET.1 and SUBNET.2 /24; the other ends (PREFIX-c1,
// PREFIX-s1) stay in the root namespace for the pod's af_packet ports.
// Offloads are off (the pod sees real checksums), IPv6 is off on the pod's
// side, and static ARP entries spare the first packets a resolution.
// Removed again on destruction (and before, in case a run died).
#pragma once

#include <string>

namespace nfv::test {

class NamespacePair {
 public:
  NamespacePair(std::string prefix, std::string subnet);  // e.g. "nfvw", "198.18.0"
  ~NamespacePair();
  NamespacePair(const NamespacePair&) = delete;
  NamespacePair& operator=(const NamespacePair&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

 private:
  void teardown() const;
  std::string prefix_;
  bool ok_ = false;
  std::string error_;
};

}  // namespace nfv::test
