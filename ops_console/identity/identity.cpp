#include "ops_console/identity/identity.hpp"

#include "core/async/sleep.hpp"
#include "core/http/cookies.hpp"
#include "core/http/problem.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/password.hpp"

#include <nlohmann/json.hpp>

namespace ops_console::identity {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;

namespace {

constexpr std::string_view kUserColumns = R"sql(
  u.id, u.email, u.name, u.is_admin, u.theme, u.timezone,
  coalesce((SELECT json_agg(json_build_array(p.resource, p.action)) FROM user_permissions p WHERE p.user_id = u.id),
           '[]'::json)
)sql";

// Every authenticated request runs this, so the session row is rewritten at most once a minute
// (the idle limit is then precise to a minute) instead of on every request.
const std::string kUserBySession = R"sql(
  WITH s AS (
    SELECT user_id, last_seen_at FROM sessions
    WHERE token_hash = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(mins => $2::integer)),
  touched AS (
    UPDATE sessions SET last_seen_at = now()
    WHERE token_hash = $1 AND EXISTS (SELECT 1 FROM s WHERE s.last_seen_at < now() - interval '1 minute'))
  SELECT )sql" + std::string(kUserColumns) + " FROM users u JOIN s ON s.user_id = u.id";

const std::string kUserById = "SELECT " + std::string(kUserColumns) + " FROM users u WHERE u.id = $1";

constexpr std::string_view kCredentials = "SELECT id, password_hash FROM users WHERE email = $1";

constexpr std::string_view kRecentFailures = R"sql(
  SELECT (SELECT count(*) FROM login_failures WHERE email = $1 AND failed_at > now() - make_interval(mins => $3::integer)),
         (SELECT count(*) FROM login_failures WHERE address = $2 AND failed_at > now() - make_interval(mins => $3::integer))
)sql";

constexpr std::string_view kFailed = "INSERT INTO login_failures (email, address) VALUES ($1, $2)";

constexpr std::string_view kSucceeded = R"sql(
  DELETE FROM login_failures WHERE email = $1 OR failed_at < now() - interval '1 day'
)sql";

constexpr std::string_view kStartSession = R"sql(
  WITH swept AS (
    DELETE FROM sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(mins => $5::integer))
  INSERT INTO sessions (token_hash, user_id, address, expires_at)
  VALUES ($1, $2, $3, now() + make_interval(hours => $4::integer))
)sql";

constexpr std::string_view kEndSession = "DELETE FROM sessions WHERE token_hash = $1";

User user_from(const core::db::Row& r) {
  User u{.id = r.get<std::int64_t>(0),
         .email = r.get<std::string>(1),
         .name = r.get<std::string>(2),
         .is_admin = r.get<bool>(3),
         .theme = r.get<std::optional<std::string>>(4),
         .timezone = r.get<std::optional<std::string>>(5)};
  for (const auto& pair : nlohmann::json::parse(r.text(6))) u.permissions.emplace(pair[0], pair[1]);
  return u;
}

// A handler behind a session and a check of the user (which throws Problem 403).
core::http::Handler guarded(std::shared_ptr<Identity> identity, std::function<void(const User&)> check,
                            core::http::Handler handler) {
  return [identity = std::move(identity), check = std::move(check),
          handler = std::move(handler)](Request& req) -> awaitable<Response> {
    auto token = core::http::cookie(req, kSessionCookie);
    const auto user = co_await identity->user_of(std::move(token));
    if (!user) throw Problem::unauthorized("sign in first: no valid session");
    check(*user);
    req.set<User>(*user);
    co_return co_await handler(req);
  };
}

}  // namespace

