#include "replay_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace nfv {
namespace {

std::string format(const char* pattern, auto... values) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

double us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

std::string ReplayReport::describe(const GeneratorPlan& plan) {
  std::string out = "trace " + plan.trace_label + ": " + std::to_string(plan.slots) + " slots, " +
                    std::to_string(plan.chains.size()) + " chains\n";
  out += "mapping: " + plan.scale.describe(plan.unit) + "\n";
  std::string mix;
  double weight = 0;
  for (const auto& s : plan.sizes) weight += s.weight;
  for (const auto& s : plan.sizes) mix += format("%s%u B %.1f%%", mix.empty() ? "" : ", ", s.bytes, 100 * s.weight / weight);
  out += format("packet sizes: %s (mean %.1f B)\n", mix.c_str(), plan.mean_packet_bytes());
  for (std::size_t c = 0; c < plan.chains.size(); ++c) {
    const auto& chain = plan.chains[c];
    double peak = 0;
    for (std::size_t s = 0; s < plan.slots; ++s) peak = std::max(peak, plan.target(s, c));
    out += format("chain %zu %s: dst %s, src %s, udp dport %u, %u flows, zipf %.2f; slot 0 %.6g %s = %.1f pkt/s, peak %.1f pkt/s\n",
                  c, chain.name.c_str(), chain.dst.text.c_str(), chain.src.text.c_str(), chain.dst_port, chain.flows,
                  chain.zipf_exponent, plan.slots ? plan.trace_rates[c] : 0.0, unit_name(plan.unit).c_str(),
                  plan.slots ? plan.target(0, c) : 0.0, peak);
  }
  return out;
}

std::size_t ReplayReport::slots() const {
  if (generator_) return generator_->plan().slots;
  return sink_ ? sink_->slots() : 0;
}

std::size_t ReplayReport::chains() const {
  if (generator_) return generator_->plan().chains.size();
  return sink_ ? sink_->chains() : 0;
}

std::string ReplayReport::chain_name(std::size_t chain) const {
  if (generator_) return generator_->plan().chains[chain].name;
  return sink_->chain_name(chain);
}

double ReplayReport::slot_seconds() const {
  return generator_ ? generator_->plan().scale.slot_wall_seconds : sink_ ? sink_->slot_seconds() : 1;
}

ReplayReport::Cell ReplayReport::cell(std::size_t slot, std::size_t chain) const {
  Cell cell;
  const double seconds = slot_seconds();
  if (generator_) {
    cell.target_pps = generator_->plan().target(slot, chain);
    cell.sent = static_cast<int64_t>(generator_->sent(slot, chain));
    cell.sent_pps = static_cast<double>(cell.sent) / seconds;
    cell.behind_max_ms = generator_->behind_max_ms(slot);
  }
  if (sink_) {
    const auto& got = sink_->at(slot, chain);
    cell.received = static_cast<int64_t>(got.packets);
    // With the generator here, loss is what was sent less what came back;
    // alone, the sink only has the sequence numbers.
    cell.lost = generator_ ? cell.sent - cell.received : sink_->lost_by_sequence(slot, chain);
    cell.reordered = got.reordered;
    const ProbeSink::Percentiles latency = got.percentiles();
    cell.p50_us = us(latency.p50);
    cell.p95_us = us(latency.p95);
    cell.p99_us = us(latency.p99);
  }
  return cell;
}

std::string ReplayReport::slot_line(std::size_t slot) const {
  double target = 0, sent = 0;
  int64_t received = 0, lost = 0;
  double p99 = 0;
  for (std::size_t c = 0; c < chains(); ++c) {
    const Cell x = cell(slot, c);
    target += x.target_pps, sent += x.sent_pps;
    received += std::max<int64_t>(x.received, 0), lost += x.lost;
    p99 = std::max(p99, x.p99_us);
  }
  std::string line = format("slot %zu/%zu: target %.0f pkt/s, sent %.0f pkt/s (%+.2f%%)", slot, slots(), target, sent,
                            target > 0 ? 100 * (sent - target) / target : 0.0);
  if (sink_) line += format(", received %lld so far, lost %lld, p99 %.1f us", static_cast<long long>(received),
                            static_cast<long long>(lost), p99);
  return line;
}

std::string ReplayReport::sink_slot_line(std::size_t slot) const {
  int64_t received = 0, lost = 0;
  double p99 = 0;
  for (std::size_t c = 0; c < chains(); ++c) {
    const Cell x = cell(slot, c);
    received += x.received, lost += x.lost;
    p99 = std::max(p99, x.p99_us);
  }
  return format("slot %zu: received %lld (%.0f pkt/s), lost %lld, p99 %.1f us, foreign %llu so far", slot,
                static_cast<long long>(received), static_cast<double>(received) / slot_seconds(),
                static_cast<long long>(lost), p99, static_cast<unsigned long long>(sink_->foreign_packets()));
}

std::string ReplayReport::summary() const {
  std::string out;
  if (generator_) {
    const auto& plan = generator_->plan();
    uint64_t bytes = 0;
    double worst = 0, behind_ms = 0;
    std::size_t worst_slot = 0, worst_chain = 0, behind_slot = 0;
    for (std::size_t s = 0; s < plan.slots; ++s) {
      const double slot_behind_ms = generator_->behind_max_ms(s);
      if (slot_behind_ms > behind_ms) behind_ms = slot_behind_ms, behind_slot = s;
      for (std::size_t c = 0; c < plan.chains.size(); ++c) {
        bytes += generator_->sent_bytes(s, c);
        const double target = plan.target(s, c);
        if (target <= 0) continue;
        const double error = std::abs(static_cast<double>(generator_->sent(s, c)) / plan.scale.slot_wall_seconds - target) / target;
        if (error >= worst) worst = error, worst_slot = s, worst_chain = c;
      }
    }
    out += format("generator: sent %llu packets, %llu bytes in %zu slots of %.3g s; worst slot rate error %.3f%% (slot %zu, chain %s); "
                  "fell behind its schedule by at most %.3f ms (slot %zu); unsent at end %llu, mempool shortages %llu\n",
                  static_cast<unsigned long long>(generator_->total_sent()), static_cast<unsigned long long>(bytes),
                  plan.slots, plan.scale.slot_wall_seconds, 100 * worst, worst_slot,
                  plan.chains.empty() ? "" : plan.chains[worst_chain].name.c_str(), behind_ms, behind_slot,
                  static_cast<unsigned long long>(generator_->unsent_at_end()),
                  static_cast<unsigned long long>(generator_->mbuf_shortages()));
  }
  if (replayer_)
    out += format("pcap replay: sent %llu packets, %llu bytes in %u loops (%.3f s of capture per loop at x%g); "
                  "skipped %llu frames too big for an mbuf\n",
                  static_cast<unsigned long long>(replayer_->sent_packets()), static_cast<unsigned long long>(replayer_->sent_bytes()),
                  replayer_->loops_done(), replayer_->capture_seconds(), replayer_->speed(),
                  static_cast<unsigned long long>(replayer_->skipped_too_big()));
  if (sink_) {
    for (std::size_t c = 0; c < chains(); ++c) {
      const auto& total = c < sink_->chains() ? sink_->chain_total(c) : ProbeSink::Counters{};
      uint64_t sent = 0;
      if (generator_)
        for (std::size_t s = 0; s < generator_->plan().slots; ++s) sent += generator_->sent(s, c);
      const int64_t lost = generator_ ? static_cast<int64_t>(sent) - static_cast<int64_t>(total.packets)
                                      : static_cast<int64_t>(total.seq_end) - static_cast<int64_t>(total.packets);
      const double expected = generator_ ? static_cast<double>(sent) : static_cast<double>(total.seq_end);
      out += format("sink chain %s: received %llu packets, %llu bytes; lost %lld (%.4f%%); reordered %llu; "
                    "latency p50 %.1f us, p95 %.1f us, p99 %.1f us\n",
                    chain_name(c).c_str(), static_cast<unsigned long long>(total.packets),
                    static_cast<unsigned long long>(total.bytes), static_cast<long long>(lost),
                    expected > 0 ? 100 * static_cast<double>(lost) / expected : 0.0,
                    static_cast<unsigned long long>(total.reordered), us(total.latency.percentile(0.50)),
                    us(total.latency.percentile(0.95)), us(total.latency.percentile(0.99)));
    }
    out += format("sink: foreign packets %llu, %llu bytes\n", static_cast<unsigned long long>(sink_->foreign_packets()),
                  static_cast<unsigned long long>(sink_->foreign_bytes()));
  }
  return out;
}

void ReplayReport::write_csv(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("--csv: cannot write '" + path + "'");
  const uint64_t start_ns = generator_ ? generator_->start_ns() : sink_ ? sink_->start_ns() : 0;
  out << "# start_unix_ns: " << start_ns << "\n# slot_wall_seconds: " << slot_seconds() << "\n";
  out << "slot,chain,target_pps,sent_pps,sent,received,received_pps,lost,reordered,p50_us,p95_us,p99_us,behind_max_ms\n";
  auto optional_number = [](double v, const char* pattern) { return v < 0 ? std::string() : format(pattern, v); };
  for (std::size_t s = 0; s < slots(); ++s)
    for (std::size_t c = 0; c < chains(); ++c) {
      const Cell x = cell(s, c);
      out << s << ',' << chain_name(c) << ',' << optional_number(x.target_pps, "%.3f") << ','
          << optional_number(x.sent_pps, "%.3f") << ',' << (x.sent < 0 ? "" : std::to_string(x.sent)) << ',';
      if (sink_)
        out << x.received << ',' << format("%.3f", static_cast<double>(x.received) / slot_seconds()) << ',' << x.lost
            << ',' << x.reordered << ',' << format("%.1f,%.1f,%.1f", x.p50_us, x.p95_us, x.p99_us) << ',';
      else
        out << ",,,,,,,";
      out << optional_number(x.behind_max_ms, "%.3f") << '\n';
    }
}

}  // namespace nfv
