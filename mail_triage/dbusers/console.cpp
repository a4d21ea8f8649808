#include "mail_triage/dbusers/console.hpp"

#include "core/http/cookies.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/dbusers/roles.hpp"
#include "mail_triage/dbusers/views.hpp"

#include <memory>

namespace mail_triage::dbusers {

using boost::asio::awaitable;
using core::http::cookie;
using core::http::Request;
using core::http::Response;
using core::http::Status;

namespace {

constexpr std::string_view kSessionCookie = "dbusers_session";
constexpr std::string_view kLoginCookie = "dbusers_login";  // the sign-in form's double-submit token
constexpr std::size_t kMaxDescription = 500;

const core::auth::SessionTables kSessionTables{
    .sessions = "dbusers_console.sessions", .subject = "actor", .failures = "dbusers_console.login_failures"};

constexpr std::string_view kAuditSignIn =
    "INSERT INTO dbusers_console.audit (actor, action, address) VALUES ($1, $2, $3)";

constexpr std::string_view kUsers = R"sql(
  SELECT id, username, role_name, permission_level, coalesce(description, ''), is_active,
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), created_by,
         coalesce(to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), ''), coalesce(revoked_by, '')
  FROM db_api_users
  ORDER BY is_active DESC, created_at DESC
)sql";

struct Session {
  std::string token;
  std::string actor;
  std::string csrf() const { return core::sha256_hex("dbusers csrf:" + token); }
};

std::string form_value(const core::http::Query& form, std::string_view name) {
  return std::string(form.get(name).value_or(""));
}

// The users as the list shows them.
views::UserRow user_row(const core::db::Row& r) {
  return {.id = std::string(r.text(0)),
          .username = std::string(r.text(1)),
          .role_name = std::string(r.text(2)),
          .level = std::string(r.text(3)),
          .description = std::string(r.text(4)),
          .active = r.get<bool>(5),
          .created_at = std::string(r.text(6)),
          .created_by = std::string(r.text(7)),
          .revoked_at = std::string(r.text(8)),
          .revoked_by = std::string(r.text(9))};
}

class Console : public std::enable_shared_from_this<Console> {
 public:
  Console(core::db::Pool& db, ConsoleSettings settings)
      : db_(db), settings_(std::move(settings)), sessions_(db, kSessionTables, settings_.sessions) {}

  void install(core::http::Router& router) {
    auto self = shared_from_this();
    router.get("/dbusers/login",
               [self](Request& req) -> awaitable<Response> { co_return co_await self->login_form(req); });
    router.post("/dbusers/login", [self](Request& req) -> awaitable<Response> { co_return co_await self->login(req); });
    router.post("/dbusers/logout",
                [self](Request& req) -> awaitable<Response> { co_return co_await self->logout(req); });
    router.get("/dbusers", [self](Request& req) -> awaitable<Response> { co_return co_await self->list(req); });
    router.post("/dbusers/users",
                [self](Request& req) -> awaitable<Response> { co_return co_await self->create(req); });
    router.post("/dbusers/users/{id}/revoke",
                [self](Request& req) -> awaitable<Response> { co_return co_await self->revoke(req); });
  }

 private:
  // The live session whose token `req`'s cookie holds. Not a coroutine: the token is read now.
  awaitable<std::optional<Session>> session(const Request& req) { return session_of(cookie(req, kSessionCookie)); }

  awaitable<std::optional<Session>> session_of(std::optional<std::string> token) {
    const auto found = co_await sessions_.find(token);
    if (found.empty()) co_return std::nullopt;
    co_return Session{.token = *token, .actor = std::string(found.front().text(0))};
  }

  // The form's fields when its CSRF token is the session's; nullopt means 403.
  static std::optional<core::http::Query> checked_form(const Request& req, const std::string& expected) {
    auto form = core::http::parse_query(req.body);
    if (!form) return std::nullopt;
    const auto sent = form->get("csrf");
    if (!sent || expected.empty() || !core::constant_time_equals(*sent, expected)) return std::nullopt;
    return form;
  }

  awaitable<Response> login_form(Request& req) {
    const auto signed_in = co_await session(req);
    if (signed_in) co_return views::redirect("/dbusers");
    co_return fresh_login_page(req, Status::ok, "");
  }

  Response fresh_login_page(const Request& req, Status status, const std::string& error) {
    const std::string token = core::random_base64url(24);
    auto res = views::login_page(status, token, error);
    res.headers.set(
        "Set-Cookie",
        core::http::set_cookie(req, {.name = kLoginCookie, .value = token, .path = "/dbusers/login", .max_age = 3600}));
    return res;
  }

  awaitable<Response> login(Request& req) {
    const auto form = checked_form(req, cookie(req, kLoginCookie).value_or(""));
    if (!form) co_return views::forbidden_page();
    const std::string& address = req.remote_address;
    if (const auto refused = co_await sessions_.admit("", address)) {
      auto res = views::login_page(Status::too_many_requests, "",
                                   "Too many failed sign-ins from this address. Try again in " +
                                       std::to_string(settings_.sessions.failure_window.count()) + " minutes.");
      res.headers.set("Retry-After", std::to_string(refused->retry_after.count()));
      co_return res;
    }

    const std::string key = form_value(*form, "key");
    std::optional<std::string> matched;
    for (const auto& k : settings_.admin_keys)
      if (core::constant_time_equals(key, k) && !matched) matched = k;
    if (!matched) {
      co_await sessions_.failed("", address);
      co_await db_.query(kAuditSignIn, "unknown", "login_failed", address);
      core::log::warn("dbusers sign-in failed", {{"address", address}});
      co_return fresh_login_page(req, Status::forbidden, "That key is not valid.");
    }
    const std::string actor = "admin key " + core::sha256_hex(*matched).substr(0, 8);
    co_await sessions_.succeeded("", address);
    const std::string token = co_await sessions_.start(actor, address);
    co_await db_.query(kAuditSignIn, actor, "login", address);
    auto res = views::redirect("/dbusers");
    res.headers.insert("Set-Cookie",
                       core::http::set_cookie(req, {.name = kSessionCookie, .value = token, .path = "/dbusers"}));
    res.headers.insert(
        "Set-Cookie",
        core::http::set_cookie(req, {.name = kLoginCookie, .value = "", .path = "/dbusers/login", .max_age = 0}));
    co_return res;
  }

