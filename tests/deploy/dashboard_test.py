#!/usr/bin/env python3
"""Loads the Grafana dashboard and checks every query against what the code
exports: each nfv_* name a query reads is in `nfv-pod --list-metrics` or
`nfv-scaler --list-metrics` (the exporters' own lists), and a counter is
read through rate()/increase() while a gauge never is. Every panel has a
query; the panels cover the topics operators watch.

  dashboard_test.py DASHBOARD.json     ($NFV_POD, $NFV_SCALER)
"""
import json
import os
import re
import subprocess
import sys

REQUIRED_TOPICS = {  # a word of a panel title -> what it is for
    "traffic": "traffic per chain", "drops": "drops per chain by reason", "latency": "latency p50/p99",
    "instances": "instances per site", "cost": "cost by term", "policy": "the policy in force",
    "decision": "the decision time", "guard": "the guard's fallbacks",
}


def exported():
    metrics = {}
    for env in ("NFV_POD", "NFV_SCALER"):
        program = os.environ.get(env)
        if not program:
            sys.exit(f"FAIL: ${env} is not set (meson sets it to the built program)")
        run = subprocess.run([program, "--list-metrics"] if env == "NFV_SCALER" else [program, "--", "--list-metrics"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL: {program} --list-metrics exited {run.returncode}: {run.stderr}")
        for line in run.stdout.splitlines():
            name, kind, _ = line.split(" ", 2)
            metrics[name] = kind
    return metrics


def panels_of(node):
    for p in node.get("panels", []):
        yield p
        yield from panels_of(p)  # rows hold panels


def main():
    dashboard = json.load(open(sys.argv[1]))
    metrics = exported()
    failures = []
    titles = []
    queries = 0
    for panel in panels_of(dashboard):
        if panel.get("type") == "row":
            continue
        title = panel.get("title", "")
        titles.append(title.lower())
        targets = panel.get("targets", [])
        if not targets:
            failures.append(f"panel '{title}' has no query")
        for t in targets:
            expr = t.get("expr", "")
            queries += 1
            names = re.findall(r"\bnfv_[a-z0-9_]+", expr)
            if not names:
                failures.append(f"panel '{title}' query {t.get('refId')} reads no nfv_ metric: {expr!r}")
            for name in names:
                if name not in metrics:
                    failures.append(f"panel '{title}': {name} is not a metric the pods or the scaler export")
                    continue
                rated = re.search(r"(rate|increase)\(\s*" + name + r"\b", expr)
                if metrics[name] == "counter" and not rated and not re.search(r"by \([a-z, ]*\) \(" + name + r"\b", expr):
                    failures.append(f"panel '{title}': counter {name} is read without rate() or increase() or a sum")
                if metrics[name] == "gauge" and rated:
                    failures.append(f"panel '{title}': gauge {name} is read through rate()/increase()")
    for word, topic in REQUIRED_TOPICS.items():
        if not any(word in title for title in titles):
            failures.append(f"no panel for {topic} (no title with '{word}')")
    if failures:
        print("FAIL: " + sys.argv[1] + ":\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"ok: {len(titles)} panels, {queries} queries, every metric among the {len(metrics)} the pods and the scaler export")


if __name__ == "__main__":
    main()
