#pragma once
// Per-user preferences (issue 6). Every write goes to the session user only; a user id in the
// body or the query is ignored.
//   GET   /api/me/timezone      auth   {timezone, source: user|default}
//   PUT   /api/me/timezone      auth   {timezone}: a name of pg_timezone_names, ≤ 64 characters
//   GET   /api/me/timezones     auth   {timezones: [name]}: every zone the PUT accepts, by name
//   GET   /api/me/theme         auth   {theme, source: user|default}
//   PUT   /api/me/theme         auth   {theme}: light | dark | system
//   PATCH /api/settings/profile admin  {name}: the administrator's own name
// Writes set the camelCase "updatedAt" column of users.
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

void install_preference_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
