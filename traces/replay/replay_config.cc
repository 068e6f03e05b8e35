#include "replay_config.h"

#include <arpa/inet.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <numeric>
#include <stdexcept>

#include "config_error.h"
#include "probe_payload.h"

namespace nfv {
namespace {

using config::ReplayConfig;
using config::TraceSource;

std::string at(const std::string& field, int index) { return field + "[" + std::to_string(index) + "]"; }

Ipv4Prefix parse_prefix(const std::string& text, const std::string& field) {
  const auto slash = text.find('/');
  in_addr address{};
  char* end = nullptr;
  const long length = slash == std::string::npos ? -1 : std::strtol(text.c_str() + slash + 1, &end, 10);
  if (slash == std::string::npos || *end != '\0' || length < 8 || length > 32 ||
      inet_pton(AF_INET, text.substr(0, slash).c_str(), &address) != 1)
    throw ConfigError(field, "an IPv4 prefix like 10.1.0.0/16 (length 8..32), got '" + text + "'");
  Ipv4Prefix prefix;
  prefix.host_mask = length == 32 ? 0 : (UINT32_MAX >> length);
  prefix.network = ntohl(address.s_addr) & ~prefix.host_mask;
  prefix.text = text;
  return prefix;
}

int require_port(const PortSet& ports, const std::string& name, const std::string& field) {
  const int index = ports.port_index(name);
  if (index != kNoIndex) return index;
  std::string known;
  for (const auto& p : ports.ports) known += (known.empty() ? "" : ", ") + p.name;
  throw ConfigError(field, "one of the ports (" + known + "), got '" + name + "'");
}

// A port that sends must have somewhere to send: a pcap port needs tx_pcap.
int require_sending_port(const ReplayConfig& config, const PortSet& ports, const std::string& name,
                         const std::string& field) {
  const int index = require_port(ports, name, field);
  const auto& port = config.ports(index);
  if (port.driver() == config::DRIVER_PCAP && port.tx_pcap().empty())
    throw ConfigError(field, "a port that can send; pcap port '" + name + "' has no tx_pcap");
  return index;
}

RateUnit parse_unit(const std::string& text, const std::string& field) {
  if (text.empty() || text == "mbit/s") return RateUnit::mbit_per_s;
  if (text == "req/s") return RateUnit::requests_per_s;
  if (text == "pkt/s") return RateUnit::packets_per_s;
  throw ConfigError(field, "mbit/s, req/s or pkt/s, got '" + text + "'");
}

std::string shared_data_file(const std::string& given, const std::string& relative, const std::string& field) {
  if (!given.empty()) return given;
  const char* root = std::getenv("NFV_SHARED_DATA");
  if (!root) throw ConfigError(field, "the data file (or NFV_SHARED_DATA set to ../shared/data)");
  return std::string(root) + "/" + relative;
}

RateTrace pick_block(const std::vector<RateTrace>& blocks, uint32_t block, const std::string& field) {
  if (block >= blocks.size())
    throw ConfigError(field, "a block index below " + std::to_string(blocks.size()) + ", got " + std::to_string(block));
  return blocks[block];
}

RateTrace load_trace(const TraceSource& source, const std::string& field) {
  if (source.csv().empty() == source.builtin().empty())
    throw ConfigError(field, "exactly one of csv (a rate-trace file) or builtin (abilene, nasa, diurnal, step, flash_crowd)");
  if (!source.csv().empty()) {
    try {
      return pick_block(read_rate_trace_csv(source.csv()).blocks, source.block(), field + ".block");
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw ConfigError(field + ".csv", std::string("a readable rate trace: ") + e.what());
    }
  }
  const std::string& kind = source.builtin();
  const std::string column = source.column().empty() ? "chain" : source.column();
  const RateUnit unit = parse_unit(source.unit(), field + ".unit");
  if (kind == "abilene")
    return pick_block(load_abilene_traffic(shared_data_file(source.file(), "traffic/abilene/abilene_tm_5min_mbps.csv", field + ".file")).blocks,
                      source.block(), field + ".block");
  if (kind == "nasa") {
    std::vector<RateTrace> segments;
    for (auto& s : load_nasa_requests(shared_data_file(source.file(), "traffic/nasa/nasa_http_requests_5min.csv", field + ".file")))
      segments.push_back(std::move(s.requests));
    return pick_block(segments, source.block(), field + ".block");
  }
  if (kind == "diurnal") {
    DiurnalShape shape;
    if (source.rows()) shape.rows = source.rows() + source.first_row();
    if (source.has_step_seconds()) shape.step_seconds = source.step_seconds();
    if (source.has_period_seconds()) shape.period_seconds = source.period_seconds();
    if (source.has_mean()) shape.mean = source.mean();
    if (source.has_amplitude()) shape.amplitude = source.amplitude();
    if (source.has_noise_stddev()) shape.noise_stddev = source.noise_stddev();
    if (source.has_seed()) shape.seed = source.seed();
    return diurnal_trace(column, shape, unit);
  }
  if (kind == "step") {
    StepShape shape;
    if (source.rows()) shape.rows = source.rows() + source.first_row();
    if (source.has_step_seconds()) shape.step_seconds = source.step_seconds();
    if (source.has_before()) shape.before = source.before();
    if (source.has_after()) shape.after = source.after();
    if (source.has_step_row()) shape.step_row = source.step_row();
    return step_trace(column, shape, unit);
  }
  if (kind == "flash_crowd") {
    FlashCrowdShape shape;
    if (source.rows()) shape.rows = source.rows() + source.first_row();
    if (source.has_step_seconds()) shape.step_seconds = source.step_seconds();
    if (source.has_base()) shape.base = source.base();
    if (source.has_peak()) shape.peak = source.peak();
    if (source.has_start_row()) shape.start_row = source.start_row();
    if (source.has_ramp_rows()) shape.ramp_rows = source.ramp_rows();
    if (source.has_hold_rows()) shape.hold_rows = source.hold_rows();
    if (source.has_decay_rows()) shape.decay_rows = source.decay_rows();
    return flash_crowd_trace(column, shape, unit);
  }
  throw ConfigError(field + ".builtin", "abilene, nasa, diurnal, step or flash_crowd, got '" + kind + "'");
}

std::vector<PacketSizeShare> build_sizes(const config::Generator& g) {
  std::vector<PacketSizeShare> sizes;
  for (int i = 0; i < g.packet_sizes_size(); ++i) {
    const auto& s = g.packet_sizes(i);
    const std::string field = at("generator.packet_sizes", i);
    if (s.bytes() < kMinProbeFrameBytes || s.bytes() > 1514)
      throw ConfigError(field + ".bytes", "a frame length of 64..1514 bytes (without FCS), got " + std::to_string(s.bytes()));
    if (!(s.weight() > 0)) throw ConfigError(field + ".weight", "a positive weight");
    sizes.push_back({static_cast<uint16_t>(s.bytes()), s.weight()});
  }
  // IMIX 7:4:1, the classic mix of small, medium and full-size frames.
  if (sizes.empty()) sizes = {{64, 7}, {576, 4}, {1500, 1}};
  return sizes;
}

GeneratorPlan build_generator(const ReplayConfig& config, const PortSet& ports) {
  const auto& g = config.generator();
  GeneratorPlan plan;
  plan.port = require_sending_port(config, ports, g.port(), "generator.port");
  RateTrace trace = load_trace(g.trace(), "generator.trace");
  const auto& source = g.trace();
  if (source.first_row() >= trace.rows())
    throw ConfigError("generator.trace.first_row", "a row below " + std::to_string(trace.rows()));
  const std::size_t available = trace.rows() - source.first_row();
  const std::size_t stride = source.row_stride() > 1 ? source.row_stride() : 1;
  if (source.rows() > (available + stride - 1) / stride)
    throw ConfigError("generator.trace.rows", "at most " + std::to_string((available + stride - 1) / stride) +
                                                  " rows from first_row (every " + std::to_string(stride) + ")");
  trace = trace.slice(source.first_row(), available).every(source.row_stride());
  if (source.rows() > 0 && source.rows() < trace.rows()) trace = trace.slice(0, source.rows());
  plan.trace_label = trace.label;
  plan.unit = trace.unit;
  plan.slots = trace.rows();

  // Chains: the configured ones, else the listed columns, else every column.
  std::vector<std::size_t> columns;
  auto column_of = [&](const std::string& name, const std::string& field) {
    for (std::size_t c = 0; c < trace.columns.size(); ++c)
      if (trace.columns[c] == name) return c;
    std::string known;
    for (std::size_t c = 0; c < trace.columns.size() && c < 8; ++c) known += (c ? ", " : "") + trace.columns[c];
    throw ConfigError(field, "a column of the trace (" + known + (trace.columns.size() > 8 ? ", ..." : "") + "), got '" + name + "'");
  };
  plan.seed = g.seed() ? g.seed() : 1;
  const uint32_t default_flows = g.flows() ? g.flows() : 1024;
  const double default_zipf = g.has_zipf_exponent() ? g.zipf_exponent() : 1.0;
  if (g.zipf_exponent() < 0) throw ConfigError("generator.zipf_exponent", "an exponent >= 0 (0 = uniform)");
  std::vector<config::ReplayChain> chains(g.chains().begin(), g.chains().end());
  if (chains.empty()) {
    if (source.columns().empty())
      for (const auto& c : trace.columns) chains.emplace_back().set_column(c);
    else
      for (const auto& c : source.columns()) chains.emplace_back().set_column(c);
  }
  if (chains.size() > 65535) throw ConfigError("generator.chains", "at most 65535 chains");
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const auto& c = chains[i];
    const std::string field = g.chains().empty() ? "generator.trace.columns" : at("generator.chains", static_cast<int>(i));
    ChainTraffic t;
    t.name = c.column();
    columns.push_back(column_of(c.column(), g.chains().empty() ? field : field + ".column"));
    t.dst = parse_prefix(c.dst_prefix().empty() ? "10." + std::to_string((i + 1) % 256) + ".0.0/16" : c.dst_prefix(), field + ".dst_prefix");
    t.src = parse_prefix(c.src_prefix().empty() ? "172.16.0.0/12" : c.src_prefix(), field + ".src_prefix");
    t.flows = c.flows() ? c.flows() : default_flows;
    if (t.flows > (1u << 24)) throw ConfigError(field + ".flows", "at most 16777216 flows");
    t.zipf_exponent = c.has_zipf_exponent() ? c.zipf_exponent() : default_zipf;
    if (t.zipf_exponent < 0) throw ConfigError(field + ".zipf_exponent", "an exponent >= 0");
    if (c.dst_port() > 65535) throw ConfigError(field + ".dst_port", "a UDP port 0..65535");
    if (c.dst_port()) t.dst_port = static_cast<uint16_t>(c.dst_port());
    plan.chains.push_back(std::move(t));
  }
  plan.sizes = build_sizes(g);

