#!/usr/bin/env python3
"""overload.sh's figures from its run folder: drops by reason (the pods'
final counters), latency per phase against the bound the queues set, the
control round trips per phase (the rest before the overload is the
reference), and the slots until the pods are back to their figures at rest.

  overload_report.py RUN_DIR REST OVER
"""
import csv
import json
import re
import sys


def percentile(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def field(message, name, default=0):
    """A field of a pod's stats JSON, whether written with proto names or lowerCamelCase."""
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
    return message.get(name, message.get(camel, default))


def rows(path):
    return list(csv.DictReader(line for line in open(path) if not line.startswith("#")))


def chain_paths(pod_yaml):
    """{chain: [ingress site, hop sites..., egress site]} from a demo pod config."""
    paths, chain, ingress = {}, None, None
    for line in open(pod_yaml):
        if m := re.match(r"\s*- name: (\S+)", line):
            chain = m.group(1)
        elif chain and (m := re.match(r"\s*ingress_site: (\S+)", line)):
            paths[chain] = [m.group(1)]
        elif chain and (m := re.match(r"\s*egress_site: (\S+)", line)):
            paths[chain + "/egress"] = m.group(1)
        elif chain and (m := re.search(r"\{vnf: \S+, site: (\w+)", line)):
            paths[chain].append(m.group(1))
    return {c: p + [paths[c + "/egress"]] for c, p in paths.items() if "/" not in c}


def main():
    run, rest, over = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    pods = {s: json.load(open(f"{run}/{s}.json")) for s in ("nycm", "chin", "kscy")}

    # The bound: each hop's instance queue drained at the instance's rate, plus the WAN delays on the way.
    queue_s = {}
    link_ms = {}
    for stats in pods.values():
        for hop in stats.get("hops", []):
            if field(hop, "service_rate_pps"):
                queue_s[(hop["chain"], hop["site"])] = field(hop, "queue_packets") / field(hop, "service_rate_pps")
        for link in stats.get("links", []):
            link_ms[(field(link, "from_site"), field(link, "to_site"))] = field(link, "delay_ms")
    bounds = {}
    for chain, path in chain_paths(f"{run}/pod-nycm.yaml").items():
        wan = sum(link_ms.get((a, b), 0) for a, b in zip(path, path[1:]) if a != b)
        bounds[chain] = wan + 1e3 * sum(queue_s.get((chain, site), 0) for site in path[1:-1])

    drops = {}
    for stats in pods.values():
        for d in stats.get("drops", []):
            drops[d["reason"]] = drops.get(d["reason"], 0) + int(d.get("packets", 0))
    leaked = sum(int(field(s, "mempool_in_use_after_close")) for s in pods.values())

    slots = rows(f"{run}/replay.csv")
    phase_of = lambda slot: "rest" if slot < rest else "overload" if slot < rest + over else "after"
    print(f"{'phase':9} {'chain':6} {'offered pkt/s':>13} {'delivered':>10} {'lost':>9} {'p50 ms':>8} {'p99 ms':>8} {'max p99':>8} {'bound ms':>8}")
    for phase in ("rest", "overload", "after"):
        for chain in sorted({r["chain"] for r in slots}):
            rs = [r for r in slots if r["chain"] == chain and phase_of(int(r["slot"])) == phase]
            if phase == "rest":
                rs = rs[1:]  # slot 0 warms up
            if not rs:
                continue
            sent = sum(float(r["sent"]) for r in rs)
            got = sum(float(r["received"]) for r in rs)
            p50 = percentile([float(r["p50_us"]) / 1e3 for r in rs], 0.5)
            p99 = percentile([float(r["p99_us"]) / 1e3 for r in rs], 0.5)
            worst = max(float(r["p99_us"]) / 1e3 for r in rs)
            print(f"{phase:9} {chain:6} {sent / len(rs):13.0f} {got / max(sent, 1):10.3f} {int(sent - got):9d} "
                  f"{p50:8.2f} {p99:8.2f} {worst:8.2f} {bounds.get(chain, float('nan')):8.1f}")
    worst_ratio = max(float(r["p99_us"]) / 1e3 / bounds[r["chain"]] for r in slots if r["chain"] in bounds)
    print(f"worst slot p99 / bound: {worst_ratio:.2f} (bound = instance queues / service rate + WAN delays; "
          f"{'within' if worst_ratio <= 1 else 'OVER'})")

    print("\ndrops by reason (all pods):")
    for reason, n in sorted(drops.items(), key=lambda x: -x[1]):
        print(f"  {reason:22} {n}")
    print(f"mbufs still in use after the pods closed: {leaked}")

    # Recovery: slots after the load falls until a slot has no loss and a p99 within 2x the worst at rest.
    by_slot = {}
    for r in slots:
        s = by_slot.setdefault(int(r["slot"]), {"lost": 0, "p99": 0.0})
        s["lost"] += int(float(r["lost"]))
        s["p99"] = max(s["p99"], float(r["p99_us"]) / 1e3)
    rest_p99 = max(by_slot[s]["p99"] for s in range(1, rest))
    first_after = rest + over
    recovered = next((s for s in sorted(by_slot) if s >= first_after and by_slot[s]["lost"] == 0
                      and by_slot[s]["p99"] <= 2 * rest_p99), None)
    if recovered is None:
        print("\nrecovery: the pods did not get back to their figures at rest before the run ended")
    else:
        print(f"\nrecovery: {recovered - first_after} slot(s) after the load fell (slot {first_after}: lost "
              f"{by_slot[first_after]['lost']}, p99 {by_slot[first_after]['p99']:.2f} ms; at rest p99 <= {rest_p99:.2f} ms; "
              f"target <= 1: {'met' if recovered - first_after <= 1 else 'MISSED'})")

    # Control round trips per phase; the rest before the overload is the reference.
    slot0 = float(open(f"{run}/slot-clock").read().split()[0])
    probes = rows(f"{run}/control.csv")
    print("\ncontrol API round trips (health to each pod, status to nfv-scaler, every 20 ms):")
    print(f"{'target':7} {'phase':9} {'n':>6} {'failed':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'p99/rest':>8}")
    for group in ("pods", "scaler"):
        ref = None
        for phase in ("rest", "overload", "after"):
            def in_phase(r):
                t = float(r["unix_s"]) - slot0
                # From slot 0 to the scaler's last slot (it stops then; the probes go on while the replay drains).
                return 0 <= t < rest + over + rest and phase_of(int(t)) == phase
            rs = [r for r in probes if (r["target"] == "scaler") == (group == "scaler") and in_phase(r)]
            ms = [float(r["rtt_ms"]) for r in rs if r["ok"] == "1"]
            if not rs:
                continue
            p99 = percentile(ms, 0.99)
            ref = p99 if phase == "rest" else ref
            print(f"{group:7} {phase:9} {len(rs):6d} {sum(r['ok'] != '1' for r in rs):6d} {percentile(ms, 0.5):8.3f} "
                  f"{p99:8.3f} {max(ms) if ms else float('nan'):8.3f} {p99 / ref if ref else float('nan'):8.2f}")
    over_ms = [float(r["rtt_ms"]) for r in probes
               if r["ok"] == "1" and 0 <= float(r["unix_s"]) - slot0 < rest + over + rest and phase_of(int(float(r["unix_s"]) - slot0)) == "overload"]
    print(f"control p99 during the overload: {percentile(over_ms, 0.99):.3f} ms "
          f"(target < 10 ms: {'met' if percentile(over_ms, 0.99) < 10 else 'MISSED'})")


if __name__ == "__main__":
    main()
