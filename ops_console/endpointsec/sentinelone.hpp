#pragma once
// The client of the endpoint-security service, SentinelOne's management API v2.1
// (../shared/vendors.md, "Endpoint security: SentinelOne"): `Authorization: ApiToken <token>`,
// lists paged by cursor (`limit` up to 1000, `cursor` the previous page's pagination.nextCursor,
// null on the last page), agent counts from /agents/count.
//
//   SentinelOneClient s1(executor, settings, health);
//   co_await s1.each_page("/sites", {}, [&](json page) -> awaitable<void> { ... });   // page: the whole answer
//   std::int64_t n = co_await s1.agent_count(site_id, false);
//
// 429 and 5xx are retried honouring Retry-After (core::http::Client). A failure throws
// EndpointSecError (a Problem 502) whose detail never carries the token; every call's outcome is
// recorded for the integration-health dashboard (integration key "endpointsec").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ops_console::endpointsec {

struct EndpointSecSettings {
  std::string base_url;  // https://<tenant>.sentinelone.net/web/api/v2.1
  std::string api_token;
  std::chrono::milliseconds timeout{30'000};
  int page_limit = 1000;  // SentinelOne's largest `limit`

  std::vector<std::string> missing() const;
};

// ENDPOINTSEC_*; a base URL that is not an absolute http(s) URL refuses start (exit 2).
EndpointSecSettings read_endpointsec_settings(core::config::Reader& env);

struct EndpointSecError : core::http::Problem {
  explicit EndpointSecError(std::string detail)
      : Problem(core::http::Status::bad_gateway, "endpointsec-failed", std::move(detail)) {}
};

class SentinelOneClient {
 public:
  using Page = std::function<boost::asio::awaitable<void>(nlohmann::json page)>;

  SentinelOneClient(boost::asio::any_io_executor executor, EndpointSecSettings settings, integrations::Health health);

  // Every page of a list, in order.
  boost::asio::awaitable<void> each_page(std::string path, std::map<std::string, std::string> query, Page page);
  // The agents of one site (only the active ones when `active_only`).
  boost::asio::awaitable<std::int64_t> agent_count(std::string site_id, bool active_only);

 private:
  boost::asio::awaitable<nlohmann::json> get(std::string path, std::map<std::string, std::string> query);

  EndpointSecSettings settings_;
  core::http::Client http_;
  integrations::Health health_;
};

}  // namespace ops_console::endpointsec
