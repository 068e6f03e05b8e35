// Plan files: names to indices, default splits, then the plan validator.
#include "plan_file.h"

#include <map>
#include <stdexcept>
#include <tuple>

#include "plan.pb.h"
#include "yaml_message.h"

namespace nfv {
namespace {

std::string field(int i, const char* name) { return "pools[" + std::to_string(i) + "]." + name; }

Plan to_plan(const planfile::PlanFile& file, const YamlSource& source, const Topology& topology) {
  Plan plan;
  // Per (chain, hop): do its entries give splits, and how many instances in all.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<bool, double>> hops;
  for (int i = 0; i < file.pools_size(); ++i) {
    const planfile::PoolEntry& entry = file.pools(i);
    std::size_t chain = topology.chains.size();
    for (std::size_t c = 0; c < topology.chains.size(); ++c)
      if (topology.chains[c].name == entry.chain()) chain = c;
    if (chain == topology.chains.size())
      throw std::runtime_error(source.locate(field(i, "chain"), "a chain of topology " + topology.name + ", no '" +
                                                                    entry.chain() + "'"));
    const std::size_t hop_count = topology.chains[chain].vnfs.size();
    if (entry.hop() < 1 || entry.hop() > hop_count)
      throw std::runtime_error(source.locate(field(i, "hop"), "a hop of chain " + entry.chain() + ", 1.." +
                                                                  std::to_string(hop_count)));
    const auto site = topology.find_site(entry.site());
    if (!site) throw std::runtime_error(source.locate(field(i, "site"), "a site, no '" + entry.site() + "'"));
    if (entry.instances() < 0) throw std::runtime_error(source.locate(field(i, "instances"), "instances >= 0"));
    PoolPlan pool;
    pool.chain = static_cast<std::uint32_t>(chain);
    pool.hop = entry.hop() - 1;
    pool.site = static_cast<std::uint32_t>(*site);
    pool.instances = entry.instances();
    pool.split = entry.has_split() ? entry.split() : 0;
    auto& [given, instances] = hops[{pool.chain, pool.hop}];
    given = given || entry.has_split();
    instances += entry.instances();
    plan.pools.push_back(pool);
  }
  for (PoolPlan& pool : plan.pools) {
    const auto& [given, instances] = hops[{pool.chain, pool.hop}];
    if (!given) pool.split = instances > 0 ? pool.instances / instances : 0;
  }
  const auto problems = plan_problems(plan, topology);
  if (!problems.empty()) {
    std::string text = source.file + ": the plan is not valid:";
    for (const std::string& problem : problems) text += "\n  " + problem;
    throw std::runtime_error(text);
  }
  return plan;
}

}  // namespace

Plan parse_plan_file(const std::string& text, const std::string& file_name, const Topology& topology) {
  planfile::PlanFile file;
  const YamlSource source = parse_yaml_message(text, file_name, file);
  return to_plan(file, source, topology);
}

Plan load_plan_file(const std::string& path, const Topology& topology) {
  planfile::PlanFile file;
  const YamlSource source = load_yaml_message(path, file);
  return to_plan(file, source, topology);
}

}  // namespace nfv
