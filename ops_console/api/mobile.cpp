#include "ops_console/api/mobile.hpp"

#include "core/app/json_rows.hpp"
#include "ops_console/dashboard/cursor.hpp"
#include "ops_console/dashboard/list_query.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

using dashboard::Page;

// mobile_dashboard_json() (migration 0039) and accounting_finance_json() (migration 0013).
constexpr std::string_view kDashboard = "SELECT mobile_dashboard_json($1, $2::timestamptz, $3::text[])";
constexpr std::string_view kFinance = "SELECT accounting_finance_json($1, $2::timestamptz)";
// kiosk_wall_json() (migration 0034).
constexpr std::string_view kKioskWall = "SELECT kiosk_wall_json($1, $2::timestamptz)";

// The mobile display settings' scope of a ticket `t` (mobile_hidden_companies, migration 0020).
constexpr std::string_view kShownCompany =
    "EXISTS (SELECT 1 FROM companies c WHERE c.id = t.company_id) AND "
    "NOT EXISTS (SELECT 1 FROM mobile_hidden_companies h WHERE h.id = t.company_id)";

// The keyset condition and order on (coalesce(instant, '-infinity'), id), descending.
std::string keyset(core::db::Composed& st, const Page& page, std::string_view instant, std::string_view id,
                   std::string& where) {
  const std::string key = "coalesce(" + std::string(instant) + ", '-infinity'::timestamptz)";
  if (page.after)
    core::db::restrict(where, "(" + key + ", " + std::string(id) + ") < (" + st.bind(page.after->key()) +
                                  "::timestamptz, " + st.bind(page.after->id) + "::bigint)");
  return " ORDER BY " + key + " DESC, " + std::string(id) + " DESC LIMIT " + st.bind(page.limit + 1) + "::bigint";
}

// A list's statement and the page it reads.
struct PageQuery {
  core::db::Composed st;
  Page page;
};

// Runs a statement whose rows are (json text, instant as JSON writes it or null, id) and answers the page:
// {items, hasMore, nextCursor, limit}; one row beyond the limit is read to know hasMore.
awaitable<Response> answer_page(core::db::Pool& db, PageQuery q) {
  const Page& page = q.page;
  const auto rows = co_await db.execute(q.st.sql, std::move(q.st.params));
  json items = json::array();
  std::optional<dashboard::Cursor> next;
  const std::int64_t read = rows.size();
  const bool more = read > page.limit;
  for (int i = 0; i < std::min(read, page.limit); ++i) {
    items.push_back(json::parse(rows[i].text(0)));
    next = dashboard::cursor_after(rows[i].get<std::optional<std::string>>(1), rows[i].get<std::int64_t>(2));
  }
  co_return Response::json({{"items", std::move(items)},
                            {"hasMore", more},
                            {"nextCursor", more && next ? json(dashboard::encode_cursor(*next)) : json()},
                            {"limit", page.limit}});
}

// The mobile ticket row renders as mobile_ticket_json() (migration 0020).
PageQuery compose_tickets(const Request& req, const std::string& at) {
  const auto [statuses, priorities, queue, mine, search, page] = dashboard::read_ticket_list_query(req.query);

  using core::db::restrict;
  core::db::Composed st;
  std::string where;
  restrict(where, "t.deleted_at IS NULL");
  restrict(where, std::string(kShownCompany));
  restrict(where, "t.status = ANY (" + st.bind(statuses) + "::int[])");
  if (!priorities.empty()) restrict(where, "t.priority = ANY (" + st.bind(priorities) + "::int[])");
  if (queue) restrict(where, "t.queue_id = " + st.bind(*queue) + "::int");
  if (mine)  // the PSA resource with the user's address; none: nothing is theirs
    restrict(where,
             "t.assigned_resource_id IN (SELECT id FROM resources WHERE deleted_at IS NULL AND lower(email) = lower(" +
                 st.bind(identity::current_user(req).email) + "))");
  if (search) {
    const std::string pattern = st.bind(core::db::substring_pattern(*search));
    restrict(where, "(t.title ILIKE " + pattern + " OR t.ticket_number ILIKE " + pattern + ")");
  }
  const std::string order = keyset(st, page, "t.last_activity_date", "t.id", where);
  st.sql = "SELECT mobile_ticket_json(t, " + st.bind(at) +
           "::timestamptz)::text, to_json(t.last_activity_date) #>> '{}', t.id " + "FROM tickets t" + where + order;
  return {std::move(st), page};
}

// Each ticket's latest analysis (completed_at descending, nulls last, then id), through
// analysis_feed_json() (migration 0018): the twelve fields and nothing else.
PageQuery compose_feed(const Request& req) {
  const Page page = dashboard::read_page_query(req.query);

  core::db::Composed st;
  std::string where;
  core::db::restrict(where, "EXISTS (SELECT 1 FROM tickets t WHERE t.id = a.ticket_id AND t.deleted_at IS NULL AND " +
                                std::string(kShownCompany) + ")");
  core::db::restrict(where,
                     "NOT EXISTS (SELECT 1 FROM analyses b WHERE b.ticket_id = a.ticket_id AND "
                     "(coalesce(b.completed_at, '-infinity'::timestamptz), b.id) > "
                     "(coalesce(a.completed_at, '-infinity'::timestamptz), a.id))");
  const std::string order = keyset(st, page, "a.completed_at", "a.id", where);
  st.sql = "SELECT analysis_feed_json(a)::text, to_json(a.completed_at) #>> '{}', a.id FROM analyses a" + where + order;
  return {std::move(st), page};
}

}  // namespace

void install_mobile_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                           std::shared_ptr<integrations::Registry> registry, dashboard::Clock clock) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/mobile/dashboard", [&db, registry, clock](Request& req) -> awaitable<Response> {
    const auto disabled = co_await registry->disabled();
    co_return co_await core::app::json_document(db, kDashboard, identity::current_timezone(req), clock.at, disabled);
  });

  routes.get("/api/kiosk/wall", identity::Access::kiosk_view(), [&db, clock](Request& req) {
    return core::app::json_document(db, kKioskWall, identity::current_timezone(req), clock.at);
  });

  routes.get("/api/mobile/finance", [&db, clock](Request& req) {
    return core::app::json_document(db, kFinance, identity::current_timezone(req), clock.at);
  });

  routes.get("/api/mobile/tickets", [&db, clock](Request& req) -> awaitable<Response> {
    co_return co_await answer_page(db, compose_tickets(req, clock.at));
  });

  routes.get("/api/mobile/analyzer/feed",
             [&db](Request& req) -> awaitable<Response> { co_return co_await answer_page(db, compose_feed(req)); });
}

}  // namespace ops_console
