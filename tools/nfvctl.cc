// nfvctl: the operator's CLI for a running pod, over its control API.
//
//   nfvctl [--addr HOST:PORT] [--token-file FILE] [--tls-cert F --tls-key F --tls-ca F] [--json] COMMAND ...
//     status                          sites, links, chains and their instance pools
//     telemetry [--watch [SECONDS]]   counters (refreshed every SECONDS with --watch)
//     health                          is it forwarding? (exit code 3 when not: a probe)
//     scale CHAIN HOP SITE N          run N instances of a hop at a site (a one-entry plan)
//     split CHAIN HOP SITE=SHARE...   share a hop's new flows between its sites
//     drain CHAIN HOP INSTANCE        drain one instance (keeps its flows until they end)
//     link FROM TO [--delay-ms X] [--jitter-ms X] [--loss P] [--bandwidth-mbps X]
//     policy show | policy set NAME [KEY=VALUE...]   to nfv-scaler (its control API)
//     vnf CHAIN HOP [--instance ID] REQUEST...   a request to a hop's VNFs (monitor: top; lb: backends, backend down|up ADDR:PORT)
//
// --addr defaults to $NFV_CONTROL or 127.0.0.1:9900. The token comes from
// $NFV_TOKEN or --token-file, never the command line (every user sees argv);
// the TLS files default to $NFV_TLS_CERT, $NFV_TLS_KEY, $NFV_TLS_CA.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "control_client.h"
#include "secret_checks.h"
#include "pod_stats_format.h"

namespace {

constexpr const char* kUsage = R"(usage: nfvctl [--addr HOST:PORT] [--token-file FILE] [--tls-cert FILE --tls-key FILE --tls-ca FILE] [--json] COMMAND ...
  status                          sites, links, chains and their instance pools
  telemetry [--watch [SECONDS]]   counters (refreshed every SECONDS with --watch)
  health                          is the pod forwarding? (exit code 3 when not)
  scale CHAIN HOP SITE N          run N instances of a hop at a site (a one-entry plan)
  split CHAIN HOP SITE=SHARE...   share a hop's new flows between its sites (e.g. A=0.7 B=0.3)
  drain CHAIN HOP INSTANCE        drain one instance (its flows stay until they end)
  link FROM TO [--delay-ms X] [--jitter-ms X] [--loss P] [--bandwidth-mbps X]
  vnf CHAIN HOP [--instance ID] REQUEST...  ask a hop's VNFs (monitor: top; lb: backends, backend down|up ADDR:PORT)
  policy show                     to nfv-scaler: the policy in force, slot, cost so far
  policy set NAME [KEY=VALUE...]  to nfv-scaler: switch policy at the next slot (static|threshold|online)
--addr defaults to $NFV_CONTROL or 127.0.0.1:9900. The token (needed to change
things) comes from $NFV_TOKEN or the first line of --token-file FILE, never the
command line. Over TLS (a control API off loopback), nfvctl presents --tls-cert
and --tls-key and checks the server against --tls-ca (or $NFV_TLS_CERT,
$NFV_TLS_KEY, $NFV_TLS_CA).
)";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "nfvctl: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

double number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end) usage_error(flag + ": expected a number, got '" + text + "'");
  return v;
}

uint32_t count(const std::string& what, const std::string& text) {
  const double v = number(what, text);
  if (v < 0 || v != static_cast<uint32_t>(v)) usage_error(what + ": expected a non-negative integer, got '" + text + "'");
  return static_cast<uint32_t>(v);
}

std::string format_status(const nfv::control::Status& s) {
  std::string out = fmt::format("pod {} up {:.1f} s, routing snapshot {}\n", s.pod(), s.uptime_s(), s.snapshot_version());
  out += "sites:";
  for (const auto& site : s.sites()) out += fmt::format(" {}{}", site.name(), site.hosted() ? "*" : "");
  out += "   (* hosted here)\n";
  for (const auto& l : s.links())
    out += fmt::format("link {:>6} -> {:<6} {:8.3f} ms  jitter {:.3f} ms  loss {:.4f}  {}{}\n", l.from(), l.to(), l.delay_ms(),
                       l.jitter_ms(), l.loss(), l.bandwidth_mbps() > 0 ? fmt::format("{} Mbit/s", l.bandwidth_mbps()) : "unlimited",
                       l.inter_pod() ? "  (to another pod)" : "");
  for (const auto& c : s.chains()) {
    out += fmt::format("chain {} (spi {}) {} -> {}\n", c.name(), c.id(), c.ingress_site(), c.egress_site());
    for (const auto& h : c.hops())
      for (const auto& p : h.placements())
        out += fmt::format("  hop {} {:<8} @{:<8} {:>2} active {:>2} draining (max {}) share {:.2f}{}{}\n", h.hop(), h.vnf(), p.site(),
                           p.active_instances(), p.draining_instances(), h.max_instances(), p.share(),
                           h.service_rate_pps() > 0 ? fmt::format(", {:.0f} pps each", h.service_rate_pps()) : "",
                           p.here() ? "" : " (another pod)");
  }
  return out;
}

