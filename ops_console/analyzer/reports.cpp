#include "ops_console/analyzer/reports.hpp"

#include "core/db/statement.hpp"
#include "core/log/log.hpp"
#include "core/util/secrets.hpp"
#include "ops_console/analyzer/pipeline.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace ops_console::analyzer {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr int kNarrativeTokens = 800;

// One distribution over `latest`: {key, label, count} by `key_sql`, most frequent first.
std::string distribution(const std::string& key_sql, const std::string& label_sql, const std::string& joins) {
  return "(SELECT coalesce(json_agg(json_build_object('key', k, 'label', l, 'count', n) ORDER BY n DESC, k), "
         "'[]'::json) FROM (SELECT " +
         key_sql + " AS k, " + label_sql + " AS l, count(*) AS n FROM latest x " + joins + " GROUP BY 1, 2) d)";
}

// The stored report renders as analyzer_report_json() (migration 0018).
constexpr std::string_view kStore = R"sql(
  INSERT INTO analyzer_reports (requested_by, period, company_id, distributions) VALUES ($1, $2, $3, $4::jsonb)
  RETURNING analyzer_report_json(analyzer_reports)
)sql";

constexpr std::string_view kDistributionsOf = "SELECT distributions FROM analyzer_reports WHERE id = $1";
constexpr std::string_view kFinish = R"sql(
  UPDATE analyzer_reports SET status = $2, narrative = $3, error = $4, completed_at = now() WHERE id = $1
)sql";
const json& narrative_schema() {
  static const json schema = {
      {"type", "object"},
      {"properties",
       {{"narrative", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4000}}},
        {"highlights", {{"type", "array"}, {"maxItems", 5}, {"items", {{"type", "string"}, {"maxLength", 300}}}}}}},
      {"required", {"narrative", "highlights"}},
      {"additionalProperties", false}};
  return schema;
}

awaitable<void> narrate(core::db::Pool& db, std::shared_ptr<core::llm::ChatClient> llm, Pricing pricing,
                        std::int64_t id) {
  const auto rows = co_await db.query(kDistributionsOf, id);
  if (rows.empty()) co_return;
  const std::string distributions(rows.front().text(0));
  const auto execution = co_await start_execution(db, kReportPipeline, std::nullopt, {{"reportId", id}});
  std::string error;
  json reply;
  try {
    const auto answer = co_await recorded_ask(
        db, *llm, pricing, execution, "narrate",
        {.messages = json::array(
             {{{"role", "system"},
               {"content",
                "You write the monthly service-desk review of a managed-services provider. From the distributions "
                "of analysed tickets (JSON, data only), write a short narrative for the team lead: what dominates, "
                "what stands out, what to look at. Answer with one JSON object."}},
              {{"role", "user"}, {"content", distributions}}}),
         .schema_name = "analyzer_report",
         .schema = narrative_schema(),
         .max_tokens = kNarrativeTokens});
    reply = answer.value;
  } catch (const std::exception& e) {
    error = core::secrets::quote(e.what());  // the model's words, stored: masked, bounded
  }
  std::string narrative;
  if (error.empty()) {
    narrative = reply["narrative"].get<std::string>();
    const json& highlights = reply["highlights"];
    for (const auto& h : highlights) narrative += "\n- " + h.get<std::string>();
  }
  const bool ok = error.empty();
  co_await db.query(kFinish, id, ok ? "succeeded" : "failed", ok ? std::optional<std::string>(narrative) : std::nullopt,
                    ok ? std::nullopt : std::optional<std::string>(error));
  co_await finish_execution(db, execution, ok ? std::nullopt : std::optional<std::string>(error));
}

// A coroutine function, not a lambda: its arguments live in its frame.
awaitable<void> narrate_logged(core::db::Pool& db, std::shared_ptr<core::llm::ChatClient> llm, Pricing pricing,
                               std::int64_t id) {
  try {
    co_await narrate(db, std::move(llm), pricing, id);
  } catch (const std::exception& e) {
    core::log::warn("analyzer report narrative failed", {{"report", id}, {"error", e.what()}});
  }
}

}  // namespace

awaitable<json> report_distributions(core::db::Pool& db, ReportScope scope) {
  core::db::Composed st;
  std::string where = " WHERE a.status = 'succeeded' AND t.deleted_at IS NULL";
  const std::string range = "calendar_period(" + st.bind(scope.period) + ", " + st.bind(scope.timezone) + ", now())";
  core::db::restrict(where, "t.create_date >= coalesce(lower(" + range + "), '-infinity')");
  core::db::restrict(where, "t.create_date < coalesce(upper(" + range + "), 'infinity')");
  if (scope.company_id) core::db::restrict(where, "t.company_id = " + st.bind(*scope.company_id));
  const std::string picklist = "LEFT JOIN psa_picklists p ON p.entity = 'Tickets' AND p.value = ";
  st.sql =
      "WITH latest AS (SELECT DISTINCT ON (a.ticket_id) a.category, t.issue_type, t.priority, t.company_id "
      "FROM analyses a JOIN tickets t ON t.id = a.ticket_id" +
      where +
      " ORDER BY a.ticket_id, a.completed_at DESC NULLS LAST, a.id DESC) "
      "SELECT json_build_object('tickets', (SELECT count(*) FROM latest), 'byCategory', " +
      distribution("coalesce(x.category, 'unknown')", "coalesce(x.category, 'unknown')", "") + ", 'byIssueType', " +
      distribution("x.issue_type::text", "p.label", picklist + "x.issue_type AND p.field = 'issueType'") +
      ", 'byPriority', " +
      distribution("x.priority::text", "p.label", picklist + "x.priority AND p.field = 'priority'") +
      ", 'byCompany', " +
      distribution("x.company_id::text", "c.company_name", "LEFT JOIN companies c ON c.id = x.company_id") + ")";
  const auto rows = co_await db.execute(st.sql, std::move(st.params));
  co_return json::parse(rows.front().text(0));
}

double narrative_estimate(const json& distributions, const Pricing& pricing) {
  const auto chars = static_cast<std::int64_t>(distributions.dump().size());
  return pricing.cost(chars / 4 + 300, kNarrativeTokens);
}

awaitable<json> store_report(core::db::Transaction& tx, std::int64_t user, const ReportScope& scope,
                             const json& distributions) {
  const auto rows = co_await tx.query(kStore, user, scope.period, scope.company_id, distributions);
  co_return json::parse(rows.front().text(0));
}

void narrate_later(boost::asio::any_io_executor executor, core::db::Pool& db,
                   std::shared_ptr<core::llm::ChatClient> llm, Pricing pricing, std::int64_t id) {
  boost::asio::co_spawn(executor, narrate_logged(db, std::move(llm), pricing, id), boost::asio::detached);
}

}  // namespace ops_console::analyzer
