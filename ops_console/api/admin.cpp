#include "ops_console/api/admin.hpp"

#include "core/app/json_rows.hpp"
#include "core/db/statement.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

#include <set>

namespace ops_console {

using identity::Access;

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;
using nlohmann::json;

namespace {

// --- company scope: a company renders as company_scope_json() (migration 0004) ---

constexpr std::string_view kListScope = R"sql(
  SELECT json_build_object('items', coalesce(
    json_agg(company_scope_json(c, s) ORDER BY lower(c.company_name), c.id), '[]'::json))
  FROM companies c LEFT JOIN company_scope s ON s.company_id = c.id
  WHERE c.deleted_at IS NULL
)sql";

constexpr std::string_view kSetScope = R"sql(
  WITH company AS (SELECT id FROM companies WHERE id = $1 AND deleted_at IS NULL),
  saved AS (
    INSERT INTO company_scope AS s (company_id, in_scope, note, updated_by)
    SELECT id, $2, $3, $4 FROM company
    ON CONFLICT (company_id) DO UPDATE
      SET in_scope = EXCLUDED.in_scope, note = EXCLUDED.note, updated_by = EXCLUDED.updated_by, updated_at = now()
    RETURNING s.*)
  SELECT company_scope_json(c, saved) FROM companies c JOIN saved ON saved.company_id = c.id
)sql";

const core::json::StringRule kNote{.max_length = 500};

// A PSA id in a path or a query: digits only, within bigint. parse_int64 refuses spaces, '+' and
// fractions; only its '-' is left to refuse here.
std::optional<std::int64_t> digits_id(std::string_view text) {
  if (!text.empty() && text.front() == '-') return std::nullopt;
  return core::parse_int64(text);
}

// --- display settings ---

const std::vector<std::string> kDisplayKeys = {
    "kiosk_company_category_ids",  "kiosk_excluded_company_ids",  "kiosk_included_classification_ids",
    "mobile_company_category_ids", "mobile_excluded_company_ids", "mobile_included_classification_ids"};

constexpr std::string_view kDisplaySettings =
    "SELECT coalesce(json_object_agg(key, value ORDER BY key), '{}'::json) FROM display_settings";

constexpr std::string_view kSetDisplaySetting = R"sql(
  INSERT INTO display_settings (key, value, updated_by) VALUES ($1, $2::jsonb, $3)
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = now()
)sql";

// --- pipeline executions ---

// Newest first. A run fell back when its output is an object with the key user_route_fallback.
// GET /api/admin/pipeline-executions, composed from the filters present (core/db/statement.hpp).
struct ExecutionFilter {
  std::optional<std::int64_t> pipeline_id;
  bool fallbacks_only = false;
  std::int64_t limit = 0;
};

// $1 is the limit; the rows are those of the page that compose_executions() appends.
constexpr std::string_view kExecutionsJson = R"sql(
  SELECT json_build_object('limit', $1::integer, 'items', coalesce(json_agg(json_build_object(
      'id', e.id,
      'pipeline_id', e.pipeline_id,
      'ticket_id', e.ticket_id,
      'status', e.status,
      'started_at', e.started_at,
      'completed_at', e.completed_at,
      'duration_ms', round(extract(epoch FROM e.completed_at - e.started_at) * 1000)::bigint,
      'has_fallback', e.has_fallback,
      'error', e.error,
      'output_data', e.output_data) ORDER BY e.started_at DESC, e.id DESC), '[]'::json))
  FROM (SELECT p.*, )sql";

constexpr std::string_view kHasFallback =
    "coalesce(jsonb_typeof(p.output_data) = 'object' AND p.output_data ? 'user_route_fallback', false)";

core::db::Composed compose_executions(const ExecutionFilter& f) {
  core::db::Composed st;
  const std::string limit = st.bind(f.limit);  // $1
  std::string where;
  if (f.pipeline_id) core::db::restrict(where, "p.pipeline_id = " + st.bind(*f.pipeline_id));
  if (f.fallbacks_only) core::db::restrict(where, std::string(kHasFallback));
  st.sql = std::string(kExecutionsJson) + std::string(kHasFallback) + " AS has_fallback FROM pipeline_executions p" +
           where + " ORDER BY p.started_at DESC, p.id DESC LIMIT " + limit + ") e";
  return st;
}

inline constexpr std::int64_t kDefaultExecutions = 100;
inline constexpr std::int64_t kMaxExecutions = 500;

}  // namespace

void install_admin_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/admin/company-scope", Access::admin(),
             [&db](Request&) { return core::app::json_document(db, kListScope); });

  routes.patch("/api/admin/company-scope/{companyId}", Access::admin(), [&db](Request& req) {
    const auto company_id = digits_id(req.param("companyId"));
    if (!company_id) throw Problem::invalid_field("companyId", "must be a company id (digits only)");
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const bool in_scope = in.boolean("in_scope");
    auto note = in.optional_string("note", kNote);
    in.finish();
    return core::app::json_resource(db, {.missing = Problem::not_found("no company " + std::to_string(*company_id))},
                                    kSetScope, *company_id, in_scope, std::move(note), current_user(req).email);
  });

  routes.get("/api/admin/display-settings", Access::admin(),
             [&db](Request&) { return core::app::json_document(db, kDisplaySettings); });

  routes.post("/api/admin/display-settings", Access::admin(), [&db](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    std::vector<std::pair<std::string, std::string>> changes;  // key → JSON array text
    for (const auto& key : kDisplayKeys) {
      if (!in.has(key)) continue;
      const auto ids = in.integers(key, {.min = 0}, 10'000, true);
      const std::set<std::int64_t> unique(ids.begin(), ids.end());
      changes.emplace_back(key, json(unique).dump());
    }
    in.finish();
    if (changes.empty())
      throw Problem::bad_request("the body names none of the settings: " + core::join(kDisplayKeys, ", "));
    auto tx = co_await db.begin();
    for (auto& [key, value] : changes) co_await tx.query(kSetDisplaySetting, key, value, current_user(req).email);
    const auto rows = co_await tx.query(kDisplaySettings);
    co_await tx.commit();
    co_return Response::json_text(std::string(rows.front().text(0)));
  });

  routes.get("/api/admin/pipeline-executions", Access::admin(), [&db](Request& req) {
    core::json::QueryReader in(req.query);
    ExecutionFilter f{.fallbacks_only = in.boolean("fallbacks_only", false)};
    if (const auto raw = req.query.get("pipeline_id")) {
      f.pipeline_id = digits_id(*raw);
      if (!f.pipeline_id) in.add("pipeline_id", "must be digits only");
    }
    f.limit = std::min(in.integer("limit", kDefaultExecutions, {.min = 1}), kMaxExecutions);
    in.finish();
    return core::app::json_document(db, compose_executions(f));
  });
}

}  // namespace ops_console