  awaitable<Response> logout(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return views::redirect("/dbusers/login");
    if (!checked_form(req, s->csrf())) co_return views::forbidden_page();
    co_await sessions_.end(s->token);
    co_await db_.query(kAuditSignIn, s->actor, "logout", req.remote_address);
    auto res = views::redirect("/dbusers/login");
    res.headers.set("Set-Cookie", core::http::set_cookie(
                                      req, {.name = kSessionCookie, .value = "", .path = "/dbusers", .max_age = 0}));
    co_return res;
  }

  // The list page, as `view` says, with the users as they are now.
  awaitable<Response> list_page(const Session& s, const views::ListView& view) {
    const auto found = co_await db_.query(kUsers);
    std::vector<views::UserRow> users;
    for (const auto& r : found) users.push_back(user_row(r));
    const views::Viewer viewer{.actor = s.actor, .csrf = s.csrf()};
    co_return views::list_page(viewer, users, view);
  }

  awaitable<Response> list(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return views::redirect("/dbusers/login");
    const views::ListView view;
    co_return co_await list_page(*s, view);
  }

  awaitable<Response> create(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return views::redirect("/dbusers/login");
    const auto form = checked_form(req, s->csrf());
    if (!form) co_return views::forbidden_page();
    views::CreateForm f{.username = form_value(*form, "username"),
                        .level = form_value(*form, "permission_level"),
                        .description = std::string(core::trim(form_value(*form, "description")))};
    std::string error;
    if (auto problem = username_problem(f.username)) error = "Username " + *problem + ".";
    const auto level = parse_level(f.level);
    if (!level)
      error += std::string(error.empty() ? "" : " ") + "Choose a permission level: read_only, modify or full.";
    if (f.description.size() > kMaxDescription)
      error += std::string(error.empty() ? "" : " ") + "The description may have at most 500 characters.";
    if (!error.empty()) {
      const views::ListView refused{.status = Status::bad_request, .error = error, .form = f};
      co_return co_await list_page(*s, refused);
    }
    try {
      NewUser user{.username = f.username,
                   .level = *level,
                   .description = f.description.empty() ? std::nullopt : std::optional(f.description),
                   .actor = s->actor};
      const auto created = co_await create_user(db_, std::move(user));
      co_return views::credentials_page(created, settings_.db_host, settings_.db_port);
    } catch (const DbUserError& e) {
      error = e.what();
    }
    const views::ListView refused{.status = Status::conflict, .error = error, .form = f};
    co_return co_await list_page(*s, refused);
  }

  awaitable<Response> revoke(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return views::redirect("/dbusers/login");
    if (!checked_form(req, s->csrf())) co_return views::forbidden_page();
    Status status = Status::ok;
    std::string notice, error;
    try {
      const std::string id(req.param("id"));
      co_await revoke_user(db_, id, s->actor);
      notice = "The user was revoked: its role is dropped and its sessions are ended.";
    } catch (const DbUserError& e) {
      status = e.kind == DbUserError::Kind::not_found ? Status::not_found : Status::conflict;
      error = e.what();
    }
    const views::ListView view{.status = status, .notice = notice, .error = error};
    co_return co_await list_page(*s, view);
  }

  core::db::Pool& db_;
  ConsoleSettings settings_;
  core::auth::SessionStore sessions_;
};

}  // namespace

ConsoleSettings read_console_settings(core::config::Reader& env, const std::vector<std::string>& api_keys) {
  ConsoleSettings s;
  s.admin_keys =
      env.secret_list("DBUSERS_ADMIN_KEYS", "keys that sign in to /dbusers, comma-separated (unset: the API_KEYS)");
  if (s.admin_keys.empty()) s.admin_keys = api_keys;
  s.db_host = env.string("DBUSERS_DB_HOST", "127.0.0.1", "database host shown with new credentials");
  s.db_port =
      static_cast<int>(env.integer("DBUSERS_DB_PORT", 5434, "database port shown with new credentials", {1, 65535}));
  s.sessions.idle = std::chrono::minutes(env.integer(
      "DBUSERS_SESSION_IDLE_MINUTES", 30, "a console session ends after this long without a request", {1, 1440}));
  s.sessions.lifetime = std::chrono::hours(
      env.integer("DBUSERS_SESSION_HOURS", 8, "a console session ends this long after sign-in", {1, 168}));
  s.sessions.slowdown.step = std::chrono::milliseconds(
      env.integer("DBUSERS_LOGIN_DELAY_MS", 1000,
                  "delay per repeated failed sign-in (from the third, at most five steps)", {0, 10'000}));
  return s;
}

void install_console_routes(core::app::Context& ctx, ConsoleSettings settings) {
  std::make_shared<Console>(ctx.db, std::move(settings))->install(ctx.router);
}

}  // namespace mail_triage::dbusers
