#pragma once
// The /dbusers web console (issue 5): server-rendered HTML forms, usable without JavaScript, over
// the database work of dbusers/roles.hpp. console.cpp is the controller (sessions, CSRF, which
// page to answer); dbusers/views.hpp renders the pages.
//
//   GET  /dbusers/login                 sign-in form (an admin key)
//   POST /dbusers/login                 key → session cookie, 303 to /dbusers
//   POST /dbusers/logout                ends the session, 303 to the sign-in form
//   GET  /dbusers                       users, a create form, a revoke button per active user
//   POST /dbusers/users                 create → the credentials page, shown once (no-store)
//   POST /dbusers/users/{id}/revoke     revoke → the list with a notice
//
// Access: without a valid session every page but the sign-in form redirects (303) to it. Keys
// come from DBUSERS_ADMIN_KEYS, else API_KEYS, compared in constant time. A session is a random
// token in an HttpOnly, SameSite=Strict cookie scoped to /dbusers (Secure when the request came
// over TLS, as X-Forwarded-Proto: https says); only its SHA-256 is stored. Sessions end after
// DBUSERS_SESSION_IDLE_MINUTES without a request or DBUSERS_SESSION_HOURS in all. Every form
// carries a CSRF token derived from the session token (the sign-in form: a double-submit
// cookie); a POST without the right one is a 403 and changes nothing. Failed sign-ins from one
// address within 15 minutes are slowed from the third on and refused (429) from the tenth.
#include "core/app/service.hpp"
#include "core/auth/session_store.hpp"
#include "core/config/config.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace mail_triage::dbusers {

struct ConsoleSettings {
  std::vector<std::string> admin_keys;
  std::string db_host = "127.0.0.1";  // shown on the credentials page
  int db_port = 5434;
  // core/auth/session_store.hpp: 30 idle minutes, 8 hours in all; failed sign-ins from one
  // address (a key names no account) slowed from the 3rd in 15 minutes and refused from the 10th.
  core::auth::SessionPolicy sessions{.lifetime = std::chrono::hours(8), .refuse_address_after = 10};
};

// DBUSERS_* variables; the admin keys fall back to `api_keys`.
ConsoleSettings read_console_settings(core::config::Reader& env, const std::vector<std::string>& api_keys);

void install_console_routes(core::app::Context& ctx, ConsoleSettings settings);

}  // namespace mail_triage::dbusers