// The token: the file's first line (trailing whitespace dropped).
std::string token_from_file(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token)) usage_error("--token-file: cannot read a token from '" + path + "'");
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  if (token.empty()) usage_error("--token-file: '" + path + "' starts with an empty line");
  if (const std::string warning = nfv::readable_secret_warning(path); !warning.empty())
    std::fprintf(stderr, "nfvctl: warning: %s\n", warning.c_str());
  return token;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string address = std::getenv("NFV_CONTROL") ? std::getenv("NFV_CONTROL") : "127.0.0.1:9900";
  auto env = [](const char* name) { return std::string(std::getenv(name) ? std::getenv(name) : ""); };
  std::string token = env("NFV_TOKEN");
  nfv::TlsFiles tls{env("NFV_TLS_CERT"), env("NFV_TLS_KEY"), env("NFV_TLS_CA")};
  bool json = false;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (args[i] == "--addr" && i + 1 < args.size()) address = args[++i];
    else if (args[i] == "--token" || args[i].rfind("--token=", 0) == 0)
      usage_error("--token: a token on the command line is visible to every user of this host (ps, shell history); "
                  "set NFV_TOKEN or pass --token-file FILE");
    else if (args[i] == "--token-file" && i + 1 < args.size()) token = token_from_file(args[++i]);
    else if (args[i] == "--tls-cert" && i + 1 < args.size()) tls.cert = args[++i];
    else if (args[i] == "--tls-key" && i + 1 < args.size()) tls.key = args[++i];
    else if (args[i] == "--tls-ca" && i + 1 < args.size()) tls.ca = args[++i];
    else if (args[i] == "--json") json = true;
    else rest.push_back(args[i]);
  }
  if (rest.empty()) usage_error("a command is needed");
  const std::string command = rest[0];

  nfv::control::Request request;
  double watch_s = 0;
  if (command == "status") {
    request.mutable_status();
  } else if (command == "health") {
    request.mutable_health();
  } else if (command == "telemetry") {
    request.mutable_telemetry();
    if (rest.size() > 1 && rest[1] == "--watch") watch_s = rest.size() > 2 ? number("--watch", rest[2]) : 1.0;
  } else if (command == "scale") {
    if (rest.size() != 5) usage_error("scale CHAIN HOP SITE N");
    auto* hop = request.mutable_apply_plan()->add_hops();
    hop->set_chain(rest[1]);
    hop->set_hop(count("HOP", rest[2]));
    hop->set_site(rest[3]);
    hop->set_instances(count("N", rest[4]));
  } else if (command == "split") {
    if (rest.size() < 4) usage_error("split CHAIN HOP SITE=SHARE...");
    auto* split = request.mutable_apply_plan()->add_splits();
    split->set_chain(rest[1]);
    split->set_hop(count("HOP", rest[2]));
    for (std::size_t i = 3; i < rest.size(); ++i) {
      const auto eq = rest[i].find('=');
      if (eq == std::string::npos) usage_error("split: expected SITE=SHARE, got '" + rest[i] + "'");
      auto* share = split->add_shares();
      share->set_site(rest[i].substr(0, eq));
      share->set_share(number("SHARE", rest[i].substr(eq + 1)));
    }
  } else if (command == "drain") {
    if (rest.size() != 4) usage_error("drain CHAIN HOP INSTANCE");
    auto* drain = request.mutable_drain();
    drain->set_chain(rest[1]);
    drain->set_hop(count("HOP", rest[2]));
    drain->set_instance_id(count("INSTANCE", rest[3]));
  } else if (command == "link") {
    if (rest.size() < 3) usage_error("link FROM TO [options]");
    auto* link = request.mutable_set_link();
    link->set_from(rest[1]);
    link->set_to(rest[2]);
    for (std::size_t i = 3; i + 1 < rest.size(); i += 2) {
      const double v = number(rest[i], rest[i + 1]);
      if (rest[i] == "--delay-ms") link->set_delay_ms(v);
      else if (rest[i] == "--jitter-ms") link->set_jitter_ms(v);
      else if (rest[i] == "--loss") link->set_loss(v);
      else if (rest[i] == "--bandwidth-mbps") link->set_bandwidth_mbps(v);
      else usage_error("unknown link option " + rest[i]);
    }
  } else if (command == "vnf") {
    if (rest.size() < 4) usage_error("vnf CHAIN HOP [--instance ID] REQUEST...");
    auto* vnf = request.mutable_vnf();
    vnf->set_chain(rest[1]);
    vnf->set_hop(count("HOP", rest[2]));
    std::size_t i = 3;
    if (rest[i] == "--instance" && i + 2 < rest.size()) {
      vnf->set_instance_id(count("ID", rest[i + 1]));
      i += 2;
    }
    std::string text;
    for (; i < rest.size(); ++i) text += (text.empty() ? "" : " ") + rest[i];
    vnf->set_request(text);
  } else if (command == "policy") {
    if (rest.size() >= 2 && rest[1] == "show") {
      request.mutable_scaler_status();
    } else if (rest.size() >= 3 && rest[1] == "set") {
      auto* choice = request.mutable_set_policy();
      choice->set_name(rest[2]);
      for (std::size_t i = 3; i < rest.size(); ++i) {
        const auto eq = rest[i].find('=');
        if (eq == std::string::npos || eq == 0) usage_error("policy set: expected KEY=VALUE, got '" + rest[i] + "'");
        (*choice->mutable_params())[rest[i].substr(0, eq)] = rest[i].substr(eq + 1);
      }
    } else {
      usage_error("policy show | policy set NAME [KEY=VALUE...]");
    }
  } else {
    usage_error("unknown command '" + command + "'");
  }

  try {
    nfv::ControlClient client(address, token, tls, "--tls");
    for (;;) {
      const auto response = client.call(request);
      if (!response.ok()) {
        std::fprintf(stderr, "nfvctl: %s: %s\n", command.c_str(), response.error().c_str());
        return 1;
      }
      if (watch_s > 0) std::fputs("\033[H\033[2J", stdout);
      if (json) std::puts(nfv::message_json(response).c_str());
      else if (response.has_status()) std::fputs(format_status(response.status()).c_str(), stdout);
      else if (response.has_telemetry()) std::fputs(nfv::format_pod_stats(response.telemetry()).c_str(), stdout);
      else if (response.has_vnf())
        for (const auto& i : response.vnf().instances()) std::printf("instance %u @%s\n%s", i.instance_id(), i.site().c_str(), i.reply().c_str());
      else if (response.has_scaler()) {
        const auto& sc = response.scaler();
        std::string params;
        for (const auto& [key, value] : sc.policy().params()) params += " " + key + "=" + value;
        std::printf("scaler %s (%s backend%s): policy %s%s, next slot %lu, %lu instances, cost so far %.2f\n",
                    sc.name().c_str(), sc.backend().c_str(), sc.shadow() ? ", shadow" : "", sc.policy().name().c_str(),
                    params.c_str(), static_cast<unsigned long>(sc.slot()), static_cast<unsigned long>(sc.instances()),
                    sc.cost_so_far().total());
        if (sc.has_pending_policy()) std::printf("switching to %s at the next slot\n", sc.pending_policy().name().c_str());
        if (!sc.last_reason().empty()) std::printf("last decision: %s\n", sc.last_reason().c_str());
        if (!sc.last_error().empty()) std::printf("last error: %s\n", sc.last_error().c_str());
      } else if (response.has_health())
        std::printf("%s: %s, %u worker(s), up %.1f s, routing snapshot %lu\n", address.c_str(),
                    response.health().forwarding() ? "forwarding" : "NOT forwarding", response.health().workers(),
                    response.health().uptime_s(), static_cast<unsigned long>(response.health().snapshot_version()));
      else if (request.has_set_policy()) std::printf("ok: policy %s from the next slot\n", request.set_policy().name().c_str());
      else std::printf("ok (routing snapshot %lu)\n", static_cast<unsigned long>(response.snapshot_version()));
      std::fflush(stdout);
      // Probes (Kubernetes readiness and liveness) read the answer from the exit code.
      if (response.has_health() && !response.health().forwarding()) return 3;
      if (watch_s <= 0) return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(watch_s * 1000)));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfvctl: %s\n", e.what());
    return 1;
  }
}
