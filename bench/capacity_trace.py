#!/usr/bin/env python3
"""A rate trace (packets/s per slot and chain) in multiples of each chain's
deployed capacity: its slowest hop's instances x service_rate_pps in the
pod configuration given (every demo pod holds all the chains). SEGMENTS are
FACTORxSLOTS, one after the other, e.g. 0.5x8 3x60 0.5x8. --wiggle A:P adds
A x sin(2 pi slot / P) to the factor (each chain a quarter period apart),
so that a policy has something to follow in every slot.

  capacity_trace.py POD_YAML [--wiggle A:P] SEGMENT... > trace.csv
"""
import math
import re
import sys


def capacities(pod_yaml):
    """{chain: packets/s} from the chains' hop lines of a demo pod config."""
    caps, chain = {}, None
    for line in open(pod_yaml):
        m = re.match(r"\s*- name: (\S+)", line)
        if m:
            chain = m.group(1)
            continue
        m = re.search(r"\{vnf: .*\binstances: (\d+),.*service_rate_pps: (\d+)", line)
        if m and chain:
            hop = int(m.group(1)) * int(m.group(2))
            caps[chain] = min(caps.get(chain, hop), hop)
    return caps


def main():
    args = sys.argv[1:]
    caps = capacities(args.pop(0))
    amplitude, period = 0.0, 1.0
    if args and args[0] == "--wiggle":
        amplitude, period = (float(x) for x in args[1].split(":"))
        args = args[2:]
    factors = []
    for segment in args:
        factor, slots = segment.split("x")
        factors += [float(factor)] * int(slots)
    chains = sorted(caps)
    print("# units: pkt/s")
    print("# capacity: " + ", ".join(f"{c}={caps[c]}" for c in chains))
    print("slot," + ",".join(chains))
    for slot, factor in enumerate(factors):
        rates = [caps[c] * max(0.0, factor + amplitude * math.sin(2 * math.pi * (slot / period + i / 4)))
                 for i, c in enumerate(chains)]
        print(f"{slot}," + ",".join(f"{r:.0f}" for r in rates))


if __name__ == "__main__":
    main()
