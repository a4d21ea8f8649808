#include "mail_triage/api/auth.hpp"

#include "core/http/bearer.hpp"
#include "core/http/problem.hpp"
#include "core/util/strings.hpp"

namespace mail_triage {

using boost::asio::awaitable;
using core::http::Problem;

std::vector<std::string> read_api_keys(core::config::Reader& env) {
  // Secrets: each key is masked in every log line and quoted upstream text (core/util/secrets.hpp).
  auto keys = env.secret_list("API_KEYS", "comma-separated bearer keys accepted by /api/v1/ (at least one)");
  if (keys.empty() && !env.is_describing()) env.fail("API_KEYS", "must hold at least one key");
  return keys;
}

bool bearer_matches(std::string_view header, const std::vector<std::string>& keys) {
  const auto token = core::http::bearer_token(header);
  if (!token) return false;
  bool matched = false;
  for (const auto& key : keys) matched |= core::constant_time_equals(*token, key);
  return matched;
}

namespace {

// The API, and its description.
bool protected_path(std::string_view path) {
  return path == "/api/v1" || path.starts_with("/api/v1/") || path == "/openapi.json";
}

}  // namespace

std::string access_of(std::string_view path) {
  if (protected_path(path)) return "key";
  if (path == "/dbusers/login") return "public";
  if (path == "/dbusers" || path.starts_with("/dbusers/")) return "console";
  return "public";
}

core::http::Middleware bearer_auth(std::vector<std::string> keys) {
  return [keys = std::move(keys)](core::http::Request& req, core::http::Next next) -> awaitable<core::http::Response> {
    if (protected_path(req.path)) {
      const auto header = req.header("Authorization");
      if (header.empty())
        throw Problem::unauthorized("the Authorization header with a bearer key is missing")
            .with_header(core::http::bhttp::field::www_authenticate, "Bearer");
      if (!bearer_matches(header, keys))
        throw Problem::unauthorized("the bearer key is malformed or not valid")
            .with_header(core::http::bhttp::field::www_authenticate, "Bearer error=\"invalid_token\"");
    }
    co_return co_await next(req);
  };
}

core::openapi::Access documented_access() {
  using nlohmann::json;
  return {.schemes = {{"apiKey",
                       {{"type", "http"},
                        {"scheme", "bearer"},
                        {"description", "one of the keys in API_KEYS: Authorization: Bearer <key>"}}},
                      {"consoleSession",
                       {{"type", "apiKey"},
                        {"in", "cookie"},
                        {"name", "dbusers_session"},
                        {"description", "the /dbusers console's session, set by POST /dbusers/login"}}}},
          .security = [](std::string_view access) -> json {
            if (access == "key") return json::array({{{"apiKey", json::array()}}});
            if (access == "console") return json::array({{{"consoleSession", json::array()}}});
            return json::array();
          },
          .responses = [](std::string_view access) -> json {
            if (access == "key") return {{"401", "no bearer key, or not one of API_KEYS"}};
            return json::object();
          }};
}

}  // namespace mail_triage
