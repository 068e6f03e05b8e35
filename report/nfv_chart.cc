// nfv-chart: one line chart, as SVG on stdout, from series on stdin; for
// scripts that fetch their data elsewhere (the dashboard's panels drawn
// from Prometheus) and want the report's own charts.
//
//   chart TITLE<TAB>X LABEL<TAB>Y LABEL
//   series NAME
//   X Y            one point a line, any number; then the next series
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "svg_chart.h"

int main(int argc, char**) {
  if (argc != 1) {
    std::fputs("usage: nfv-chart < spec > chart.svg  (chart TITLE\\tX\\tY, series NAME, then X Y lines)\n", stderr);
    return 2;
  }
  nfv::LineChart chart;
  std::string line;
  for (int number = 1; std::getline(std::cin, line); ++number) {
    if (line.rfind("chart ", 0) == 0) {
      std::istringstream fields(line.substr(6));
      std::getline(fields, chart.title, '\t');
      std::getline(fields, chart.x_label, '\t');
      std::getline(fields, chart.y_label, '\t');
    } else if (line.rfind("series ", 0) == 0) {
      chart.series.push_back({line.substr(7), {}, {}, "", false});
    } else if (!line.empty()) {
      std::istringstream point(line);
      double x = 0, y = 0;
      if (chart.series.empty() || !(point >> x >> y)) {
        std::fprintf(stderr, "nfv-chart: line %d: expected 'chart ...', 'series NAME' or 'X Y' after a series, got '%s'\n",
                     number, line.c_str());
        return 2;
      }
      chart.series.back().x.push_back(x);
      chart.series.back().y.push_back(y);
    }
  }
  std::fputs(nfv::render_svg(chart).c_str(), stdout);
  return 0;
}
