#include "ops_console/api/accounting.hpp"

#include "core/http/cookies.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

// Finance renders as accounting_finance_json() (migration 0013), in the user's time zone.
constexpr std::string_view kSummary = "SELECT accounting_finance_json($1, now())";

// 403 while switched off (first), then 503 while the app is not configured.
awaitable<accounting::AccountingConnection*> require_accounting(
    integrations::Registry& registry, const std::shared_ptr<accounting::AccountingConnection>& connection) {
  co_await registry.require_enabled("accounting", "accounting");
  if (!connection)
    throw integrations::not_configured("the accounting app",
                                       {"ACCOUNTING_CLIENT_ID", "ACCOUNTING_CLIENT_SECRET", "ACCOUNTING_REDIRECT_URI"});
  co_return connection.get();
}

std::optional<std::string> text(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

std::string session_of(const Request& req) { return core::http::cookie(req, identity::kSessionCookie).value_or(""); }

// The consent page sends a browser back to the callback: a browser (it asks for HTML) is sent on
// to the web UI's accounting page with the outcome in the fragment's query; an API client gets
// the documented JSON.
bool wants_page(const Request& req) { return req.header("Accept").find("text/html") != std::string_view::npos; }

Response to_accounting_page(const std::string& query) {
  auto res = Response::empty(core::http::Status::see_other);
  res.headers.set(boost::beast::http::field::location, "/#/distributor/accounting?" + query);
  res.headers.set(boost::beast::http::field::cache_control, "no-store");
  return res;
}

// A refusal as the page's query: `error` the field it names (else the problem's code), `detail`
// its message.
std::string refusal_query(const Problem& p) {
  const bool field = !p.errors().empty();
  return "error=" + core::url_encode(field ? p.errors().front().field : p.code()) +
         "&detail=" + core::url_encode(field ? p.errors().front().message : p.detail());
}

}  // namespace

void install_accounting_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                               std::shared_ptr<integrations::Registry> registry,
                               std::shared_ptr<accounting::AccountingConnection> connection,
                               std::shared_ptr<accounting::AccountingSync> sync) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.post("/api/accounting/auth", Access::admin(), [registry, connection](Request& req) -> awaitable<Response> {
    auto* c = co_await require_accounting(*registry, connection);
    const std::string url = co_await c->begin(identity::current_user(req).id, session_of(req));
    co_return Response::json(
        {{"authorizeUrl", url}, {"expiresInSeconds", std::chrono::seconds(accounting::kStateLifetime).count()}});
  });

  routes.get("/api/accounting/callback", Access::admin(),
             [&db, registry, connection](Request& req) -> awaitable<Response> {
               const auto complete = [&]() -> awaitable<void> {
                 auto* c = co_await require_accounting(*registry, connection);
                 co_await c->complete(identity::current_user(req).id, session_of(req),
                                      {.state = text(req.query.get("state")),
                                       .code = text(req.query.get("code")),
                                       .error = text(req.query.get("error"))});
               };
               if (!wants_page(req)) {
                 co_await complete();
                 co_return Response::json(co_await accounting::connection_status(db, true));
               }
               std::optional<std::string> refused;
               try {
                 co_await complete();
               } catch (const Problem& p) {
                 refused = refusal_query(p);
               }
               co_return to_accounting_page(refused ? *refused : "connected=1");
             });

  routes.post("/api/accounting/sync", Access::admin(),
              [registry, connection, sync](Request& req) -> awaitable<Response> {
                auto* c = co_await require_accounting(*registry, connection);
                bool full = false;
                if (!core::trim(req.body).empty()) {
                  const auto body = core::json::parse_object(req.body);
                  core::json::BodyReader in(body);
                  full = in.optional_boolean("full").value_or(false);
                  in.finish();
                }
                co_await c->require_usable();
                if (!co_await sync->start(full)) throw Problem::conflict("an accounting sync is already under way");
                co_return Response::json({{"started", true}, {"full", full}}, core::http::Status::accepted);
              });

  routes.post("/api/accounting/disconnect", Access::admin(), [registry, connection](Request&) -> awaitable<Response> {
    auto* c = co_await require_accounting(*registry, connection);
    co_return Response::json(co_await c->disconnect());
  });

  routes.get("/api/accounting/status", [&db, connection, sync](Request&) -> awaitable<Response> {
    auto out = co_await accounting::connection_status(db, connection != nullptr);
    out["inProgress"] = sync ? co_await sync->running() : false;
    co_return Response::json(std::move(out));
  });

  routes.get("/api/accounting/summary", [&db](Request& req) -> awaitable<Response> {
    const std::string zone = identity::current_timezone(req);
    const auto rows = co_await db.query(kSummary, zone);
    co_return Response::json_text(std::string(rows.front().text(0)));
  });
}

}  // namespace ops_console
