#include "html_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "svg_chart.h"

namespace nfv {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string number(double value, const char* format = "%.2f") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

}  // namespace

std::string render_html_report(const std::vector<scaler::JournalEntry>& entries, const std::string& title) {
  std::vector<double> slots;
  std::map<std::string, ChartSeries> traffic, forecast, latency;
  std::map<std::string, ChartSeries> sites;
  ChartSeries operating{"operating", {}, {}, "", false}, deployment{"deployment", {}, {}, "", false},
      wan{"WAN", {}, {}, "", false}, sla{"SLA penalty", {}, {}, "", false}, total{"total", {}, {}, "#000", false};
  ChartSeries dropped{"dropped packets", {}, {}, "#c0392b", false};
  std::set<std::string> site_names;
  for (const auto& e : entries)
    for (const auto& pool : e.plan()) site_names.insert(pool.site());
  double delivered_sum = 0, dropped_sum = 0, late_sum = 0, instance_slots = 0;
  std::vector<double> decisions;
  std::string events;
  std::string last_policy;
  // A learning policy's guard: 1 in the slots where its guard policy decided.
  ChartSeries guarded{"guard decided", {}, {}, "", false};
  std::size_t learned_decisions = 0, guard_fallbacks = 0;
  bool was_guarded = false;
  std::uint64_t slots_covered = 0;
  for (const auto& e : entries) {
    const double x = static_cast<double>(e.slot());
    const std::uint64_t span = std::max<std::uint64_t>(e.slots(), 1);  // a scaler behind the clock measured several as one
    slots_covered += span;
    slots.push_back(x);
    double slot_dropped = 0;
    for (const auto& c : e.chains()) {
      auto& t = traffic[c.chain()];
      t.name = c.chain() + " measured";
      t.x.push_back(x);
      t.y.push_back(c.arrival_pps());
      auto& f = forecast[c.chain()];
      f.name = c.chain() + " forecast";
      f.dashed = true;
      f.x.push_back(x);
      f.y.push_back(c.forecast_pps());
      auto& l = latency[c.chain()];
      l.name = c.chain();
      l.x.push_back(x);
      l.y.push_back(c.p99_ms());
      delivered_sum += c.delivered();
      dropped_sum += c.dropped();
      late_sum += c.late();
      slot_dropped += c.dropped();
    }
    dropped.x.push_back(x);
    dropped.y.push_back(slot_dropped);
    std::map<std::string, double> per_site;
    for (const auto& pool : e.plan()) per_site[pool.site()] += pool.instances();
    for (const std::string& site : site_names) {
      auto& s = sites[site];
      s.name = site;
      s.x.push_back(x);
      s.y.push_back(per_site[site]);
      instance_slots += per_site[site] * static_cast<double>(span);
    }
    for (ChartSeries* series : {&operating, &deployment, &wan, &sla, &total}) series->x.push_back(x);
    operating.y.push_back(e.cost_so_far().operating());
    deployment.y.push_back(e.cost_so_far().deployment());
    wan.y.push_back(e.cost_so_far().wan());
    sla.y.push_back(e.cost_so_far().sla_penalty());
    total.y.push_back(e.cost_so_far().total());
    decisions.push_back(e.decision_ms());
    if (e.policy().name() != last_policy) {
      events += "<tr><td>" + std::to_string(e.slot()) + "</td><td>policy " + escape(e.policy().name()) + "</td><td>" +
                escape(e.reason().substr(0, 200)) + "</td></tr>\n";
      last_policy = e.policy().name();
      was_guarded = false;
    }
    if (e.has_learned()) {
      const bool guard = !e.learned().guard().empty() && e.learned().guard() != "agent";
      ++learned_decisions;
      guard_fallbacks += guard;
      guarded.x.push_back(x);
      guarded.y.push_back(guard ? 1.0 : 0.0);
      if (guard && !was_guarded)
        events += "<tr><td>" + std::to_string(e.slot()) + "</td><td>guard: " + escape(e.learned().guard()) +
                  " decides</td><td>" + escape(e.learned().guard_reason()) + "</td></tr>\n";
      was_guarded = guard;
    }
    if (!e.error().empty())
      events += "<tr><td>" + std::to_string(e.slot()) + "</td><td>error</td><td>" + escape(e.error()) + "</td></tr>\n";
  }
  const auto chart = [](std::string chart_title, std::string y_label, std::vector<ChartSeries> series) {
    LineChart c;
    c.title = std::move(chart_title);
    c.x_label = "slot";
    c.y_label = std::move(y_label);
    c.series = std::move(series);
    return "<figure>" + render_svg(c) + "</figure>\n";
  };
  std::vector<ChartSeries> traffic_series;
  for (auto& [name, series] : traffic) {
    traffic_series.push_back(series);
    traffic_series.push_back(forecast[name]);
  }
  std::vector<ChartSeries> site_series, latency_series;
  for (auto& [name, series] : sites) site_series.push_back(series);
  for (auto& [name, series] : latency) latency_series.push_back(series);

  const scaler::JournalEntry* last = entries.empty() ? nullptr : &entries.back();
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title) +
                     "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1000px}"
                     "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
                     "td:last-child{text-align:left}figure{margin:1.5em 0}</style></head><body>\n";
  html += "<h1>" + escape(title) + "</h1>\n";
  if (last == nullptr) return html + "<p>The journal is empty.</p></body></html>\n";
  const double packets = delivered_sum + dropped_sum;
  html += "<h2>Summary</h2>\n<table>\n";
  const auto row = [&](const std::string& name, const std::string& value) {
    html += "<tr><th>" + escape(name) + "</th><td>" + escape(value) + "</td></tr>\n";
  };
  row("slots", std::to_string(slots_covered) + " (" + std::to_string(entries.front().slot()) + " to " +
                   std::to_string(last->slot() + std::max<std::uint64_t>(last->slots(), 1) - 1) + ", " +
                   std::to_string(entries.size()) + " decisions)");
  row("policy at the end", last->policy().name());
  row("cost", number(last->cost_so_far().total()));
  row("  operating", number(last->cost_so_far().operating()));
  row("  deployment", number(last->cost_so_far().deployment()));
  row("  WAN", number(last->cost_so_far().wan()));
  row("  SLA penalty", number(last->cost_so_far().sla_penalty()));
  row("packets delivered", number(delivered_sum, "%.0f"));
  row("packets dropped", number(dropped_sum, "%.0f") + " (" + number(packets > 0 ? 100 * dropped_sum / packets : 0, "%.3f") + "%)");
  row("late packets", number(late_sum, "%.0f"));
  row("instance-slots", number(instance_slots, "%.0f"));
  if (learned_decisions > 0)
    row("guard fallbacks", std::to_string(guard_fallbacks) + " of " + std::to_string(learned_decisions) +
                               " learned decisions");
  row("decision time p50 / p99", number(percentile(decisions, 0.5), "%.2f") + " / " + number(percentile(decisions, 0.99), "%.2f") + " ms");
  html += "</table>\n<h2>Traffic per chain (packets/s), measured and forecast</h2>\n" +
          chart("traffic", "packets/s", traffic_series);
  html += "<h2>Instances per site</h2>\n" + chart("instances in the plan", "instances", site_series);
  html += "<h2>Cost so far</h2>\n" + chart("cumulative cost by term", "cost", {operating, deployment, wan, sla, total});
  html += "<h2>Drops</h2>\n" + chart("dropped packets per slot", "packets", {dropped});
  html += "<h2>Latency</h2>\n" + chart("p99 latency per chain (pods: since start; simulator: mean)", "ms", latency_series);
  if (learned_decisions > 0)
    html += "<h2>Guard</h2>\n" + chart("slots where the guard policy decided instead of the agent", "1 = guard", {guarded});
  html += "<h2>Policy switches, guard and failures</h2>\n<table><tr><th>slot</th><th>event</th><th>detail</th></tr>\n" + events +
          "</table>\n</body></html>\n";
  return html;
}

void write_html_report(const std::vector<scaler::JournalEntry>& entries, const std::string& title, const std::string& path) {
  std::ofstream out(path);
  if (!(out << render_html_report(entries, title))) throw std::runtime_error(path + ": cannot write the report");
}

}  // namespace nfv
