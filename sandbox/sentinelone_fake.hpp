#pragma once
// A fake of SentinelOne's management API v2.1 (endpoint security), following SentinelOne's published
// behaviour (../shared/vendors.md, "Endpoint security: SentinelOne", checked against the sources below)
// rather than any client's expectations, under /sentinelone so that
// ENDPOINTSEC_BASE_URL = <sandbox>/sentinelone/web/api/v2.1:
//
//   GET /sentinelone/web/api/v2.1/sites          ?limit, cursor, skip, countOnly, siteIds, states, name
//       → {data: {allSites: {activeLicenses, totalLicenses}, sites: [site...]}, pagination: {nextCursor,
//         totalItems}}; allSites sums every site the filters match, not only the page's
//   GET /sentinelone/web/api/v2.1/agents         ?limit, cursor, skip, countOnly, siteIds, isActive, osTypes
//       → {data: [agent...], pagination: {nextCursor, totalItems}}
//   GET /sentinelone/web/api/v2.1/agents/count   ?siteIds, isActive, osTypes → {data: {total}}
//
// What a client meets, as on SentinelOne:
//   - every call needs `Authorization: ApiToken <token>`; a missing or wrong one is 401
//     {"errors": [{"code": 4010010, "detail": null, "title": "Authentication Failed"}]} (the live answer quoted
//     in elastic/kibana issue 267380 and davidhowell-tx/PS-SentinelOne issue 8);
//   - lists page by cursor: `limit` 1..1000 (default 10), `cursor` the opaque nextCursor of the previous page,
//     nextCursor null on the last page, totalItems the count of every match (s1buildpartners/sentinelone-go-sdk
//     client.go and types/errors.go: "Limit: maximum records to return per page (1–1000; API default is 10)",
//     "NextCursor is nil on the last page"; a connector's documentation of GET /sites with a recorded live answer
//     (28 Aug 2023, account "swimlane"), which is also where the site shape and allSites come from:
//     "cursor: Cursor position returned by the last request. Use to iterate over more than 1000 items", "skip
//     (0-1000)", "countOnly: only total number of items"). Cursors are keyset positions (the last id returned;
//     rows are in id order), so a page neither skips nor repeats when rows are added meanwhile;
//   - bad parameters are 400 {"errors": [{"code": 4000010, "detail": ..., "title": "Validation Error"}]}: a limit
//     outside 1..1000, a cursor that is not one this fake issued for that list ("Invalid cursor value
//     received", the detail of a recorded SentinelOne 400 in a Go client's test fixture), a site id under
//     100000000000000000 ("siteIds: 0: Must be greater than or equal to 100000000000000000.", as SentinelOne
//     answers: demisto/content's SentinelOne-V2 tests);
//   - shapes: site {accountId, accountName, activeLicenses, createdAt, creator, creatorId, description,
//     expiration, externalId, healthStatus, id, isDefault, licenses: {bundles, modules, settings}, name,
//     registrationToken, siteType (Paid, Trial), sku, state (active), suite, totalLicenses, unlimitedExpiration,
//     unlimitedLicenses, updatedAt} (that recorded answer; go-sdk's Site); agent {accountId,
//     accountName, activeThreats, agentVersion, computerName, createdAt, groupId, groupName, id, infected,
//     isActive, isDecommissioned, isUninstalled, isUpToDate, lastActiveDate, lastIpToMgmt,
//     lastLoggedInUserName, machineType, networkStatus, osName, osRevision, osType (windows, macos, linux),
//     registeredAt, siteId, siteName, updatedAt, uuid, ...} (xybytes/steampipe-plugin-sentinelone's agent
//     model); ids are decimal strings; dates "2018-02-27T04:49:26.257525Z";
//   - GET /agents/count answers {data: {total}} (go-sdk agents.go, "API: GET /web/api/v2.1/agents/count").
//     For per-site agent counts a console should call /agents/count?siteIds=<one site id> for each site (one
//     small call per site, exact), or page /agents?siteIds=<ids>&limit=1000 and count by siteId when it needs
//     the agents themselves; a site's activeLicenses is the number of agents holding a licence, which here is
//     every agent of the site (totalLicenses is what the customer bought), so it agrees with the count;
//   - 429 with Retry-After when throttled and 5xx when a fault says (SentinelOne publishes neither body: these
//     use its error envelope, {"errors": [{"code": 4290010, "detail": null, "title": "Too Many Requests"}]} and
//     {"errors": [{"code": 5000010, ...}]}, unverified); the switches and the latency apply to calls whose token
//     is right.
//
// Token (SentinelOneFakeOptions): "sandbox-endpointsec-token". Seed (sentinelone_seed.hpp): 12 sites named
// partly after the PSA fake's companies, 150..450 agents each.
//
// Control routes (tests in other processes, the demo), under /_sandbox/sentinelone:
//   POST /_sandbox/sentinelone/reset    forget sites, agents, switches and counters (the token back to its default)
//   POST /_sandbox/sentinelone/seed     {seed, sites, agents_min, agents_max, psa_companies} → 201 {sites, agents}
//   PUT  /_sandbox/sentinelone/faults   {throttle, retry_after, server_errors, status, latency_ms,
//                                       echo_credentials, error_padding}: with echo_credentials, a 401 and
//                                       a fault's error quote in `detail` the ApiToken received (echo.hpp)
//   PUT  /_sandbox/sentinelone/token    {token}: the ApiToken accepted from now on
//   GET  /_sandbox/sentinelone/sites    {sites: [{id, name, agents, active_agents, totalLicenses, activeLicenses,
//                                       "_sandbox": {match, psaName}}]}: what the seed meant each site to match
//   GET  /_sandbox/sentinelone/stats    {requests, unauthorized, bad_requests, throttled, server_errors, calls:
//                                       {sites, agents, agents_count}, in_flight, most_in_flight, serving_ms, rows}
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"
#include "sandbox/sentinelone_seed.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace sandbox {

