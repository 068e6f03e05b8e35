#!/usr/bin/env python3
"""Control round trips while a bench runs: a health request to each pod's
control API and a status request to nfv-scaler's, one after the other every
INTERVAL ms, each on its own open connection (as nfv-scaler keeps one per
pod), until STOP_FILE appears. Writes one CSV row per round trip:
unix time, target, round trip in ms, ok.

  control_probe.py OUT_CSV STOP_FILE INTERVAL_MS NAME=HOST:PORT:KIND...
KIND is pod (a health request) or scaler (a scaler_status request).
"""
import os
import socket
import struct
import sys
import time

# Request{health {}} and Request{scaler_status {}} (proto/control.proto), framed.
REQUESTS = {"pod": b"\x3a\x00", "scaler": b"\x52\x00"}


def frame(body):
    return struct.pack(">I", len(body)) + body


def read_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def main():
    out, stop, interval = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1e3
    targets = []
    for spec in sys.argv[4:]:
        name, rest = spec.split("=", 1)
        host, port, kind = rest.split(":")
        targets.append([name, (host, int(port)), REQUESTS[kind], None])
    with open(out, "w") as f:
        f.write("unix_s,target,rtt_ms,ok\n")
        while not os.path.exists(stop):
            for t in targets:
                name, address, request, sock = t
                start = time.time()
                ok = 1
                try:
                    if sock is None:
                        sock = socket.create_connection(address, timeout=1)
                        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        t[3] = sock
                        start = time.time()  # the round trip, not the connect
                    sock.sendall(frame(request))
                    length = struct.unpack(">I", read_exactly(sock, 4))[0]
                    body = read_exactly(sock, length)
                    ok = 1 if body.startswith(b"\x08\x01") else 0  # Response.ok = true
                except (OSError, ConnectionError):
                    ok = 0
                    if sock is not None:
                        sock.close()
                    t[3] = None
                f.write(f"{start:.6f},{name},{(time.time() - start) * 1e3:.3f},{ok}\n")
            time.sleep(interval)


if __name__ == "__main__":
    main()
