#pragma once
// Who is calling the ops-console (issue 6): users, sessions, sign-in, and the access levels that
// routes declare.
//
//   auto identity = std::make_shared<Identity>(ctx.db, settings);
//   Routes routes(ctx.router, identity);                              // routes.hpp: access declared
//   routes.get("/api/me/theme", get_theme);                           // 401 without a session
//   routes.get("/api/admin/integrations", Access::permission("admin", "access"), list);  // 403
//   const User& me = current_user(req);                               // inside a guarded handler
//
// A session is a random 256-bit token in the cookie `ops_session` (HttpOnly, SameSite=Lax,
// Path=/, Secure behind TLS); only its SHA-256 is stored. It ends after SESSION_IDLE_MINUTES
// (30) without a request, SESSION_MAX_HOURS (12) after sign-in, or at sign-out. The access check
// runs before the handler, so before any database query or upstream call of the route.
//
// Each instance keeps the live sessions it has seen, with their user and permissions, for up to
// SESSION_CACHE_SECONDS (60; 0: off), so a signed-in request pays no database round trip to check its
// session (core/auth/session_cache.hpp says what an entry may be used for). Triggers of migration
// 0032 announce on kSessionChannel every change that alters what the check would answer (a session
// ended or changed, a user changed or deleted, a permission granted or taken), and every instance
// drops what it names; while an instance's listener is down it asks the database on every request.
// A signed-in user's own write (any method but GET and HEAD) drops that user's entries on the
// instance that served it at once, so their next request there sees it (theme, timezone, name).
#include "core/auth/session_store.hpp"
#include "core/config/config.hpp"
#include "core/db/pool.hpp"
#include "core/http/message.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace ops_console::identity {

struct User {
  std::int64_t id = 0;
  std::string email;
  std::string name;
  bool is_admin = false;
  std::optional<std::string> theme;  // NULL: the default
  std::optional<std::string> timezone;
  std::set<std::pair<std::string, std::string>> permissions;  // (resource, action)
  // A wall display's account (`create-user --kiosk`): it may sign in and read the kiosk view
  // (Access::kiosk_view()), and every other route refuses it with 403, whatever it holds.
  bool kiosk = false;

  // Administrators hold every permission.
  bool can(std::string_view resource, std::string_view action) const {
    return is_admin || permissions.contains({std::string(resource), std::string(action)});
  }
};

// Sessions and sign-in failures follow core/auth/session_store.hpp: 30 idle minutes, 12 hours
// in all; per account slowed from the 3rd failure in 15 minutes and refused from the 5th, per
// address refused from the 20th.
struct IdentitySettings : core::auth::SessionPolicy {
  std::chrono::seconds cache{60};  // SESSION_CACHE_SECONDS: 0, no cache
};

// Where migration 0032's triggers announce session, user and permission changes.
inline constexpr std::string_view kSessionChannel = "session_changes";

IdentitySettings read_identity_settings(core::config::Reader& env);

inline constexpr std::string_view kSessionCookie = "ops_session";

// What a user who has chosen neither sees.
inline constexpr std::string_view kDefaultTheme = "system";
inline constexpr std::string_view kDefaultTimezone = "UTC";

class Identity {
 public:
  Identity(core::db::Pool& db, IdentitySettings settings);

  // The user of the request's session (refreshing it), or nothing.
  boost::asio::awaitable<std::optional<User>> user_of(std::optional<std::string> token);
  // A signed-in user by id; Problem 401 when the account is gone (deleted since it signed in).
  boost::asio::awaitable<User> user_by_id(std::int64_t id);

  struct SignIn {
    User user;
    std::string token;  // for the cookie
  };
  // Throws Problem 401 (one generic message), 429 (too many failures for the account or the
  // address), 400 (a malformed body is the caller's to check).
  boost::asio::awaitable<SignIn> sign_in(std::string email, std::string password, std::string address);
  boost::asio::awaitable<std::string> start_session(std::int64_t user_id, std::string address);
  boost::asio::awaitable<void> end_session(std::string token);
  // This instance asks the database again for the user's sessions (after a change of their own).
  void forget_user(std::int64_t user_id);

  // Keeps the session cache (when there is one) by LISTEN on kSessionChannel; the listener to stop
  // at shutdown, or null without a cache.
  std::shared_ptr<core::db::Listener> follow_session_changes(boost::asio::any_io_executor ex, std::string conninfo);
  // The cache, or null when SESSION_CACHE_SECONDS is 0.
  const core::auth::SessionCache* session_cache() const { return cache_.get(); }

  core::db::Pool& db() { return db_; }

 private:
  core::db::Pool& db_;
  std::shared_ptr<core::auth::SessionCache> cache_;
  core::auth::SessionStore sessions_;
};

// Access levels. Each wraps a handler: the check runs first, and a handler that runs finds the
// user with current_user(req).
core::http::Handler auth(std::shared_ptr<Identity> identity, core::http::Handler handler);
core::http::Handler admin(std::shared_ptr<Identity> identity, core::http::Handler handler);
// Signed in, a wall display's account included (auth() and the others refuse those).
core::http::Handler kiosk_view(std::shared_ptr<Identity> identity, core::http::Handler handler);
core::http::Handler perm(std::shared_ptr<Identity> identity, std::string resource, std::string action,
                         core::http::Handler handler);
const User& current_user(const core::http::Request& req);
// The signed-in user's IANA zone, kDefaultTimezone when they chose none: what "today" means to them.
std::string current_timezone(const core::http::Request& req);

// An agent instance calling with its own bearer token (issue 18; agent_instances, migration 0011).
struct Agent {
  std::int64_t id = 0;
  std::string name;
};
// How a token is kept: its SHA-256, hex. The token itself is shown once, when issued.
std::string agent_token_hash(std::string_view token);
// The "agent" access level: `Authorization: Bearer <token>` of an agent instance; 401 without
// one, or with one that no instance holds (wrong, rotated, or its instance removed); 403 when
// its instance is disabled. A handler that runs finds the instance with current_agent(req).
core::http::Handler agent(std::shared_ptr<Identity> identity, core::http::Handler handler);
const Agent& current_agent(const core::http::Request& req);

// The Set-Cookie value that carries `token`, or deletes the cookie when `token` is empty.
std::string session_cookie(const core::http::Request& req, const std::string& token);

}  // namespace ops_console::identity
