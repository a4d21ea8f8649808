// The Cloudflare Access fake: its seed, its gate (the bearer token, latency and faults), the
// applications and policies lists and the control routes (cloudflare_access_fake.hpp lists them).
#include "sandbox/cloudflare_access_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/control_body.hpp"
#include "sandbox/seed_random.hpp"

#include <algorithm>

namespace sandbox {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::string_view kCloudflareBase = "/cloudflare/client/v4/accounts/";
constexpr std::int64_t kCloudflareMaxPerPage = 1000;
constexpr std::int64_t kCloudflareDefaultPerPage = 25;

// Cloudflare's envelope for a failure: {result: null, success: false, errors: [{code, message}], messages: []}.
Response cloudflare_error(int status, int code, std::string message) {
  return Response::json({{"result", nullptr},
                         {"success", false},
                         {"errors", {{{"code", code}, {"message", std::move(message)}}}},
                         {"messages", json::array()}},
                        static_cast<Status>(status));
}

// One page of `rows`, in the list envelope with result_info.
Response cloudflare_page(const Request& req, const std::vector<json>& rows) {
  std::int64_t page = 1, per_page = kCloudflareDefaultPerPage;
  if (const auto v = req.query.get("page")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 1) return cloudflare_error(400, 1001, "page must be a positive integer");
    page = *n;
  }
  if (const auto v = req.query.get("per_page")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 1 || *n > kCloudflareMaxPerPage)
      return cloudflare_error(400, 1001, "per_page must be between 1 and 1000");
    per_page = *n;
  }
  const auto total = static_cast<std::int64_t>(rows.size());
  json result = json::array();
  for (std::int64_t i = (page - 1) * per_page; i < std::min(total, page * per_page); ++i) result.push_back(rows[i]);
  const std::int64_t count = static_cast<std::int64_t>(result.size());
  return Response::json({{"result", std::move(result)},
                         {"success", true},
                         {"errors", json::array()},
                         {"messages", json::array()},
                         {"result_info",
                          {{"page", page},
                           {"per_page", per_page},
                           {"count", count},
                           {"total_count", total},
                           {"total_pages", (total + per_page - 1) / per_page}}}});
}

std::string cloudflare_time(int days_ago) {
  const auto at = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()) - std::chrono::days(days_ago);
  const auto ymd = std::chrono::year_month_day(at);
  char out[32];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT08:30:00.000000Z", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return out;
}

}  // namespace

CloudflareAccessFake::CloudflareAccessFake(CloudflareAccessFakeOptions options) : options_(std::move(options)) {}

void CloudflareAccessFake::reset() {
  std::lock_guard lock(mutex_);
  apps_.clear();
  faults_ = {};
  requests_ = unauthorised_ = bad_requests_ = throttled_ = server_errors_ = app_calls_ = policy_calls_ = 0;
  serving_ = {};
  echoes_.clear();
}

void CloudflareAccessFake::seed(const CloudflareAccessSeed& options) {
  SeedRandom random(options.seed);
  static const std::vector<std::string> kTypes = {"self_hosted", "self_hosted", "self_hosted", "ssh", "saas"};
  static const std::vector<std::string> kDecisions = {"allow", "allow", "allow", "bypass", "deny"};
  std::vector<App> apps;
  for (int i = 0; i < options.apps; ++i) {
    const std::string company = autotask::company_name(i);
    std::string slug;
    for (const char c : core::to_lower(company))
      if (std::isalnum(static_cast<unsigned char>(c))) slug += c;
    const std::string id = random.uuid();
    App app;
    app.json = {{"id", id},
                {"uid", id},
                {"aud", random.uuid() + random.uuid()},
                {"name", company + " portal"},
                {"domain", slug + ".portal.msp.example"},
                {"type", random.pick(kTypes)},
                {"session_duration", std::to_string(random.between(1, 3) * 8) + "h"},
                {"app_launcher_visible", true},
                {"allowed_idps", json::array()},
                {"auto_redirect_to_identity", false},
                {"created_at", cloudflare_time(400 - i)},
                {"updated_at", cloudflare_time(random.between(0, 30))}};
    const int policies = random.between(1, 3);
    for (int p = 0; p < policies; ++p) {
      const std::string decision = p == 0 ? "allow" : random.pick(kDecisions);
      json include = json::array();
      if (decision == "bypass")
        include.push_back({{"ip", {{"ip", "203.0.113." + std::to_string(random.between(1, 250)) + "/32"}}}});
      else if (decision == "deny")
        include.push_back({{"email", {{"email", "former-staff@" + slug + ".example"}}}});
      else
        include.push_back({{"email_domain", {{"domain", slug + ".example"}}}});
      if (decision == "allow" && random.chance(0.5)) include.push_back({{"email", {{"email", "support@msp.example"}}}});
      app.policies.push_back({{"id", random.uuid()},
                              {"name", decision == "allow" ? "Staff of " + company : "Rule " + std::to_string(p + 1)},
                              {"decision", decision},
                              {"precedence", p + 1},
                              {"include", include},
                              {"exclude", json::array()},
                              {"require", json::array()},
                              {"created_at", cloudflare_time(300)},
                              {"updated_at", cloudflare_time(10)}});
    }
    apps.push_back(std::move(app));
  }
  std::lock_guard lock(mutex_);
  apps_ = std::move(apps);
}

