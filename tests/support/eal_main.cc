// main() for test binaries that need DPDK in-process: EAL on the lcores of
// NFV_TEST_LCORES (default "0"; "0,1" gives the pod a worker lcore),
// hugepages without files (--in-memory), no PCI, quiet logs.
#include <gtest/gtest.h>
#include <rte_eal.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#ifndef NFV_TEST_LCORES
#define NFV_TEST_LCORES "0"
#endif
  const char* eal_args[] = {argv[0], "-l", NFV_TEST_LCORES, "--in-memory", "--no-pci", "--no-telemetry", "--log-level=lib.eal:error"};
  if (rte_eal_init(static_cast<int>(std::size(eal_args)), const_cast<char**>(eal_args)) < 0) {
    std::fprintf(stderr, "EAL init failed: are hugepages reserved? (./nfv setup)\n");
    return 1;
  }
  const int rc = RUN_ALL_TESTS();
  rte_eal_cleanup();
  return rc;
}
