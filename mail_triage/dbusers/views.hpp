#pragma once
// The HTML of the /dbusers console (console.hpp has the routes): every page, server-rendered,
// usable without JavaScript, every value escaped. The controller (console.cpp) decides which page
// to answer with and reads what it shows; these functions only render.
#include "core/http/message.hpp"
#include "mail_triage/dbusers/roles.hpp"

#include <string>
#include <vector>

namespace mail_triage::dbusers::views {

// Who is signed in, as the pages' forms need it.
struct Viewer {
  std::string actor;
  std::string csrf;  // the session's CSRF token, in every form
};

// The values of the create form (shown again when a create is refused).
struct CreateForm {
  std::string username, level = "read_only", description;
};

// One database user, as the list shows it (times already formatted).
struct UserRow {
  std::string id, username, role_name, level, description;
  bool active = true;
  std::string created_at, created_by, revoked_at, revoked_by;
};

// What the list page says besides the list. Callers name it before co_await (docs/conventions.md).
struct ListView {
  core::http::Status status = core::http::Status::ok;
  std::string notice, error;
  CreateForm form;
};

// The sign-in form; `form_token` is its double-submit token.
core::http::Response login_page(core::http::Status status, const std::string& form_token, const std::string& error);
// The users, a revoke button per active one, and the create form.
core::http::Response list_page(const Viewer& viewer, const std::vector<UserRow>& users, const ListView& view);
// A new user's credentials, shown this once (201, no-store).
core::http::Response credentials_page(const CreatedUser& user, const std::string& db_host, int db_port);
// A form without the right CSRF token: 403, nothing changed.
core::http::Response forbidden_page();
// 303 to `location`, not cached.
core::http::Response redirect(std::string location);

}  // namespace mail_triage::dbusers::views
