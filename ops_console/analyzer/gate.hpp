#pragma once
// The cost gate as requests meet it: the day's total read under a lock, the decision of cost.hpp,
// its audit row (analyzer_cost_decisions), and the refusal (README "Ticket analyzer"):
//
//   409 cost-confirmation-required  {estimate, threshold: 5, dayTotal, confirmField: "confirmCost"}
//   429 daily-cost-limit            {estimate, dayTotal, limit: 50}
//
// The gate runs in the caller's transaction, which holds a transaction-level advisory lock from
// the read of the total to its commit: two requests cannot both pass on the same total, because
// the first one's reservation (its queued jobs' estimates) is committed before the second reads.
#include "core/db/pool.hpp"
#include "ops_console/analyzer/cost.hpp"
#include "ops_console/identity/identity.hpp"

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace ops_console::analyzer {

struct GateResult {
  Gate gate = Gate::allowed;
  double estimate = 0;
  double day_total = 0;
  bool warn = false;

  // The answer's "cost" member: {estimate, dayTotal, warning?}.
  nlohmann::json cost_json() const;
};

// Decides and audits in `tx`. A refusal is committed (the audit row stays) and thrown as its problem.
boost::asio::awaitable<GateResult> pass_gate(core::db::Transaction& tx, const identity::User& user, std::string action,
                                             double estimate, bool confirmed,
                                             const std::set<std::string>& override_users);

}  // namespace ops_console::analyzer
