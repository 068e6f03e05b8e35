#!/usr/bin/env python3
"""Recomputes the expected sums in tests/trace_test.cc from the shared data,
independently of the C++ readers (python3's csv module only).

Usage: tests/tools/trace_golden_sums.py [DATA]   (DATA: $NFV_SHARED_DATA,
default /work/shared/data). Prints each figure under the name the test
gives it; paste a changed figure into the test only after checking why the
data changed.
"""
import csv
import os
import sys

data = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("NFV_SHARED_DATA", "/work/shared/data")

# Abilene: rows 0..4031 are March (2004-03-01..14), the rest April (2004-04-02..04).
with open(os.path.join(data, "traffic/abilene/abilene_tm_5min_mbps.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0][1:], [[float(v) for v in r[1:]] for r in rows[1:]]
blocks = {"march": body[:4032], "april": body[4032:]}
for name, block in blocks.items():
    sums = [sum(r[c] for r in block) for c in range(len(header))]
    print(f"{name}: {len(block)} rows")
    for column in ("ATLAM5->CHINng", "NYCMng->LOSAng", "WASHng->STTLng"):
        print(f"  column sum {column}: {sums[header.index(column)]:.6f}")
    print(f"  sum of all columns: {sum(sums):.6f}")
    print(f"  first slot total: {sum(block[0]):.6f}")
    for site in ("ATLAM5", "NYCMng"):  # ingress per site: the site's outgoing pairs
        print(f"  ingress {site}: {sum(s for h, s in zip(header, sums) if h.split('->')[0] == site):.6f}")

# NASA: requests per bin / bin seconds, per segment; the longest run of zero bins.
segments = {}
with open(os.path.join(data, "traffic/nasa/nasa_http_requests_5min.csv"), newline="") as f:
    for r in csv.DictReader(f):
        segments.setdefault(r["segment"], []).append(int(r["requests_in_bin"]) / float(r["bin_seconds"]))
for name, rates in segments.items():
    longest, start, run = 0, 0, 0
    for i, v in enumerate(rates):
        run = run + 1 if v == 0 else 0
        if run > longest:
            longest, start = run, i - run + 1
    print(f"nasa {name}: {len(rates)} rows, sum {sum(rates):.6f}, longest zero run {longest} bins from row {start}")