struct SentinelOneFakeOptions {
  std::string token = "sandbox-endpointsec-token";
};

struct SentinelOneFaults {
  int throttle = 0;       // the next N authorised API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N authorised API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to every authorised API call
  EchoSwitch echo;                       // errors quote the ApiToken received (echo.hpp)
};

class SentinelOneFake {
 public:
  explicit SentinelOneFake(SentinelOneFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  void seed(const SentinelOneFakeSeedOptions& options);  // replaces every site and agent
  void set_faults(SentinelOneFaults faults);
  void set_token(std::string token);
  nlohmann::json stats() const;
  nlohmann::json sites() const;  // GET /_sandbox/sentinelone/sites
  const SentinelOneFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  using Work = std::function<core::http::Response(const core::http::Request&)>;

  void install_api(core::http::Router& router);      // sentinelone_fake.cpp
  void install_control(core::http::Router& router);  // sentinelone_fake_control.cpp

  // Runs an API call behind the token and the fault switches.
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::int64_t& calls, Work work);
  core::http::Response list_sites(const core::http::Request& req);    // callers hold mutex_
  core::http::Response list_agents(const core::http::Request& req);   // callers hold mutex_
  core::http::Response count_agents(const core::http::Request& req);  // callers hold mutex_

  SentinelOneFakeOptions options_;
  mutable std::mutex mutex_;
  sentinelone::Data data_;
  std::string token_;
  SentinelOneFaults faults_;
  std::int64_t requests_ = 0;
  std::int64_t unauthorised_ = 0;
  std::int64_t bad_requests_ = 0;
  std::int64_t throttled_ = 0;
  std::int64_t server_errors_ = 0;
  std::int64_t site_calls_ = 0, agent_calls_ = 0, count_calls_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
  std::chrono::steady_clock::duration serving_{};
  Echoes echoes_;
};

}  // namespace sandbox
