// soak_plot: soak.sh's samples as charts, one SVG per kind of figure (rss,
// mbufs, flows, journal: the columns' first word), and a line per column:
// its first, last and largest sample and its growth per hour, fitted over
// the second half of the run (after the warm-up), which is what says
// whether it grows without bound.
//
//   soak_plot SAMPLES_CSV OUT_PREFIX      writes OUT_PREFIX-KIND.svg
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "svg_chart.h"

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string cell; std::getline(s, cell, ',');) out.push_back(cell);
  return out;
}

// Least-squares slope of y over x, for the points from x_from on.
double slope(const std::vector<double>& x, const std::vector<double>& y, double x_from) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < x_from || !std::isfinite(y[i])) continue;
    n++, sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  }
  const double d = n * sxx - sx * sx;
  return n >= 2 && d > 0 ? (n * sxy - sx * sy) / d : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: soak_plot SAMPLES_CSV OUT_PREFIX\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string line;
  if (!std::getline(in, line)) {
    std::fprintf(stderr, "%s: no header\n", argv[1]);
    return 1;
  }
  const std::vector<std::string> names = split(line);
  std::vector<std::vector<double>> columns(names.size());
  while (std::getline(in, line)) {
    const auto cells = split(line);
    if (cells.size() != names.size()) continue;  // a row cut short by the end of the run
    for (std::size_t c = 0; c < cells.size(); ++c) columns[c].push_back(std::strtod(cells[c].c_str(), nullptr));
  }
  const std::vector<double>& minutes = columns[0];
  if (minutes.size() < 2) {
    std::fprintf(stderr, "%s: fewer than 2 samples\n", argv[1]);
    return 1;
  }
  const double half = minutes.back() / 2;
  std::map<std::string, nfv::LineChart> charts;
  std::printf("%-22s %10s %10s %10s %14s   (%zu samples over %.1f min; growth fitted from minute %.1f)\n", "figure", "first",
              "last", "max", "growth/hour", minutes.size(), minutes.back(), half);
  for (std::size_t c = 1; c < names.size(); ++c) {
    const std::string& name = names[c];
    const std::string kind = name.substr(0, name.find('_'));
    if (kind == "policy") continue;  // a count of switches, not a figure that may leak
    double max = -INFINITY;
    for (double v : columns[c]) max = std::fmax(max, v);
    std::printf("%-22s %10.1f %10.1f %10.1f %14.2f\n", name.c_str(), columns[c].front(), columns[c].back(), max,
                slope(minutes, columns[c], half) * 60);
    nfv::LineChart& chart = charts[kind];
    chart.title = "soak: " + kind;
    chart.x_label = "minutes";
    chart.y_label = name.substr(name.rfind('_') + 1) == "mb" ? "MiB" : name.substr(name.rfind('_') + 1) == "kb" ? "KiB" : "count";
    chart.series.push_back({name, minutes, columns[c], "", false});
  }
  for (const auto& [kind, chart] : charts) nfv::write_svg(chart, std::string(argv[2]) + "-" + kind + ".svg");
  return 0;
}
