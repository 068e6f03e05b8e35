#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace nfv {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
constexpr int kLeft = 70, kRight = 170, kTop = 36, kBottom = 50;  // margins: the legend sits on the right
constexpr int kTicks = 6;

std::string escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string number(double v) {
  char text[32];
  if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-3)) std::snprintf(text, sizeof text, "%.3g", v);
  else std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Round tick spacing (1, 2 or 5 times a power of ten) giving about kTicks ticks.
double tick_step(double span) {
  const double raw = span / kTicks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

}  // namespace

std::string render_svg(const LineChart& chart) {
  auto usable = [&](double y) { return std::isfinite(y) && (!chart.log_y || y > 0); };
  auto ty = [&](double y) { return chart.log_y ? std::log10(y) : y; };
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const ChartSeries& s : chart.series)
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.x[i]) || !usable(s.y[i])) continue;
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, ty(s.y[i]));
      y_hi = std::max(y_hi, ty(s.y[i]));
    }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (x_hi == x_lo) x_hi = x_lo + 1;
  if (y_hi == y_lo) y_hi = y_lo + 1;
  if (!chart.log_y && y_lo > 0 && y_lo < 0.3 * y_hi) y_lo = 0;  // rates read better from 0
  const double plot_w = chart.width - kLeft - kRight, plot_h = chart.height - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  auto py = [&](double y) { return kTop + (1 - (ty(y) - y_lo) / (y_hi - y_lo)) * plot_h; };

  std::string svg;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                chart.width, chart.height, chart.width, chart.height);
  svg += buf;
  svg += "<text x=\"" + number(chart.width / 2.0) + "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" +
         escape(chart.title) + "</text>\n";
  // Grid and ticks.
  const double xs = tick_step(x_hi - x_lo);
  for (double x = std::ceil(x_lo / xs) * xs; x <= x_hi + 1e-9 * xs; x += xs) {
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                  px(x), kTop, px(x), kTop + plot_h, px(x), kTop + plot_h + 16, number(x).c_str());
    svg += buf;
  }
  const double ys = tick_step(y_hi - y_lo);  // in log10 units when log_y
  for (double y = std::ceil(y_lo / ys) * ys; y <= y_hi + 1e-9 * ys; y += ys) {
    const double value = chart.log_y ? std::pow(10.0, y) : y;
    const double at = kTop + (1 - (y - y_lo) / (y_hi - y_lo)) * plot_h;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  kLeft, at, kLeft + plot_w, at, kLeft - 6, at + 4, number(value).c_str());
    svg += buf;
  }
  std::snprintf(buf, sizeof buf, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
                kLeft, kTop, plot_w, plot_h);
  svg += buf;
  svg += "<text x=\"" + number(kLeft + plot_w / 2) + "\" y=\"" + number(chart.height - 12.0) +
         "\" text-anchor=\"middle\">" + escape(chart.x_label) + "</text>\n";
  svg += "<text transform=\"translate(16," + number(kTop + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         escape(chart.y_label + (chart.log_y ? " (log)" : "")) + "</text>\n";
  // Series and legend.
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const ChartSeries& s = chart.series[k];
    const std::string color = s.color.empty() ? kPalette[k % std::size(kPalette)] : s.color;
    const std::string style = "fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\"" +
                              (s.dashed ? " stroke-dasharray=\"5,3\"" : "");
    std::string points;
    auto flush = [&] {
      if (!points.empty()) svg += "<polyline " + style + " points=\"" + points + "\"/>\n";
      points.clear();
    };
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.x[i]) || !usable(s.y[i])) {
        flush();
        continue;
      }
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", px(s.x[i]), py(s.y[i]));
      points += buf;
    }
    flush();
    const double ly = kTop + 10 + 18.0 * static_cast<double>(k);
    std::snprintf(buf, sizeof buf, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>", kLeft + plot_w + 12, ly,
                  kLeft + plot_w + 36, ly, style.c_str());
    svg += buf;
    svg += "<text x=\"" + number(kLeft + plot_w + 42) + "\" y=\"" + number(ly + 4) + "\">" + escape(s.name) + "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

void write_svg(const LineChart& chart, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out << render_svg(chart);
  if (!out) throw std::runtime_error(path + ": write failed");
}

std::string svg_path_for(const std::string& csv_path) {
  return csv_path.ends_with(".csv") ? csv_path.substr(0, csv_path.size() - 4) + ".svg" : csv_path + ".svg";
}

}  // namespace nfv
