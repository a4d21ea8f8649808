#pragma once
// The client of the distributor, Pax8's partner API (../shared/vendors.md, "Distributor: Pax8").
//
//   Pax8Client pax8(executor, settings, health);
//   co_await pax8.each_page("/v1/companies", {}, [&](json content) -> awaitable<void> { ... });
//   co_await pax8.each_raw_page("/v1/companies", {}, [&](std::string body) -> awaitable<RawPageSeen> { ... });
//
// The access token comes from {base}/v1/token (client credentials) and is kept until a minute
// before it expires; one caller at a time fetches it, the others wait for that one. A call that
// answers 401 drops the token and is tried once more with a new one. Lists are read in pages of
// 200 (Pax8's largest `size`), from page 0 to the last of `page.totalPages`, the next page
// fetched while the caller handles the current one (one page at a time is handled, in order). 429 and 5xx are
// retried honouring Retry-After (core::http::Client). What fails throws DistributorError, whose
// message names no credential. Every request's outcome (its token's included, and the one retry
// after a 401 within it) is recorded for the integration-health dashboard (integration key
// "distributor"), a failure by that message.
#include "core/async/semaphore.hpp"
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/http/token_cache.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace ops_console::distributor {

struct DistributorSettings {
  std::string base_url = "https://api.pax8.com";
  std::string client_id;
  std::string client_secret;
  std::chrono::milliseconds timeout{30'000};

  // Both credentials set; neither means the distributor is not configured.
  bool configured() const { return !client_id.empty(); }
};

// DISTRIBUTOR_* variables; one credential without the other refuses start (exit 2).
DistributorSettings read_distributor_settings(core::config::Reader& env);

struct DistributorError : std::runtime_error {
  using std::runtime_error::runtime_error;
  // 502 distributor-failed, with this message.
  core::http::Problem problem() const {
    return core::http::Problem(core::http::Status::bad_gateway, "distributor-failed", what());
  }
};

inline constexpr int kPageSize = 200;  // Pax8's largest page

class Pax8Client {
 public:
  using Page = std::function<boost::asio::awaitable<void>(nlohmann::json content)>;

  Pax8Client(boost::asio::any_io_executor executor, DistributorSettings settings, integrations::Health health);

  // Every page of a list, in order; `query` adds filters (companyId, status, ...).
  boost::asio::awaitable<void> each_page(std::string path, std::map<std::string, std::string> query, Page page);
  // The same, each page's body handed over as the distributor sent it (JSON text), for a caller
  // that passes it to PostgreSQL as it is; the caller answers what the page held.
  struct RawPageSeen {
    int total_pages = 0;     // page.totalPages
    std::int64_t items = 0;  // content's length
  };
  using RawPage = std::function<boost::asio::awaitable<RawPageSeen>(std::string body)>;
  boost::asio::awaitable<void> each_raw_page(std::string path, std::map<std::string, std::string> query, RawPage page);

 private:
  boost::asio::awaitable<std::string> token();
  boost::asio::awaitable<nlohmann::json> call(std::string path_and_query);
  // One request, recorded as one call: attempt(), and again with a new token after a 401.
  boost::asio::awaitable<std::string> call_raw(std::string path_and_query);
  boost::asio::awaitable<std::string> attempt(std::string path_and_query, bool fresh_token);

  DistributorSettings settings_;
  boost::asio::any_io_executor executor_;
  core::http::Client http_;
  core::http::TokenCache tokens_;
  integrations::Health health_;
};

}  // namespace ops_console::distributor
