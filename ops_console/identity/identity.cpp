#include "ops_console/identity/identity.hpp"

#include "core/http/bearer.hpp"
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
           '[]'::json),
  u.kiosk
)sql";

const std::string kUserById = "SELECT " + std::string(kUserColumns) + " FROM users u WHERE u.id = $1";

// The instance holding an agent's token (agent_instances, migration 0011).
constexpr std::string_view kAgentByToken = "SELECT id, name, enabled FROM agent_instances WHERE token_hash = $1";

constexpr std::string_view kCredentials = "SELECT id, password_hash FROM users WHERE email = $1";

// Where the sessions and failures are, and the user a live session is for, in the same query.
core::auth::SessionTables session_tables() {
  return {.sessions = "sessions",
          .subject = "user_id",
          .failures = "login_failures",
          .account = "email",
          .lookup = "SELECT " + std::string(kUserColumns) + " FROM users u JOIN live ON live.subject = u.id"};
}

User user_from(const core::db::Row& r) {
  User u{.id = r.get<std::int64_t>(0),
         .email = r.get<std::string>(1),
         .name = r.get<std::string>(2),
         .is_admin = r.get<bool>(3),
         .theme = r.get<std::optional<std::string>>(4),
         .timezone = r.get<std::optional<std::string>>(5),
         .kiosk = r.get<bool>(7)};
  for (const auto& pair : nlohmann::json::parse(r.text(6))) u.permissions.emplace(pair[0], pair[1]);
  return u;
}

// Whether a route admits the wall displays' accounts (User::kiosk): only the kiosk view does.
enum class Kiosk { refused, admitted };

// A handler behind a session and a check of the user (which throws Problem 403).
core::http::Handler guarded(std::shared_ptr<Identity> identity, std::function<void(const User&)> check,
                            core::http::Handler handler, Kiosk kiosk = Kiosk::refused) {
  return [identity = std::move(identity), check = std::move(check), handler = std::move(handler),
          kiosk](Request& req) -> awaitable<Response> {
    auto token = core::http::cookie(req, kSessionCookie);
    const auto user = co_await identity->user_of(std::move(token));
    if (!user) throw Problem::unauthorized("sign in first: no valid session");
    if (user->kiosk && kiosk == Kiosk::refused)
      throw Problem::forbidden("this account is a wall display's: it may read the kiosk view only");
    check(*user);
    req.set<User>(*user);
    if (req.method == core::http::Verb::get || req.method == core::http::Verb::head) co_return co_await handler(req);
    // A write may change what the user's own session answers: their next request here asks the
    // database (other instances hear of it from migration 0032's triggers).
    try {
      auto res = co_await handler(req);
      identity->forget_user(user->id);
      co_return res;
    } catch (...) {
      identity->forget_user(user->id);
      throw;
    }
  };
}

}  // namespace

