#pragma once
// A fake of Cloudflare Zero Trust Access (the access gateway), its account-level applications and
// their policies, under /cloudflare so that ACCESS_GATEWAY_BASE_URL = <sandbox>/cloudflare/client/v4:
//
//   GET /cloudflare/client/v4/accounts/{account_id}/access/apps                    ?page, per_page
//       → {success, errors, messages, result: [app...], result_info: {page, per_page, count, total_count,
//         total_pages}}
//   GET /cloudflare/client/v4/accounts/{account_id}/access/apps/{app_id}/policies  ?page, per_page
//       → the same envelope, result: [policy...]
//
// What a client meets, as on Cloudflare (sources checked with the search tool, issue 33):
//   - every call needs `Authorization: Bearer <API token>`; a missing or wrong one is HTTP 401
//     {"result": null, "success": false, "errors": [{"code": 10000, "message": "Authentication error"}],
//     "messages": []} (the live answer to a wrong token recorded in several public clients' tests and
//     notes, e.g. "HTTP 401, {"result":null,"success":false,"errors":[{"code":10000,"message":
//     "Authentication error"}],"messages":[]}"; a 403 with the same body is also recorded, for a token
//     without the permission);
//   - the envelope {success, errors: [{code, message}], messages, result} and, on lists, result_info
//     {page, per_page, count, total_count, total_pages} (Cloudflare's OpenAPI schemas
//     api-response-common, api-response-collection and result_info, as published by
//     api-evangelist/cloudflare's json-schema files; errors' code is an integer >= 1000);
//   - lists page by number: `page` from 1, `per_page` (clients of /access/apps send it explicitly, 50
//     to 1000, the largest "Cloudflare's documented maximum" for that list per one public client); the last
//     page is the one where page >= total_pages
//     (how the public clients stop: "if (!response.result_info || page >= response.result_info.total_pages)
//     break"). Here per_page outside 1..1000 or page < 1 is 400 {"code": 1001, "message":
//     "per_page must be between 1 and 1000"} (Cloudflare's exact words for it are not published: a choice);
//   - an account id the token does not reach: 403 code 10000 "Authentication error" (as for a token
//     without the permission, above); an unknown application id: 404 {"code": 12130, "message":
//     "access.api.error.not_found"} (the code is not published: a choice, the shape is the envelope's);
//   - shapes: application {id (uuid), uid, aud, name, domain, type (self_hosted as the public clients filter
//     it; the fake's ssh and saas are unverified),
//     session_duration ("24h"), app_launcher_visible, allowed_idps, auto_redirect_to_identity, created_at,
//     updated_at} (cloudflare-go's AccessApplication; steampipe's cloudflare_access_application table);
//     policy {id, name, decision (allow, deny, non_identity, bypass), precedence, include, exclude, require,
//     created_at, updated_at}, each rule list of objects such as {"email": {"email": "a@b"}},
//     {"email_domain": {"domain": "b"}}, {"group": {"id": "..."}}, {"everyone": {}}, {"ip": {"ip": "cidr"}}
//     (Cloudflare's Access API examples in cloudflare/cloudflare-docs and terraform-provider-cloudflare's
//     test data); dates RFC 3339 in UTC (the fake's fractional digits are unverified);
//   - 429 with Retry-After when throttled and 5xx when a fault says: Cloudflare's global limit is "1200
//     requests per five minutes per user ... If you exceed this limit, all API calls for the next five
//     minutes will be blocked, receiving a HTTP 429 response", with `retry-after` "the number of seconds,
//     rounded up, until more capacity is available" (developers.cloudflare.com/fundamentals/api/reference/
//     limits); the 429 and 5xx bodies here are the envelope with code 10000 "Rate limited" and 10002, which
//     Cloudflare does not publish (unverified); the switches and the latency apply to calls whose token is
//     right;
//   - choices where Cloudflare publishes nothing: `per_page` defaults to 25 here (clients send it), a page past
//     the last answers an empty result with the same result_info.
//
// Token (CloudflareAccessFakeOptions): "sandbox-access-gateway-token", account "sandbox-account". Seed: 8
// applications named after the PSA fake's first companies' portals, 1..3 policies each.
//
// Control routes, under /_sandbox/cloudflare:
//   POST /_sandbox/cloudflare/reset   forget applications, switches and counters
//   POST /_sandbox/cloudflare/seed    {seed, apps} → 201 {apps, policies}
//   PUT  /_sandbox/cloudflare/faults  {throttle, retry_after, server_errors, status, latency_ms, echo_credentials,
//                                     error_padding}: with echo_credentials, a 401 and a fault quote the token
//   GET  /_sandbox/cloudflare/apps    {apps: [app with its policies]}: what a sync should copy
//   GET  /_sandbox/cloudflare/stats   {requests, unauthorized, bad_requests, throttled, server_errors, calls:
//                                     {apps, policies}, serving_ms, echoed, rows}
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace sandbox {

struct CloudflareAccessFakeOptions {
  std::string token = "sandbox-access-gateway-token";
  std::string account_id = "sandbox-account";
};

struct CloudflareAccessSeed {
  std::uint32_t seed = 1;
  int apps = 8;
};

struct CloudflareAccessFaults {
  int throttle = 0;       // the next N authorised calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N authorised calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};
  EchoSwitch echo;
};

class CloudflareAccessFake {
 public:
  explicit CloudflareAccessFake(CloudflareAccessFakeOptions options = {});

  void install(core::http::Router& router);

  void reset();
  void seed(const CloudflareAccessSeed& options);  // replaces every application
  void set_faults(CloudflareAccessFaults faults);
  nlohmann::json stats() const;
  nlohmann::json apps() const;  // each application with its "policies"
  const CloudflareAccessFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }

 private:
  struct App {
    nlohmann::json json;                   // as listed
    std::vector<nlohmann::json> policies;  // as listed
  };
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::int64_t& calls, bool policies);

  CloudflareAccessFakeOptions options_;
  mutable std::mutex mutex_;
  std::vector<App> apps_;
  CloudflareAccessFaults faults_;
  std::int64_t requests_ = 0, unauthorised_ = 0, bad_requests_ = 0, throttled_ = 0, server_errors_ = 0;
  std::int64_t app_calls_ = 0, policy_calls_ = 0;
  std::chrono::steady_clock::duration serving_{};
  Echoes echoes_;
};

}  // namespace sandbox