  const auto& s = g.scale();
  auto positive = [](double value, double fallback, const std::string& field) {
    if (value < 0) throw ConfigError(field, "a positive number");
    return value > 0 ? value : fallback;
  };
  plan.scale.trace_step_seconds = positive(s.trace_step_seconds(), trace.step_seconds, "generator.scale.trace_step_seconds");
  plan.scale.slot_wall_seconds = positive(s.slot_wall_seconds(), 1, "generator.scale.slot_wall_seconds");
  plan.scale.mean_packet_bytes = positive(s.mean_packet_bytes(), plan.mean_packet_bytes(), "generator.scale.mean_packet_bytes");
  plan.scale.bytes_per_request = positive(s.bytes_per_request(), plan.scale.bytes_per_request, "generator.scale.bytes_per_request");
  plan.scale.volume_scale = positive(s.volume_scale(), 1, "generator.scale.volume_scale");
  for (std::size_t r = 0; r < plan.slots; ++r)
    for (std::size_t c : columns) {
      plan.trace_rates.push_back(trace.at(r, c));
      plan.target_pps.push_back(plan.scale.emulated_packets_per_s(trace.at(r, c), trace.unit));
    }
  return plan;
}

ReplayPlan build_plan(const ReplayConfig& config) {
  ReplayPlan plan;
  read_process_name(config.name().empty() ? "replay" : config.name(), plan.ports);
  for (int i = 0; i < config.ports_size(); ++i)
    if (config.ports(i).peer_sites_size())
      throw ConfigError(at("ports", i) + ".peer_sites", "no peer sites: nfv-replay sends plain packets, not NSH");
  read_ports(config.ports(), plan.ports);
  plan.ports.mempool_mbufs = 65535;
  read_mempool(config.mempool(), config.link_wait_ms(), plan.ports);

  if (config.has_generator() && config.has_pcap_replay())
    throw ConfigError("pcap_replay", "either generator or pcap_replay in one process, not both");
  if (config.has_generator()) plan.generator = build_generator(config, plan.ports);
  if (config.has_pcap_replay()) {
    const auto& r = config.pcap_replay();
    PcapReplayPlan p;
    p.port = require_sending_port(config, plan.ports, r.port(), "pcap_replay.port");
    if (r.file().empty()) throw ConfigError("pcap_replay.file", "the pcap file to replay");
    p.file = r.file();
    if (r.speed() < 0) throw ConfigError("pcap_replay.speed", "a speed-up factor > 0 (10 = ten times faster)");
    p.speed = r.speed() > 0 ? r.speed() : 1;
    p.loops = r.loops() ? r.loops() : 1;
    plan.pcap_replay = p;
  }
  if (config.has_sink()) {
    const auto& s = config.sink();
    SinkPlan sink;
    sink.port = require_port(plan.ports, s.port(), "sink.port");
    if (plan.ports.ports[sink.port].tx_only)
      throw ConfigError("sink.port", "a port that receives; '" + s.port() + "' only transmits");
    if (plan.generator && sink.port == plan.generator->port)
      throw ConfigError("sink.port", "a port other than the generator's");
    if (plan.generator && s.chains_size()) throw ConfigError("sink.chains", "nothing: the generator in this process names its chains");
    if (plan.generator)
      for (const auto& c : plan.generator->chains) sink.chain_names.push_back(c.name);
    else
      sink.chain_names.assign(s.chains().begin(), s.chains().end());
    if (s.slot_wall_seconds() < 0) throw ConfigError("sink.slot_wall_seconds", "a positive number of seconds");
    sink.slot_wall_seconds = plan.generator ? plan.generator->scale.slot_wall_seconds
                                            : (s.slot_wall_seconds() > 0 ? s.slot_wall_seconds() : 1);
    if (s.slot_histograms() > 0) sink.slot_histograms = s.slot_histograms();
    plan.sink = sink;
  }
  if (!plan.generator && !plan.pcap_replay && !plan.sink)
    throw ConfigError("generator", "at least one of generator, pcap_replay or sink");
  return plan;
}

}  // namespace

double GeneratorPlan::mean_packet_bytes() const {
  double weight = 0, bytes = 0;
  for (const auto& s : sizes) weight += s.weight, bytes += s.weight * s.bytes;
  return weight > 0 ? bytes / weight : 0;
}

ReplayPlan parse_replay_config(const std::string& text, const std::string& file_name) {
  ReplayConfig config;
  const YamlSource source = parse_yaml_message(text, file_name, config);
  try {
    return build_plan(config);
  } catch (const ConfigError& e) {
    throw std::runtime_error(source.locate(e.field(), e.expected()));
  }
}

ReplayPlan load_replay_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the replay configuration");
  std::stringstream text;
  text << in.rdbuf();
  return parse_replay_config(text.str(), path);
}

}  // namespace nfv
