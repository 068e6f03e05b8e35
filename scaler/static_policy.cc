// `static`: the plan of the configuration, every slot.
#include "policy.h"

namespace nfv {
namespace {

class StaticPolicy final : public Policy {
 public:
  explicit StaticPolicy(Plan plan) : plan_(std::move(plan)) {}
  std::string name() const override { return "static"; }
  Plan decide(const Observation&, const Forecast&) override { return plan_; }
  void reset() override {}

 private:
  Plan plan_;
};

}  // namespace

std::unique_ptr<Policy> make_static_policy(Plan plan) { return std::make_unique<StaticPolicy>(std::move(plan)); }

namespace {

const PolicyRegistration kStatic{
    "static", "the starting plan, every slot (instances=N, placement=ingress|path, or plan=FILE)", with_placement({}),
    [](const ParamReader& params, const PolicyContext& context) {
      return make_static_policy(placed_plan(params, context.model->topology()));
    }};

}  // namespace

}  // namespace nfv
