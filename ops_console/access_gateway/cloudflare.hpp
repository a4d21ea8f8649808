#pragma once
// The client of the access gateway, Cloudflare Zero Trust Access (API v4; the facts and their sources
// are in sandbox/cloudflare_access_fake.hpp): `Authorization: Bearer <API token>`, the envelope
// {success, errors: [{code, message}], messages, result}, lists paged by number with result_info
// {page, per_page, count, total_count, total_pages}.
//
//   CloudflareAccessClient cf(executor, settings, health);
//   co_await cf.each_page("/access/apps", [&](json result) -> awaitable<void> { ... });   // result: the page's array
//
// Paths are under /accounts/{ACCESS_GATEWAY_ACCOUNT_ID}. 429 and 5xx are retried honouring
// Retry-After (core::http::Client). A failure throws AccessGatewayError (a Problem 502) whose detail
// never carries the token (Cloudflare's words masked through core::secrets::quote); every call's
// outcome is recorded for the integration-health dashboard (integration key "access_gateway").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ops_console::access_gateway {

struct AccessGatewaySettings {
  std::string base_url;  // https://api.cloudflare.com/client/v4
  std::string account_id;
  std::string api_token;
  std::chrono::milliseconds timeout{30'000};
  int page_size = 100;

  // The settings that are unset, by name: the health row and the sync's 503 name them.
  std::vector<std::string> missing() const;
};

// ACCESS_GATEWAY_*: all three or none (a partly set group refuses start, exit 2).
AccessGatewaySettings read_access_gateway_settings(core::config::Reader& env);

struct AccessGatewayError : core::http::Problem {
  explicit AccessGatewayError(std::string detail)
      : Problem(core::http::Status::bad_gateway, "access-gateway-failed", std::move(detail)) {}
};

class CloudflareAccessClient {
 public:
  using Page = std::function<boost::asio::awaitable<void>(nlohmann::json result)>;

  CloudflareAccessClient(boost::asio::any_io_executor executor, AccessGatewaySettings settings,
                         integrations::Health health);

  // Every page of a list under the account (`path`: "/access/apps"), in order, until total_pages.
  boost::asio::awaitable<void> each_page(std::string path, Page page);

  // This client's calls held back to a health write a second (Health::Burst), for a sync's run.
  integrations::Health::Burst health_burst() const { return health_.burst("access_gateway"); }

 private:
  AccessGatewaySettings settings_;
  core::http::Client http_;
  integrations::Health health_;
};

}  // namespace ops_console::access_gateway
