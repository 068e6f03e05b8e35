// Predictors by name: each registers itself from its own file, the RNN
// from its own library.
#include <stdexcept>

#include "predictor.h"

namespace nfv {
namespace {

struct Entry {
  std::string description;
  std::set<std::string> params;
  PredictorFactory factory;
};

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> entries;
  return entries;
}

}  // namespace

PredictorRegistration::PredictorRegistration(std::string name, std::string description, std::set<std::string> params,
                                             PredictorFactory factory) {
  registry()[std::move(name)] = Entry{std::move(description), std::move(params), std::move(factory)};
}

std::unique_ptr<Predictor> make_predictor(const std::string& name, const NamedParams& params,
                                          const PredictorContext& context) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [n, entry] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown predictor '" + name + "' (known: " + known + ")");
  }
  if (context.chain_names.empty()) throw std::invalid_argument("predictor " + name + ": no chains to forecast");
  const ParamReader reader("predictor " + name, params, it->second.params);
  return it->second.factory(reader, context);
}

std::map<std::string, std::string> predictor_names() {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : registry()) out[name] = entry.description;
  return out;
}

}  // namespace nfv
