#include "ops_console/analyzer/gate.hpp"

#include "core/http/problem.hpp"

#include <cmath>
#include <cstdio>

namespace ops_console::analyzer {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

// Spent today (UTC) by every pipeline run, plus what waiting and running jobs were estimated at.
constexpr std::string_view kDayTotal = R"sql(
  SELECT pg_advisory_xact_lock(hashtext('analyzer cost gate')) IS NULL,
    (SELECT coalesce(sum(cost), 0) FROM pipeline_executions
     WHERE started_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
    + (SELECT coalesce(sum(estimate), 0) FROM analysis_jobs WHERE status IN ('queued', 'running'))
)sql";

constexpr std::string_view kAudit = R"sql(
  INSERT INTO analyzer_cost_decisions (user_id, user_email, action, estimate, day_total, decision)
  VALUES ($1, $2, $3, $4::numeric, $5::numeric, $6)
)sql";

// Money in answers: rounded to a hundredth of a cent.
double money(double v) { return std::round(v * 10'000) / 10'000; }

}  // namespace

json GateResult::cost_json() const {
  json out = {{"estimate", money(estimate)}, {"dayTotal", money(day_total)}};
  if (warn) {
    const Thresholds limits;
    char text[160];
    std::snprintf(text, sizeof text, "today's model spend is %.2f: warnings from %.0f, requests refused from %.0f",
                  day_total, limits.warn_at, limits.block_at);
    out["warning"] = text;
  }
  return out;
}

awaitable<GateResult> pass_gate(core::db::Transaction& tx, const identity::User& user, std::string action,
                                double estimate, bool confirmed, const std::set<std::string>& override_users) {
  const auto rows = co_await tx.query(kDayTotal);
  GateInput in{.estimate = estimate,
               .day_total = rows.front().get<double>(1),
               .confirmed = confirmed,
               .override_user = override_users.contains(user.email)};
  GateResult result{.gate = decide(in), .estimate = estimate, .day_total = in.day_total, .warn = warns(in)};
  co_await tx.query(kAudit, user.id, user.email, action, estimate, in.day_total, std::string(gate_name(result.gate)));
  if (!refused(result.gate)) co_return result;
  co_await tx.commit();
  const Thresholds limits;
  if (result.gate == Gate::blocked)
    throw Problem(core::http::Status::too_many_requests, "daily-cost-limit",
                  "today's model spend has reached the daily limit; ask an administrator to raise or override it")
        .with_member("estimate", money(estimate))
        .with_member("dayTotal", money(in.day_total))
        .with_member("limit", limits.block_at);
  throw Problem(core::http::Status::conflict, "cost-confirmation-required",
                "this request is estimated above the confirmation threshold; send it again with confirmCost: true")
      .with_member("estimate", money(estimate))
      .with_member("threshold", limits.confirm_above)
      .with_member("dayTotal", money(in.day_total))
      .with_member("confirmField", "confirmCost");
}

}  // namespace ops_console::analyzer
