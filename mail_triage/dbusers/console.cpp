#include "mail_triage/dbusers/console.hpp"

#include "core/http/cookies.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/dbusers/roles.hpp"

#include <memory>

namespace mail_triage::dbusers {

using boost::asio::awaitable;
using core::html_escape;
using core::http::cookie;
using core::http::Request;
using core::http::Response;
using core::http::Status;

namespace {

constexpr std::string_view kSessionCookie = "dbusers_session";
constexpr std::string_view kLoginCookie = "dbusers_login";  // the sign-in form's double-submit token
constexpr std::size_t kMaxDescription = 500;

const core::auth::SessionTables kSessionTables{.sessions = "dbusers_console.sessions",
                                               .subject = "actor",
                                               .failures = "dbusers_console.login_failures",
                                               .lookup = "SELECT subject FROM live"};

constexpr std::string_view kAudit = "INSERT INTO dbusers_console.audit (actor, action, address) VALUES ($1, $2, $3)";

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

const char* kStyle = R"css(
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; color: #1d2733; }
  h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #d8dee6; vertical-align: top; }
  th { background: #f3f5f8; } .inactive td { color: #7a8693; }
  form.inline { display: inline; } label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
  input[type=text], input[type=password], select, textarea { width: 24rem; max-width: 100%; padding: .35rem; font: inherit; }
  button { padding: .4rem .9rem; font: inherit; cursor: pointer; }
  .error { background: #fde8e8; border: 1px solid #e0a4a4; padding: .6rem; } .notice { background: #e6f4ea; border: 1px solid #9fd1ad; padding: .6rem; }
  .secret { font-family: ui-monospace, monospace; background: #fff8d6; padding: .1rem .3rem; }
  dl { display: grid; grid-template-columns: max-content auto; gap: .4rem 1rem; } dt { font-weight: 600; }
  header { display: flex; justify-content: space-between; align-items: baseline; }
)css";

Response page(Status status, std::string_view title, const std::string& body) {
  auto res = Response::text(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>" +
          html_escape(title) + " · mail-triage</title><style>" + kStyle + "</style></head><body>\n" + body +
          "\n</body></html>\n",
      status, "text/html; charset=utf-8");
  res.headers.set("Cache-Control", "no-store");
  res.headers.set("Content-Security-Policy",
                  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  res.headers.set("X-Frame-Options", "DENY");
  res.headers.set("Referrer-Policy", "no-referrer");
  return res;
}

Response redirect(std::string location) {
  auto res = Response::empty(Status::see_other);
  res.headers.set("Location", std::move(location));
  res.headers.set("Cache-Control", "no-store");
  return res;
}

std::string message(std::string_view css, const std::string& text) {
  return text.empty() ? "" : "<p class=\"" + std::string(css) + "\" role=\"alert\">" + html_escape(text) + "</p>\n";
}

std::string hidden_csrf(const std::string& token) {
  return "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(token) + "\">";
}

Response login_page(Status status, const std::string& form_token, const std::string& error) {
  return page(status, "Sign in",
              "<h1>Database users</h1>\n<h2>Sign in</h2>\n" + message("error", error) +
                  "<form method=\"post\" action=\"/dbusers/login\">" + hidden_csrf(form_token) +
                  "<label for=\"key\">Admin key</label>"
                  "<input type=\"password\" id=\"key\" name=\"key\" autocomplete=\"current-password\" required>"
                  "<p><button type=\"submit\">Sign in</button></p></form>");
}

// The form values of a refused create, shown again.
struct CreateForm {
  std::string username, level = "read_only", description;
};

std::string create_form(const Session& s, const CreateForm& f) {
  std::string options;
  for (const char* level : {"read_only", "modify", "full"})
    options += std::string("<option value=\"") + level + "\"" + (f.level == level ? " selected" : "") + ">" + level +
               "</option>";
  return "<h2>Create a user</h2>\n<form method=\"post\" action=\"/dbusers/users\">" + hidden_csrf(s.csrf()) +
         "<label for=\"username\">Username</label>"
         "<input type=\"text\" id=\"username\" name=\"username\" value=\"" +
         html_escape(f.username) +
         "\" minlength=\"3\" maxlength=\"31\" pattern=\"[a-z0-9_]{3,31}\" required aria-describedby=\"username-help\">"
         "<small id=\"username-help\"> 3 to 31 lowercase letters, digits or underscores; the role is "
         "svc_&lt;username&gt;</small>"
         "<label for=\"permission_level\">Permission level</label><select id=\"permission_level\" "
         "name=\"permission_level\">" +
         options +
         "</select><label for=\"description\">Description (optional)</label>"
         "<textarea id=\"description\" name=\"description\" maxlength=\"500\" rows=\"2\">" +
         html_escape(f.description) + "</textarea><p><button type=\"submit\">Create user</button></p></form>\n";
}

// What the list page says besides the list. Callers name it before co_await (docs/conventions.md).
struct ListView {
  Status status = Status::ok;
  std::string notice, error;
  CreateForm form;
};

awaitable<Response> list_page(core::db::Pool& db, const Session& s, const ListView& view) {
  const auto users = co_await db.query(kUsers);
  std::string rows;
  for (const auto& u : users) {
    const bool active = u.get<bool>(5);
    std::string revoke = "<form class=\"inline\" method=\"post\" action=\"/dbusers/users/" + html_escape(u.text(0)) +
                         "/revoke\">" + hidden_csrf(s.csrf()) + "<button type=\"submit\" aria-label=\"Revoke " +
                         html_escape(u.text(1)) + "\">Revoke</button></form>";
    rows += std::string(active ? "<tr>" : "<tr class=\"inactive\">") + "<td>" + html_escape(u.text(1)) + "</td><td>" +
            html_escape(u.text(2)) + "</td><td>" + html_escape(u.text(3)) + "</td><td>" + html_escape(u.text(4)) +
            "</td><td>" + (active ? "active" : "revoked") + "</td><td>" + html_escape(u.text(6)) + "<br><small>" +
            html_escape(u.text(7)) + "</small></td><td>" + html_escape(u.text(8)) + "<br><small>" +
            html_escape(u.text(9)) + "</small></td><td>" + (active ? revoke : "") + "</td></tr>\n";
  }
  if (rows.empty()) rows = "<tr><td colspan=\"8\">No database users yet.</td></tr>\n";
  co_return page(view.status, "Database users",
                 "<header><h1>Database users</h1><form class=\"inline\" method=\"post\" action=\"/dbusers/logout\">" +
                     hidden_csrf(s.csrf()) + "<small>" + html_escape(s.actor) +
                     "</small> <button type=\"submit\">Sign out</button></form></header>\n" +
                     message("notice", view.notice) + message("error", view.error) +
                     "<table><thead><tr><th>Username</th><th>Role</th><th>Permission level</th><th>Description</th>"
                     "<th>State</th><th>Created</th><th>Revoked</th><th></th></tr></thead><tbody>\n" +
                     rows + "</tbody></table>\n" + create_form(s, view.form));
}

Response credentials_page(const CreatedUser& u, const ConsoleSettings& settings) {
  const std::string port = std::to_string(settings.db_port);
  const std::string url =
      "postgresql://" + u.role_name + ":" + u.password + "@" + settings.db_host + ":" + port + "/" + u.database;
  return page(
      Status::created, "Credentials",
      "<h1>Database users</h1>\n<h2>" + html_escape(u.role_name) +
          " was created</h2>\n"
          "<p class=\"notice\" role=\"alert\">Copy the password now: it is shown this once and stored nowhere.</p>\n"
          "<dl><dt>Host</dt><dd id=\"host\">" +
          html_escape(settings.db_host) + "</dd><dt>Port</dt><dd id=\"port\">" + port +
          "</dd><dt>Database</dt><dd id=\"database\">" + html_escape(u.database) +
          "</dd><dt>Username</dt><dd id=\"role\">" + html_escape(u.role_name) +
          "</dd><dt>Password</dt><dd><span class=\"secret\" id=\"password\">" + html_escape(u.password) +
          "</span></dd><dt>Connection string</dt><dd><span class=\"secret\" id=\"url\">" + html_escape(url) +
          "</span></dd><dt>Permission level</dt><dd>" + std::string(to_string(u.level)) +
          "</dd></dl>\n<p><a href=\"/dbusers\">Back to the list</a></p>");
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

  static Response forbidden() {
    return page(Status::forbidden, "Forbidden",
                "<h1>Database users</h1>\n" +
                    message("error", "This form has expired or did not come from this console. Nothing was changed.") +
                    "<p><a href=\"/dbusers\">Back to the console</a></p>");
  }

  awaitable<Response> login_form(Request& req) {
    const auto signed_in = co_await session(req);  // named: see docs/conventions.md on GCC 12
    if (signed_in) co_return redirect("/dbusers");
    co_return fresh_login_page(req, Status::ok, "");
  }

  Response fresh_login_page(const Request& req, Status status, const std::string& error) {
    const std::string token = core::random_base64url(24);
    auto res = login_page(status, token, error);
    res.headers.set(
        "Set-Cookie",
        core::http::set_cookie(req, {.name = kLoginCookie, .value = token, .path = "/dbusers/login", .max_age = 3600}));
    return res;
  }

  awaitable<Response> login(Request& req) {
    const auto form = checked_form(req, cookie(req, kLoginCookie).value_or(""));
    if (!form) co_return forbidden();
    const std::string& address = req.remote_address;
    if (const auto refused = co_await sessions_.admit("", address)) {
      auto res = login_page(Status::too_many_requests, "",
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
      co_await db_.query(kAudit, "unknown", "login_failed", address);
      core::log::warn("dbusers sign-in failed", {{"address", address}});
      co_return fresh_login_page(req, Status::forbidden, "That key is not valid.");
    }
    const std::string actor = "admin key " + core::sha256_hex(*matched).substr(0, 8);
    co_await sessions_.succeeded("", address);
    const std::string token = co_await sessions_.start(actor, address);
    co_await db_.query(kAudit, actor, "login", address);
    auto res = redirect("/dbusers");
    res.headers.insert("Set-Cookie",
                       core::http::set_cookie(req, {.name = kSessionCookie, .value = token, .path = "/dbusers"}));
    res.headers.insert(
        "Set-Cookie",
        core::http::set_cookie(req, {.name = kLoginCookie, .value = "", .path = "/dbusers/login", .max_age = 0}));
    co_return res;
  }

  awaitable<Response> logout(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return redirect("/dbusers/login");
    if (!checked_form(req, s->csrf())) co_return forbidden();
    co_await sessions_.end(s->token);
    co_await db_.query(kAudit, s->actor, "logout", req.remote_address);
    auto res = redirect("/dbusers/login");
    res.headers.set("Set-Cookie", core::http::set_cookie(
                                      req, {.name = kSessionCookie, .value = "", .path = "/dbusers", .max_age = 0}));
    co_return res;
  }

  awaitable<Response> list(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return redirect("/dbusers/login");
    const ListView view;
    co_return co_await list_page(db_, *s, view);
  }

  awaitable<Response> create(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return redirect("/dbusers/login");
    const auto form = checked_form(req, s->csrf());
    if (!form) co_return forbidden();
    CreateForm f{.username = form_value(*form, "username"),
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
      const ListView refused{.status = Status::bad_request, .error = error, .form = f};
      co_return co_await list_page(db_, *s, refused);
    }
    try {
      NewUser user{.username = f.username,
                   .level = *level,
                   .description = f.description.empty() ? std::nullopt : std::optional(f.description),
                   .actor = s->actor};
      const auto created = co_await create_user(db_, std::move(user));
      co_return credentials_page(created, settings_);
    } catch (const DbUserError& e) {
      error = e.what();
    }
    const ListView refused{.status = Status::conflict, .error = error, .form = f};
    co_return co_await list_page(db_, *s, refused);
  }

  awaitable<Response> revoke(Request& req) {
    const auto s = co_await session(req);
    if (!s) co_return redirect("/dbusers/login");
    if (!checked_form(req, s->csrf())) co_return forbidden();
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
    const ListView view{.status = status, .notice = notice, .error = error};
    co_return co_await list_page(db_, *s, view);
  }

  core::db::Pool& db_;
  ConsoleSettings settings_;
  core::auth::SessionStore sessions_;
};

}  // namespace

ConsoleSettings read_console_settings(core::config::Reader& env, const std::vector<std::string>& api_keys) {
  ConsoleSettings s;
  const std::string keys =
      env.secret("DBUSERS_ADMIN_KEYS", "keys that sign in to /dbusers, comma-separated (unset: the API_KEYS)");
  for (auto piece : core::split(keys, ','))  // views into `keys`, which must outlive the loop
    if (!core::trim(piece).empty()) s.admin_keys.emplace_back(core::trim(piece));
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
