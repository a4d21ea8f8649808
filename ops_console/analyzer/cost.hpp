#pragma once
// The analyzer's cost guards (spec "Ticket analyzer"), as pure rules: what a request is estimated
// to cost, and what the gate decides from the estimate and the day's total (in UTC).
//
//   estimate above 5            needs "confirmCost": true in the body, else 409 (README)
//   day total at or above 20    the answer carries a warning
//   day total at or above 50    refused (429) unless the user is in ANALYZER_DAILY_COST_OVERRIDE_USERS
//
// ops_console/analyzer/gate.hpp reads the day's total, applies these and audits each decision.
#include <cstdint>
#include <string_view>

namespace ops_console::analyzer {

// Currency units per million tokens (LLM_PRICE_INPUT_PER_MTOK, LLM_PRICE_OUTPUT_PER_MTOK).
struct Pricing {
  double input_per_mtok = 0.15;
  double output_per_mtok = 0.60;

  double cost(std::int64_t prompt_tokens, std::int64_t completion_tokens) const {
    return (static_cast<double>(prompt_tokens) * input_per_mtok +
            static_cast<double>(completion_tokens) * output_per_mtok) /
           1e6;
  }
};

struct Thresholds {
  double confirm_above = 5;  // an estimate above this needs confirmation
  double warn_at = 20;       // a day's total from this on warns
  double block_at = 50;      // a day's total from this on refuses
};

enum class Gate {
  allowed,                // under every threshold
  warned,                 // allowed, the day's total has reached the warning threshold
  confirmation_required,  // refused: the estimate is above the threshold and was not confirmed
  confirmed,              // allowed: the estimate is above the threshold and was confirmed
  blocked,                // refused: the day's total has reached the block threshold
  overridden,             // allowed past the block threshold: the user is on the override list
};

std::string_view gate_name(Gate gate);  // as stored in analyzer_cost_decisions.decision

struct GateInput {
  double estimate = 0;
  double day_total = 0;  // spent today (UTC) plus the estimates of jobs still waiting or running
  bool confirmed = false;
  bool override_user = false;
};

Gate decide(const GateInput& in, const Thresholds& limits = {});
inline bool refused(Gate gate) { return gate == Gate::confirmation_required || gate == Gate::blocked; }
// Whether an allowed answer carries the warning: the day's total has reached the warning level.
inline bool warns(const GateInput& in, const Thresholds& limits = {}) { return in.day_total >= limits.warn_at; }

}  // namespace ops_console::analyzer
