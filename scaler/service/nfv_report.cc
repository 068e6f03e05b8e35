// nfv-report: the HTML report of a run from its decision journal.
#include <cstdio>
#include <iostream>
#include <string>

#include "html_report.h"
#include "journal.h"

int main(int argc, char** argv) {
  std::string journal, output = "report.html", title = "geo-NFV scaler run";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: nfv-report JOURNAL.jsonl [--out report.html] [--title TEXT]\n";
      return 0;
    }
    if ((arg == "--out" || arg == "--title") && i + 1 < argc) (arg == "--out" ? output : title) = argv[++i];
    else if (!arg.empty() && arg[0] != '-' && journal.empty()) journal = arg;
    else {
      std::fprintf(stderr, "nfv-report: unexpected argument '%s' (--help)\n", arg.c_str());
      return 1;
    }
  }
  if (journal.empty()) {
    std::fprintf(stderr, "nfv-report: a journal file is needed (--help)\n");
    return 1;
  }
  try {
    const auto entries = nfv::Journal::read(journal);
    if (entries.empty()) throw std::runtime_error(journal + ": no journal entries");
    nfv::write_html_report(entries, title, output);
    std::printf("report of %zu slots written to %s\n", entries.size(), output.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-report: %s\n", e.what());
    return 1;
  }
}
