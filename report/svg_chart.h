// Line charts as standalone SVG files: axes with round-number ticks, a
// legend, one polyline per series (non-finite points break the line). Used
// for training curves and forecast-versus-actual plots, and by the HTML
// report, which embeds the same SVG text.
#pragma once

#include <string>
#include <vector>

namespace nfv {

struct ChartSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
  std::string color;    // CSS colour; empty = the next of a fixed palette
  bool dashed = false;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool log_y = false;   // for losses; non-positive values are skipped
  int width = 900;
  int height = 420;
};

std::string render_svg(const LineChart& chart);
// Throws std::runtime_error naming the path when it cannot be written.
void write_svg(const LineChart& chart, const std::string& path);
// Where a CSV's plot goes: the same name with .svg for .csv (else .svg appended).
std::string svg_path_for(const std::string& csv_path);

}  // namespace nfv
