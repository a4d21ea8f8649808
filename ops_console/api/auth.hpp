#pragma once
// Sign-in routes of the ops-console (issue 6; the spec leaves them open):
//   POST /api/auth/login    public   {email, password} → 200 the user, and the session cookie
//   POST /api/auth/logout   public   ends the session of the cookie, if any → 204, cookie cleared
//   GET  /api/auth/me       auth     the user: id, email, name, isAdmin, permissions, theme, timezone
//   GET  /api/auth/setup    public   {setupRequired}: true while no user exists
//   POST /api/auth/setup    public   {email, name, password}: the first administrator, only while
//                                    no user exists (409 after) → 201 the user, and a session
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_auth_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

// The JSON of a user, as /api/auth/me answers it.
nlohmann::json user_json(const identity::User& user);

}  // namespace ops_console
