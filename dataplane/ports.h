// Creating, starting and closing a process's DPDK ports from its port set:
// virtual devices by devargs (memif, pcap, ring, null, af_packet, tap) and
// PCI devices by address.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "port_set.h"

struct rte_mempool;

namespace nfv {

// Probes the device of `port` and returns its ethdev port id; throws with
// the port's name and devargs when DPDK refuses.
uint16_t create_port_device(const PortInfo& port);

// Configures 1 rx queue (unless tx-only) and `tx_queues` tx queues, starts
// the port and enables promiscuous mode where the driver has it. A memif
// client whose server is not up yet is retried for `peer_wait_ms`.
void start_port(uint16_t port_id, const PortInfo& port, uint16_t tx_queues, rte_mempool* pool, uint32_t peer_wait_ms);

// Waits until every port reports link up, or `timeout_ms` passes; a memif
// client still down is connected again every second. Returns the names of
// ports still down.
std::vector<std::string> wait_for_links(const std::vector<uint16_t>& port_ids, const std::vector<PortInfo>& ports,
                                        uint32_t timeout_ms);

// Stops and starts a memif port again (a client connects anew); returns
// the start's code. On DPDK's interrupt thread, as close_port.
int restart_port(uint16_t port_id);

// Stops and closes the port and removes its virtual device; a memif port
// on DPDK's interrupt thread (interrupt_thread.h), never beside the memif
// driver's handling of a peer that hung up.
void close_port(uint16_t port_id, const PortInfo& port);

}  // namespace nfv