void CloudflareAccessFake::set_faults(CloudflareAccessFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

json CloudflareAccessFake::stats() const {
  std::lock_guard lock(mutex_);
  std::size_t policies = 0;
  for (const auto& a : apps_) policies += a.policies.size();
  return {{"requests", requests_},
          {"unauthorized", unauthorised_},
          {"bad_requests", bad_requests_},
          {"throttled", throttled_},
          {"server_errors", server_errors_},
          {"calls", {{"apps", app_calls_}, {"policies", policy_calls_}}},
          {"serving_ms", std::chrono::duration<double, std::milli>(serving_).count()},
          {"echoed", echoes_.count()},
          {"rows", {{"apps", apps_.size()}, {"policies", policies}}}};
}

json CloudflareAccessFake::apps() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  for (const auto& a : apps_) {
    json app = a.json;
    app["policies"] = a.policies;
    out.push_back(std::move(app));
  }
  return out;
}

awaitable<Response> CloudflareAccessFake::serve(Request& req, std::int64_t& calls, bool policies) {
  const auto header = core::trim(req.header("Authorization"));
  const bool bearer = header.size() > 7 && core::starts_with_icase(header, "bearer ");
  const std::string given(bearer ? core::trim(header.substr(7)) : std::string_view());
  CloudflareAccessFaults faults;
  bool allowed = false;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    faults.echo = faults_.echo;
    allowed = bearer && core::constant_time_equals(given, options_.token);
    if (!allowed) {
      ++unauthorised_;
    } else {
      ++calls;
      faults = faults_;
      if (faults_.throttle > 0) {
        --faults_.throttle;
        ++throttled_;
      } else if (faults_.server_errors > 0) {
        --faults_.server_errors;
        ++server_errors_;
      }
    }
  }
  // With the echo switch, the error's message quotes the token received (echo.hpp).
  const auto message = [&](std::string said) {
    return echoes_.message(faults.echo, std::move(said), {{"Bearer", given}});
  };
  if (!allowed) co_return cloudflare_error(401, 10000, message("Authentication error"));
  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) {
    auto res = cloudflare_error(429, 10000, "Rate limited");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0) co_return cloudflare_error(faults.status, 10002, message("Internal server error"));

  const auto started = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  Response res;
  if (req.param("account_id") != options_.account_id) {
    res = cloudflare_error(403, 10000, "Authentication error");
  } else if (!policies) {
    std::vector<json> rows;
    for (const auto& a : apps_) rows.push_back(a.json);
    res = cloudflare_page(req, rows);
  } else {
    const auto app = std::find_if(apps_.begin(), apps_.end(),
                                  [&](const App& a) { return a.json["id"] == std::string(req.param("app_id")); });
    res = app == apps_.end() ? cloudflare_error(404, 12130, "access.api.error.not_found")
                             : cloudflare_page(req, app->policies);
  }
  if (res.status == Status::bad_request) ++bad_requests_;
  serving_ += std::chrono::steady_clock::now() - started;
  co_return res;
}

void CloudflareAccessFake::install(core::http::Router& router) {
  const std::string at = std::string(kCloudflareBase) + "{account_id}/access/apps";
  router.get(at, [this](Request& req) { return serve(req, app_calls_, false); });
  router.get(at + "/{app_id}/policies", [this](Request& req) { return serve(req, policy_calls_, true); });

  router.post("/_sandbox/cloudflare/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.post("/_sandbox/cloudflare/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return cloudflare_error(400, 1001, "body must be a JSON object");
    CloudflareAccessSeed options;
    if (const auto bad = read_int(body, "apps", 0, 10'000, options.apps)) co_return cloudflare_error(400, 1001, *bad);
    if (const auto bad = read_seed(body, options.seed)) co_return cloudflare_error(400, 1001, *bad);
    seed(options);
    co_return Response::json(stats()["rows"], Status::created);
  });
  router.put("/_sandbox/cloudflare/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return cloudflare_error(400, 1001, "body must be a JSON object");
    CloudflareAccessFaults f;
    if (const auto bad = read_fault_switches(body, f)) co_return cloudflare_error(400, 1001, *bad);
    set_faults(f);
    co_return Response::empty();
  });
  router.get("/_sandbox/cloudflare/apps", [this](Request&) -> awaitable<Response> {
    co_return Response::json({{"apps", apps()}});
  });
  router.get("/_sandbox/cloudflare/stats",
             [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });
}

}  // namespace sandbox
