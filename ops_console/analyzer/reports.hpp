#pragma once
// Aggregate reports (README "Ticket analyzer"): over a calendar period in the user's zone and an
// optional company, the distributions of the latest successful analysis per ticket (by category,
// issue type, priority, company) are stored at once with the report; the model's narrative is
// added in the background (pipeline_executions, pipeline_id 2, stage "narrate").
#include "core/db/pool.hpp"
#include "core/llm/chat.hpp"
#include "ops_console/analyzer/cost.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace ops_console::analyzer {

struct ReportScope {
  std::string period;  // one of calendar_period()'s (migration 0018)
  std::string timezone;
  std::optional<std::int64_t> company_id;
};

// {tickets, byCategory, byIssueType, byPriority, byCompany}: each a list of {key, label, count}.
boost::asio::awaitable<nlohmann::json> report_distributions(core::db::Pool& db, ReportScope scope);
// The narrative's estimated cost, from the size of the distributions.
double narrative_estimate(const nlohmann::json& distributions, const Pricing& pricing);
// Stores a pending report; returns analyzer_report_json() (migration 0018).
boost::asio::awaitable<nlohmann::json> store_report(core::db::Transaction& tx, std::int64_t user,
                                                    const ReportScope& scope, const nlohmann::json& distributions);

// Writes the narrative of report `id` (from its stored distributions), in the background.
void narrate_later(boost::asio::any_io_executor executor, core::db::Pool& db,
                   std::shared_ptr<core::llm::ChatClient> llm, Pricing pricing, std::int64_t id);

}  // namespace ops_console::analyzer
