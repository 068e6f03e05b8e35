#!/usr/bin/env python3
"""soak.sh's driver: every SAMPLE_S seconds it writes one row of what might
grow (the resident memory of each process, nfv-replay's being the sink's,
the mbufs out of each pod's pool and the flows pinned in its instances from
/metrics, the journal's size), and every SWITCH_S seconds it switches
nfv-scaler's policy live (set_policy on its control API), going round the
POLICY arguments. Stops when STOP_FILE appears.

  soak_driver.py OUT_CSV STOP_FILE SAMPLE_S SWITCH_S JOURNAL SCALER_PORT TOKEN \\
      --proc NAME=PID... --metrics NAME=PORT... --policy NAME[,KEY=VALUE...]...
"""
import os
import socket
import struct
import sys
import time
import urllib.request


def varint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def field(number, payload):
    """A length-delimited protobuf field."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def set_policy_request(token, spec):
    """Request{token, set_policy: PolicyChoice{name, params}} (proto/control.proto, proto/scaler.proto)."""
    name, *params = spec.split(",")
    choice = field(1, name)
    for p in params:
        key, value = p.split("=", 1)
        choice += field(2, field(1, key) + field(2, value))
    return field(1, token) + field(9, choice)


def call(port, body):
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(struct.pack(">I", len(body)) + body)
        head = b""
        while len(head) < 4:
            head += s.recv(4 - len(head))
        length = struct.unpack(">I", head)[0]
        answer = b""
        while len(answer) < length:
            chunk = s.recv(length - len(answer))
            if not chunk:
                break
            answer += chunk
    return answer.startswith(b"\x08\x01")  # Response.ok


def rss_mb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def metrics(port):
    """(mbufs in use, flows pinned) from a pod's /metrics."""
    mbufs = flows = 0.0
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
    except OSError:
        return float("nan"), float("nan")
    for line in text.splitlines():
        if line.startswith("nfv_mempool_mbufs_in_use"):
            mbufs += float(line.split()[-1])
        elif line.startswith("nfv_instance_flows"):
            flows += float(line.split()[-1])
    return mbufs, flows


def main():
    out, stop, sample_s, switch_s, journal, scaler_port, token = sys.argv[1:8]
    sample_s, switch_s, scaler_port = float(sample_s), float(switch_s), int(scaler_port)
    procs, pods, policies, mode = [], [], [], None
    for arg in sys.argv[8:]:
        if arg.startswith("--"):
            mode = arg
        elif mode == "--proc":
            procs.append(arg.split("="))
        elif mode == "--metrics":
            name, port = arg.split("=")
            pods.append((name, int(port)))
        elif mode == "--policy":
            policies.append(arg)
    start = time.time()
    next_sample, next_switch, switches, refused = start, start + switch_s, 0, 0
    with open(out, "w") as f:
        f.write("minutes," + ",".join(f"rss_{n}_mb" for n, _ in procs) + "," + ",".join(f"mbufs_{n}" for n, _ in pods) +
                ",flows_total,journal_kb,policy_switches\n")
        while not os.path.exists(stop):
            now = time.time()
            if policies and now >= next_switch:
                try:
                    ok = call(scaler_port, set_policy_request(token, policies[switches % len(policies)]))
                except OSError:
                    ok = False
                switches += 1
                refused += 0 if ok else 1
                next_switch += switch_s
            if now >= next_sample:
                sampled = [metrics(port) for _, port in pods]
                size = os.path.getsize(journal) / 1024 if os.path.exists(journal) else 0.0
                f.write(f"{(now - start) / 60:.3f}," + ",".join(f"{rss_mb(pid):.1f}" for _, pid in procs) + "," +
                        ",".join(f"{m:.0f}" for m, _ in sampled) + f",{sum(fl for _, fl in sampled):.0f},{size:.1f},{switches}\n")
                f.flush()
                next_sample += sample_s
            time.sleep(0.05)
    print(f"policy switches: {switches}, refused: {refused}")


if __name__ == "__main__":
    main()
