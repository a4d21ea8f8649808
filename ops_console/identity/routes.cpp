#include "ops_console/identity/routes.hpp"

namespace ops_console::identity {

Access Access::permission(std::string resource, std::string action) {
  Access a(Level::permission);
  a.resource_ = std::move(resource);
  a.action_ = std::move(action);
  return a;
}

std::string Access::describe() const {
  switch (level_) {
    case Level::open:
      return "public";
    case Level::signed_in:
      return "auth";
    case Level::kiosk_view:
      return "kiosk";
    case Level::admin:
      return "admin";
    case Level::agent:
      return "agent";
    case Level::permission:
      return "perm(" + resource_ + ", " + action_ + ")";
  }
  return "";
}

core::http::Handler Access::guard(std::shared_ptr<Identity> id, core::http::Handler handler) const {
  switch (level_) {
    case Level::open:
      return handler;
    case Level::signed_in:
      return identity::auth(std::move(id), std::move(handler));
    case Level::kiosk_view:
      return identity::kiosk_view(std::move(id), std::move(handler));
    case Level::admin:
      return identity::admin(std::move(id), std::move(handler));
    case Level::agent:
      return identity::agent(std::move(id), std::move(handler));
    case Level::permission:
      return identity::perm(std::move(id), resource_, action_, std::move(handler));
  }
  return handler;
}

Routes::Routes(core::http::Router& router, std::shared_ptr<Identity> identity)
    : router_(router), identity_(std::move(identity)) {}

void Routes::add(core::http::Verb method, std::string_view path, const Access& access, core::http::Handler handler) {
  router_.add(method, path, std::move(handler), access.describe(),
              [this, access](core::http::Handler h) { return access.guard(identity_, std::move(h)); });
}

core::openapi::Access documented_access() {
  using nlohmann::json;
  return {.schemes = {{"session",
                       {{"type", "apiKey"},
                        {"in", "cookie"},
                        {"name", "ops_session"},
                        {"description", "the session cookie POST /api/auth/login sets"}}},
                      {"agentToken",
                       {{"type", "http"},
                        {"scheme", "bearer"},
                        {"description", "an agent instance's token (POST /api/admin/agent-instances shows it once)"}}},
                      {"uploadToken",
                       {{"type", "http"},
                        {"scheme", "bearer"},
                        {"description", "a log-evidence upload token (POST /api/admin/upload-tokens shows it once)"}}},
                      {"psaSignature",
                       {{"type", "apiKey"},
                        {"in", "header"},
                        {"name", "X-Hook-Signature"},
                        {"description",
                         "sha1= and the HMAC-SHA1 of the raw body under PSA_WEBHOOK_SECRET, in base64 or "
                         "hex (Autotask's form); checked only when the secret is set"}}},
                      {"gitforgeSignature",
                       {{"type", "apiKey"},
                        {"in", "header"},
                        {"name", "X-Hub-Signature-256"},
                        {"description",
                         "sha256= and the hex HMAC-SHA256 of the raw body under GITFORGE_WEBHOOK_SECRET "
                         "(GitHub); checked only when the secret is set"}}},
                      {"giteaSignature",
                       {{"type", "apiKey"},
                        {"in", "header"},
                        {"name", "X-Gitea-Signature"},
                        {"description",
                         "the hex HMAC-SHA256 of the raw body under GITFORGE_WEBHOOK_SECRET (Gitea); "
                         "checked only when the secret is set"}}}},
          .security = [](std::string_view access) -> json {
            if (access == "public") return json::array();
            if (access == "agent") return json::array({{{"agentToken", json::array()}}});
            return json::array({{{"session", json::array()}}});
          },
          .responses = [](std::string_view access) -> json {
            if (access == "public") return json::object();
            if (access == "agent") return {{"401", "no agent token, or not a valid one"}};
            if (access == "kiosk") return {{"401", "not signed in, or the session has ended"}};
            return {{"401", "not signed in, or the session has ended"},
                    {"403", access == "auth" ? "a wall display's account, which may use the kiosk routes only"
                                             : "the signed-in user lacks what the route requires (" +
                                                   std::string(access) + "), or is a wall display's account"}};
          }};
}

}  // namespace ops_console::identity