IdentitySettings read_identity_settings(core::config::Reader& env) {
  IdentitySettings s;
  s.session_idle = std::chrono::minutes(
      env.integer("SESSION_IDLE_MINUTES", 30, "a session ends after this long without a request", {1, 1440}));
  s.session_lifetime = std::chrono::hours(
      env.integer("SESSION_MAX_HOURS", 12, "a session ends this long after sign-in", {1, 720}));
  s.slowdown.step = std::chrono::milliseconds(env.integer(
      "LOGIN_DELAY_MS", 1000, "delay per repeated failed sign-in of an account (from the third, at most five steps)",
      {0, 10'000}));
  return s;
}

awaitable<std::optional<User>> Identity::user_of(std::optional<std::string> token) {
  if (!token || token->empty() || token->size() > 100) co_return std::nullopt;  // no query without a cookie
  const std::string token_hash = core::sha256_hex(*token);
  const auto rows = co_await db_.query(kUserBySession, token_hash, static_cast<int>(settings_.session_idle.count()));
  if (rows.empty()) co_return std::nullopt;
  co_return user_from(rows.front());
}

awaitable<std::optional<User>> Identity::user_by_id(std::int64_t id) {
  const auto rows = co_await db_.query(kUserById, id);
  if (rows.empty()) co_return std::nullopt;
  co_return user_from(rows.front());
}

awaitable<Identity::SignIn> Identity::sign_in(std::string email, std::string password, std::string address) {
  email = core::to_lower(core::trim(email));
  const auto recent = co_await db_.query(kRecentFailures, email, address,
                                         static_cast<int>(settings_.failure_window.count()));
  const auto by_account = recent.front().get<std::int64_t>(0), by_address = recent.front().get<std::int64_t>(1);
  if (by_account >= settings_.refuse_account_after || by_address >= settings_.refuse_address_after)
    throw Problem(core::http::Status::too_many_requests, "too-many-sign-ins",
                  "too many failed sign-ins; try again in " + std::to_string(settings_.failure_window.count()) +
                      " minutes")
        .with_header(core::http::bhttp::field::retry_after, std::to_string(settings_.failure_window.count() * 60));
  if (const auto wait = settings_.slowdown.delay(by_account); wait.count() > 0) co_await core::async::sleep_for(wait);

  const auto found = co_await db_.query(kCredentials, email);
  std::string hash = found.empty() ? std::string() : found.front().get<std::string>(1);
  const bool valid = co_await verify_password_async(std::move(hash), std::move(password));
  if (!valid) {
    co_await db_.query(kFailed, email, address);
    core::log::warn("sign-in failed", {{"address", address}});
    throw Problem::unauthorized("the email or the password is not valid");
  }
  const auto id = found.front().get<std::int64_t>(0);
  co_await db_.query(kSucceeded, email);
  SignIn result;
  result.token = co_await start_session(id, address);
  auto user = co_await user_by_id(id);
  result.user = std::move(*user);
  co_return result;
}

awaitable<std::string> Identity::start_session(std::int64_t user_id, std::string address) {
  std::string token = core::random_base64url(32);
  const std::string token_hash = core::sha256_hex(token);
  co_await db_.query(kStartSession, token_hash, user_id, address, static_cast<int>(settings_.session_lifetime.count()),
                     static_cast<int>(settings_.session_idle.count()));
  co_return token;
}

awaitable<void> Identity::end_session(std::string token) {
  const std::string token_hash = core::sha256_hex(token);
  co_await db_.query(kEndSession, token_hash);
}

core::http::Handler auth(std::shared_ptr<Identity> identity, core::http::Handler handler) {
  return guarded(std::move(identity), [](const User&) {}, std::move(handler));
}

core::http::Handler admin(std::shared_ptr<Identity> identity, core::http::Handler handler) {
  return guarded(
      std::move(identity),
      [](const User& u) {
        if (!u.is_admin) throw Problem::forbidden("this needs an administrator");
      },
      std::move(handler));
}

core::http::Handler perm(std::shared_ptr<Identity> identity, std::string resource, std::string action,
                         core::http::Handler handler) {
  return guarded(
      std::move(identity),
      [resource = std::move(resource), action = std::move(action)](const User& u) {
        if (!u.can(resource, action)) throw Problem::forbidden("this needs the permission " + resource + "." + action);
      },
      std::move(handler));
}

const User& current_user(const Request& req) {
  const User* user = req.get<User>();
  if (!user) throw std::logic_error("current_user() outside a route wrapped by auth, admin or perm");
  return *user;
}

std::string session_cookie(const Request& req, const std::string& token) {
  if (token.empty()) return core::http::set_cookie(req, {.name = kSessionCookie, .value = "", .same_site = "Lax", .max_age = 0});
  return core::http::set_cookie(req, {.name = kSessionCookie, .value = token, .same_site = "Lax"});
}

}  // namespace ops_console::identity
