#include "ops_console/analyzer/cost.hpp"

namespace ops_console::analyzer {

std::string_view gate_name(Gate gate) {
  switch (gate) {
    case Gate::allowed:
      return "allowed";
    case Gate::warned:
      return "warned";
    case Gate::confirmation_required:
      return "confirmation_required";
    case Gate::confirmed:
      return "confirmed";
    case Gate::blocked:
      return "blocked";
    case Gate::overridden:
      return "overridden";
  }
  return "allowed";
}

Gate decide(const GateInput& in, const Thresholds& limits) {
  const bool over_limit = in.day_total >= limits.block_at;
  if (over_limit && !in.override_user) return Gate::blocked;
  const bool needs_confirmation = in.estimate > limits.confirm_above;
  if (needs_confirmation && !in.confirmed) return Gate::confirmation_required;
  if (over_limit) return Gate::overridden;
  if (needs_confirmation) return Gate::confirmed;
  return warns(in, limits) ? Gate::warned : Gate::allowed;
}

}  // namespace ops_console::analyzer
