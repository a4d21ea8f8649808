#include "mail_triage/dbusers/views.hpp"

#include "core/util/strings.hpp"

namespace mail_triage::dbusers::views {

using core::html_escape;
using core::http::Response;
using core::http::Status;

namespace {

// The device's theme (color-scheme: light dark), in the palette of ops-console's pages
// (ops_console/ui/src/app.css): each colour is light-dark(light, dark), every text colour 4.5:1 or
// more on its background.
const char* kStyle = R"css(
  :root {
    color-scheme: light dark;
    --bg: light-dark(#ffffff, #0b0d10); --text: light-dark(#1d2733, #e6e9ee); --muted: light-dark(#5a6573, #9aa4b2);
    --border: light-dark(#d8dee6, #2c323b); --head: light-dark(#f3f5f8, #1c2027); --accent: light-dark(#1f5fbf, #6ea8ff);
    --down-bg: light-dark(#fde8e8, #33150f); --down-border: light-dark(#e0a4a4, #8c3b32);
    --ok-bg: light-dark(#e6f4ea, #12291b); --ok-border: light-dark(#9fd1ad, #2f6b45);
    --secret-bg: light-dark(#fff8d6, #2d230d);
  }
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; background: var(--bg); color: var(--text); }
  a { color: var(--accent); } :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--border); vertical-align: top; }
  th { background: var(--head); } .inactive td, small { color: var(--muted); }
  form.inline { display: inline; } label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
  input[type=text], input[type=password], select, textarea { width: 24rem; max-width: 100%; box-sizing: border-box; padding: .35rem; font: inherit; }
  button { padding: .4rem .9rem; font: inherit; cursor: pointer; }
  .error { background: var(--down-bg); border: 1px solid var(--down-border); padding: .6rem; } .notice { background: var(--ok-bg); border: 1px solid var(--ok-border); padding: .6rem; }
  .secret { font-family: ui-monospace, monospace; background: var(--secret-bg); padding: .1rem .3rem; overflow-wrap: anywhere; }
  dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .4rem 1rem; } dt { font-weight: 600; }
  .rows { overflow-x: auto; }
  /* A phone stacks each user as a card, every cell named by its column (data-label), as
     ops-console's tables do (table.stack-on-phone): nothing to scroll sideways to reach Revoke. */
  @media (max-width: 40rem) {
    thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    tr { display: block; padding: .4rem 0; border-bottom: 1px solid var(--border); }
    td { display: flex; justify-content: space-between; gap: .75rem; border: 0; padding: .15rem 0; text-align: right; }
    td[data-label]::before { content: attr(data-label); color: var(--muted); text-align: left; font-weight: 600; }
    td:empty { display: none; }
  }
  header { display: flex; justify-content: space-between; align-items: baseline; }
)css";

Response page(Status status, std::string_view title, const std::string& body) {
  auto res = Response::text(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"color-scheme\" content=\"light dark\">"
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

std::string message(std::string_view css, const std::string& text) {
  return text.empty() ? "" : "<p class=\"" + std::string(css) + "\" role=\"alert\">" + html_escape(text) + "</p>\n";
}

std::string hidden_csrf(const std::string& token) {
  return "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(token) + "\">";
}

std::string create_form(const Viewer& viewer, const CreateForm& f) {
  std::string options;
  for (const char* level : {"read_only", "modify", "full"})
    options += std::string("<option value=\"") + level + "\"" + (f.level == level ? " selected" : "") + ">" + level +
               "</option>";
  return "<h2>Create a user</h2>\n<form method=\"post\" action=\"/dbusers/users\">" + hidden_csrf(viewer.csrf) +
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

}  // namespace

Response login_page(Status status, const std::string& form_token, const std::string& error) {
  return page(status, "Sign in",
              "<h1>Database users</h1>\n<h2>Sign in</h2>\n" + message("error", error) +
                  "<form method=\"post\" action=\"/dbusers/login\">" + hidden_csrf(form_token) +
                  "<label for=\"key\">Admin key</label>"
                  "<input type=\"password\" id=\"key\" name=\"key\" autocomplete=\"current-password\" required>"
                  "<p><button type=\"submit\">Sign in</button></p></form>");
}

Response list_page(const Viewer& viewer, const std::vector<UserRow>& users, const ListView& view) {
  std::string rows;
  for (const auto& u : users) {
    std::string revoke = "<form class=\"inline\" method=\"post\" action=\"/dbusers/users/" + html_escape(u.id) +
                         "/revoke\">" + hidden_csrf(viewer.csrf) + "<button type=\"submit\" aria-label=\"Revoke " +
                         html_escape(u.username) + "\">Revoke</button></form>";
    // data-label: the column's name, which a phone shows beside each cell (kStyle).
    rows += std::string(u.active ? "<tr>" : "<tr class=\"inactive\">") + "<td data-label=\"Username\">" +
            html_escape(u.username) + "</td><td data-label=\"Role\">" + html_escape(u.role_name) +
            "</td><td data-label=\"Permission level\">" + html_escape(u.level) +
            "</td><td data-label=\"Description\">" + html_escape(u.description) + "</td><td data-label=\"State\">" +
            (u.active ? "active" : "revoked") + "</td><td data-label=\"Created\"><span>" + html_escape(u.created_at) +
            "<br><small>" + html_escape(u.created_by) + "</small></span></td>" +
            (u.active ? "<td></td>"
                      : "<td data-label=\"Revoked\"><span>" + html_escape(u.revoked_at) + "<br><small>" +
                            html_escape(u.revoked_by) + "</small></span></td>") +
            "<td>" + (u.active ? revoke : "") + "</td></tr>\n";
  }
  if (rows.empty()) rows = "<tr><td colspan=\"8\">No database users yet.</td></tr>\n";
  return page(view.status, "Database users",
              "<header><h1>Database users</h1><form class=\"inline\" method=\"post\" action=\"/dbusers/logout\">" +
                  hidden_csrf(viewer.csrf) + "<small>" + html_escape(viewer.actor) +
                  "</small> <button type=\"submit\">Sign out</button></form></header>\n" +
                  message("notice", view.notice) + message("error", view.error) +
                  "<div class=\"rows\"><table><thead><tr><th>Username</th><th>Role</th><th>Permission "
                  "level</th><th>Description</th>"
                  "<th>State</th><th>Created</th><th>Revoked</th><th></th></tr></thead><tbody>\n" +
                  rows + "</tbody></table></div>\n" + create_form(viewer, view.form));
}

Response credentials_page(const CreatedUser& u, const std::string& db_host, int db_port) {
  const std::string port = std::to_string(db_port);
  const std::string url =
      "postgresql://" + u.role_name + ":" + u.password + "@" + db_host + ":" + port + "/" + u.database;
  return page(
      Status::created, "Credentials",
      "<h1>Database users</h1>\n<h2>" + html_escape(u.role_name) +
          " was created</h2>\n"
          "<p class=\"notice\" role=\"alert\">Copy the password now: it is shown this once and stored nowhere.</p>\n"
          "<dl><dt>Host</dt><dd id=\"host\">" +
          html_escape(db_host) + "</dd><dt>Port</dt><dd id=\"port\">" + port +
          "</dd><dt>Database</dt><dd id=\"database\">" + html_escape(u.database) +
          "</dd><dt>Username</dt><dd id=\"role\">" + html_escape(u.role_name) +
          "</dd><dt>Password</dt><dd><span class=\"secret\" id=\"password\">" + html_escape(u.password) +
          "</span></dd><dt>Connection string</dt><dd><span class=\"secret\" id=\"url\">" + html_escape(url) +
          "</span></dd><dt>Permission level</dt><dd>" + std::string(to_string(u.level)) +
          "</dd></dl>\n<p><a href=\"/dbusers\">Back to the list</a></p>");
}

Response forbidden_page() {
  return page(Status::forbidden, "Forbidden",
              "<h1>Database users</h1>\n" +
                  message("error", "This form has expired or did not come from this console. Nothing was changed.") +
                  "<p><a href=\"/dbusers\">Back to the console</a></p>");
}

Response redirect(std::string location) {
  auto res = Response::empty(Status::see_other);
  res.headers.set("Location", std::move(location));
  res.headers.set("Cache-Control", "no-store");
  return res;
}

}  // namespace mail_triage::dbusers::views