IdentitySettings read_identity_settings(core::config::Reader& env) {
  IdentitySettings s;
  s.cache = std::chrono::seconds(
      env.integer("SESSION_CACHE_SECONDS", 60,
                  "how long an instance may answer for a session without asking the database (sign-out and changes "
                  "of users, permissions and sessions reach every instance at once, by LISTEN/NOTIFY); 0 turns the "
                  "cache off",
                  {0, 60}));
  s.idle = std::chrono::minutes(
      env.integer("SESSION_IDLE_MINUTES", 30, "a session ends after this long without a request", {1, 1440}));
  s.lifetime =
      std::chrono::hours(env.integer("SESSION_MAX_HOURS", 12, "a session ends this long after sign-in", {1, 720}));
  s.slowdown.step = std::chrono::milliseconds(
      env.integer("LOGIN_DELAY_MS", 1000,
                  "delay per repeated failed sign-in of an account (from the third, at most five steps)", {0, 10'000}));
  return s;
}

Identity::Identity(core::db::Pool& db, IdentitySettings settings)
    : db_(db),
      cache_(settings.cache.count() > 0 ? std::make_shared<core::auth::SessionCache>(settings.cache) : nullptr),
      sessions_(db, session_tables(), std::move(settings), cache_) {}

void Identity::forget_user(std::int64_t user_id) { sessions_.forget_subject(std::to_string(user_id)); }

std::shared_ptr<core::db::Listener> Identity::follow_session_changes(boost::asio::any_io_executor ex,
                                                                     std::string conninfo) {
  if (!cache_) return nullptr;
  return cache_->follow(std::move(ex), std::move(conninfo), std::string(kSessionChannel));
}

awaitable<std::optional<User>> Identity::user_of(std::optional<std::string> token) {
  const auto rows = co_await sessions_.find(std::move(token));
  if (rows.empty()) co_return std::nullopt;
  co_return user_from(rows.front());
}

awaitable<User> Identity::user_by_id(std::int64_t id) {
  const auto rows = co_await db_.query(kUserById, id);
  if (rows.empty()) throw Problem::unauthorized("this account no longer exists");
  co_return user_from(rows.front());
}

awaitable<Identity::SignIn> Identity::sign_in(std::string email, std::string password, std::string address) {
  email = core::to_lower(core::trim(email));
  if (const auto refused = co_await sessions_.admit(email, address)) throw refused->problem();

  const auto found = co_await db_.query(kCredentials, email);
  std::string hash = found.empty() ? std::string() : found.front().get<std::string>(1);
  const bool valid = co_await verify_password_async(std::move(hash), std::move(password));
  if (!valid) {
    co_await sessions_.failed(email, address);
    core::log::warn("sign-in failed", {{"address", address}});
    throw Problem::unauthorized("the email or the password is not valid");
  }
  const auto id = found.front().get<std::int64_t>(0);
  co_await sessions_.succeeded(email, address);
  SignIn result;
  result.token = co_await start_session(id, address);
  result.user = co_await user_by_id(id);
  co_return result;
}

awaitable<std::string> Identity::start_session(std::int64_t user_id, std::string address) {
  co_return co_await sessions_.start(std::to_string(user_id), std::move(address));
}

awaitable<void> Identity::end_session(std::string token) { co_await sessions_.end(std::move(token)); }

core::http::Handler auth(std::shared_ptr<Identity> identity, core::http::Handler handler) {
  return guarded(
      std::move(identity), [](const User&) {}, std::move(handler));
}

core::http::Handler kiosk_view(std::shared_ptr<Identity> identity, core::http::Handler handler) {
  return guarded(
      std::move(identity), [](const User&) {}, std::move(handler), Kiosk::admitted);
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

std::string agent_token_hash(std::string_view token) { return core::sha256_hex(token); }

core::http::Handler agent(std::shared_ptr<Identity> identity, core::http::Handler handler) {
  return [identity = std::move(identity), handler = std::move(handler)](Request& req) -> awaitable<Response> {
    const auto token = core::http::bearer_token(req.header("authorization"));
    if (!token)
      throw Problem::unauthorized("an agent instance's bearer token is required")
          .with_header(core::http::bhttp::field::www_authenticate, "Bearer");
    const auto found = co_await identity->db().query(kAgentByToken, agent_token_hash(*token));
    if (found.empty())
      throw Problem::unauthorized("the bearer token is not valid")
          .with_header(core::http::bhttp::field::www_authenticate, "Bearer error=\"invalid_token\"");
    if (!found.front().get<bool>(2)) throw Problem::forbidden("this agent instance is disabled");
    req.set<Agent>(Agent{.id = found.front().get<std::int64_t>(0), .name = found.front().get<std::string>(1)});
    co_return co_await handler(req);
  };
}

const Agent& current_agent(const Request& req) {
  const Agent* a = req.get<Agent>();
  if (!a) throw std::logic_error("current_agent() outside a route wrapped by agent");
  return *a;
}

const User& current_user(const Request& req) {
  const User* user = req.get<User>();
  if (!user) throw std::logic_error("current_user() outside a route wrapped by auth, admin or perm");
  return *user;
}

std::string current_timezone(const core::http::Request& req) {
  return current_user(req).timezone.value_or(std::string(kDefaultTimezone));
}

std::string session_cookie(const Request& req, const std::string& token) {
  if (token.empty())
    return core::http::set_cookie(req, {.name = kSessionCookie, .value = "", .same_site = "Lax", .max_age = 0});
  return core::http::set_cookie(req, {.name = kSessionCookie, .value = token, .same_site = "Lax"});
}

}  // namespace ops_console::identity
