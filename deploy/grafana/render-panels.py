#!/usr/bin/env python3
"""Draws the Grafana dashboard's panels from what a Prometheus scraped, for
where no Grafana runs: each panel's queries over the run (query_range, one
point a second), drawn by nfv-chart, the report's own charts, added to the
run's HTML report under "Dashboard panels".

  render-panels.py DASHBOARD.json PROMETHEUS_URL SLOT_CLOCK_FILE REPORT.html NFV_CHART

SLOT_CLOCK_FILE holds the run's slot 0 (unix seconds; nfv-replay
--start-file): the panels run from there to now. $__rate_interval reads 4 s
(Grafana's four scrape intervals).
"""
import html
import json
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request


def query_range(url, expr, start, end):
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": "1"})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=10) as r:
        answer = json.load(r)
    if answer.get("status") != "success":
        raise RuntimeError(f"Prometheus refused {expr!r}: {answer.get('error')}")
    return answer["data"]["result"]


def wait_for_last_scrape(url, end):
    """Bounded poll: Prometheus has scraped past END (at most 10 s)."""
    for _ in range(100):
        with urllib.request.urlopen(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": "max(timestamp(up))"}), timeout=5) as r:
            result = json.load(r)["data"]["result"]
        if result and float(result[0]["value"][1]) >= end:
            return
        time.sleep(0.1)
    raise RuntimeError(f"Prometheus at {url} scraped nothing past {end:.1f} within 10 s")


def legend(fmt, labels):
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), fmt) or json.dumps(labels)


def main():
    dashboard_path, url, clock_path, report_path, nfv_chart = sys.argv[1:6]
    dashboard = json.load(open(dashboard_path))
    start = float(open(clock_path).read().split()[0])
    end = time.time()
    wait_for_last_scrape(url, end)
    figures = []
    for panel in dashboard["panels"]:
        unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        unit = "" if unit == "short" else unit  # Grafana's plain number
        spec = [f"chart {panel['title']}\ts since slot 0\t{unit}"]
        points = 0
        for target in panel["targets"]:
            expr = target["expr"].replace("$__rate_interval", "4s")
            for series in query_range(url, expr, start, end):
                spec.append("series " + legend(target.get("legendFormat", ""), series["metric"]))
                for t, v in series["values"]:
                    spec.append(f"{float(t) - start:.3f} {v}")
                    points += 1
        svg = subprocess.run([nfv_chart], input="\n".join(spec) + "\n", capture_output=True, text=True, check=True).stdout
        queries = "<br>".join(html.escape(t["expr"]) for t in panel["targets"])
        figures.append(f"<figure>{svg}<figcaption>{html.escape(panel.get('description', ''))}<br><code>{queries}</code>"
                       f"</figcaption></figure>\n")
        print(f"panel {panel['title']}: {points} points")
    section = ("<h2>Dashboard panels</h2>\n<p>The Grafana dashboard's queries (deploy/grafana/geo-nfv.json) over what "
               "Prometheus scraped from the pods and nfv-scaler during the run.</p>\n" + "".join(figures))
    report = open(report_path).read()
    report = report.replace("</body>", section + "</body>") if "</body>" in report else report + section
    open(report_path, "w").write(report)


if __name__ == "__main__":
    main()
