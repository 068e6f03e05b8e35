// The run report: one self-contained HTML file (inline SVG charts, no
// scripts) from a decision journal: a summary, traffic and forecast per
// chain, instances per site, the cost breakdown over time, drops and
// latency, and every policy switch and failure. Opened by any browser.
#pragma once

#include <string>
#include <vector>

#include "scaler.pb.h"

namespace nfv {

std::string render_html_report(const std::vector<scaler::JournalEntry>& entries, const std::string& title);
// Throws std::runtime_error naming the path when it cannot be written.
void write_html_report(const std::vector<scaler::JournalEntry>& entries, const std::string& title, const std::string& path);

}  // namespace nfv
