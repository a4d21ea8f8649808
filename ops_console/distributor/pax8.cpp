#include "ops_console/distributor/pax8.hpp"

#include "core/async/join.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

namespace ops_console::distributor {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Pax8's words for a failure ({type, message, instance, status, details}), short, or the status.
std::string reason_of(const core::http::OutboundResponse& res) {
  const auto body = json::parse(res.body, nullptr, false);
  std::string reason;
  if (body.is_object())
    for (const char* key : {"message", "error_description", "error"})
      if (body.contains(key) && body[key].is_string()) {
        reason = body[key].get<std::string>();
        break;
      }
  // Its words may quote the client secret or the bearer token: masked, then cut.
  reason = core::secrets::quote(reason, 300);
  return "HTTP " + std::to_string(res.status) + (reason.empty() ? "" : ": " + reason);
}

}  // namespace

DistributorSettings read_distributor_settings(core::config::Reader& env) {
  DistributorSettings s;
  s.base_url = env.url("DISTRIBUTOR_BASE_URL", "https://api.pax8.com", "the distributor's API (Pax8)");
  s.client_id = env.string("DISTRIBUTOR_CLIENT_ID", "", "the distributor API's client id (unset: not configured)");
  s.client_secret = env.secret("DISTRIBUTOR_CLIENT_SECRET", "the distributor API's client secret");
  if (s.client_id.empty() != s.client_secret.empty())
    env.fail("DISTRIBUTOR_CLIENT_ID",
             "DISTRIBUTOR_CLIENT_ID and DISTRIBUTOR_CLIENT_SECRET are set together or not at all");
  return s;
}

Pax8Client::Pax8Client(boost::asio::any_io_executor executor, DistributorSettings settings, integrations::Health health)
    : settings_(std::move(settings)),
      executor_(executor),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "distributor"}),
      health_(std::move(health)) {}

awaitable<std::string> Pax8Client::token() {
  co_return co_await tokens_.get([this]() -> awaitable<core::http::TokenCache::Issued> {
    core::http::OutboundRequest req{.method = "POST",
                                    .url = settings_.base_url + "/v1/token",
                                    .headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                                    .body = json{{"client_id", settings_.client_id},
                                                 {"client_secret", settings_.client_secret},
                                                 {"audience", "https://api.pax8.com"},
                                                 {"grant_type", "client_credentials"}}
                                                .dump(),
                                    .retry_transport_errors = true,
                                    .retry_status = [](int status) { return status == 429 || status >= 500; }};
    core::http::OutboundResponse res;
    try {
      res = co_await http_.send(std::move(req));
    } catch (const core::http::TransportError& e) {
      throw DistributorError(std::string("the distributor could not be reached for a token: ") + e.what());
    }
    if (!res.ok()) throw DistributorError("the distributor refused a token: " + reason_of(res));
    const auto body = json::parse(res.body, nullptr, false);
    if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string())
      throw DistributorError("the distributor's token answer has no access_token");
    co_return core::http::TokenCache::Issued{body["access_token"].get<std::string>(),
                                             std::chrono::seconds(body.value("expires_in", 3600))};
  });
}

awaitable<json> Pax8Client::call(std::string path_and_query) {
  const std::string path = path_and_query.substr(0, path_and_query.find('?'));
  auto body = json::parse(co_await call_raw(std::move(path_and_query)), nullptr, false);
  if (body.is_discarded()) throw DistributorError("the distributor answered " + path + " with a body that is not JSON");
  co_return body;
}

awaitable<std::string> Pax8Client::call_raw(std::string path_and_query) {
  co_return co_await health_.observe<std::string>("distributor", [&] { return attempt(path_and_query, false); });
}

awaitable<std::string> Pax8Client::attempt(std::string path_and_query, bool fresh_token) {
  if (fresh_token) tokens_.drop();
  const std::string bearer = co_await token();
  const std::string path = path_and_query.substr(0, path_and_query.find('?'));
  core::http::OutboundRequest req{.method = "GET",
                                  .url = settings_.base_url + path_and_query,
                                  .headers = {{"Authorization", "Bearer " + bearer}, {"Accept", "application/json"}},
                                  .retry_status = [](int status) { return status == 429 || status >= 500; }};
  core::http::OutboundResponse res;
  try {
    res = co_await http_.send(std::move(req));
  } catch (const core::http::TransportError& e) {
    throw DistributorError("the distributor could not be reached (" + path + "): " + e.what());
  }
  if (res.status == 401 && !fresh_token) co_return co_await attempt(std::move(path_and_query), true);
  if (!res.ok()) throw DistributorError("the distributor refused " + path + ": " + reason_of(res));
  co_return std::move(res.body);
}

// Page N+1 is fetched while `page` handles page N (stores it), so a sync takes about the longer
// of the two rather than their sum. each_raw_page: the same, the bodies unparsed.
awaitable<void> Pax8Client::each_page(std::string path, std::map<std::string, std::string> query, Page page) {
  std::string filters;
  for (const auto& [k, v] : query) filters += "&" + core::url_encode(k) + "=" + core::url_encode(v);
  const auto fetch = [this, path, filters](int number) -> awaitable<json> {
    json body =
        co_await call(path + "?page=" + std::to_string(number) + "&size=" + std::to_string(kPageSize) + filters);
    if (!body.contains("content") || !body["content"].is_array())
      throw DistributorError("the distributor answered " + path + " without content");
    co_return body;
  };
  json current = co_await fetch(0);
  for (int number = 0;; ++number) {
    const int total_pages = current.contains("page") ? current["page"].value("totalPages", 0) : 0;
    json content = std::move(current["content"]);
    const bool more = !content.empty() && number + 1 < total_pages;
    if (!more) {
      if (!content.empty()) co_await page(std::move(content));
      co_return;
    }
    json next;
    std::vector<std::function<awaitable<void>()>> both;
    both.push_back([&]() -> awaitable<void> { next = co_await fetch(number + 1); });
    both.push_back([&]() -> awaitable<void> { co_await page(std::move(content)); });
    co_await core::async::join_all(executor_, std::move(both));
    current = std::move(next);
  }
}

awaitable<void> Pax8Client::each_raw_page(std::string path, std::map<std::string, std::string> query, RawPage page) {
  std::string filters;
  for (const auto& [k, v] : query) filters += "&" + core::url_encode(k) + "=" + core::url_encode(v);
  const auto fetch = [this, path, filters](int number) -> awaitable<std::string> {
    co_return co_await call_raw(path + "?page=" + std::to_string(number) + "&size=" + std::to_string(kPageSize) +
                                filters);
  };
  std::string current = co_await fetch(0);
  RawPageSeen seen{};
  for (int number = 0;; ++number) {
    // Whether a next page exists is known from the page before this one (page 0: from itself).
    if (number == 0) {
      seen = co_await page(std::move(current));
      if (seen.items == 0 || 1 >= seen.total_pages) co_return;
      current = co_await fetch(1);
      continue;
    }
    if (number + 1 >= seen.total_pages) {
      seen = co_await page(std::move(current));
      co_return;
    }
    std::string next;
    RawPageSeen now{};
    std::vector<std::function<awaitable<void>()>> both;
    both.push_back([&]() -> awaitable<void> { next = co_await fetch(number + 1); });
    both.push_back([&]() -> awaitable<void> { now = co_await page(std::move(current)); });
    co_await core::async::join_all(executor_, std::move(both));
    if (now.items == 0) co_return;  // the list shrank meanwhile: the page past the end is empty
    seen = now;
    current = std::move(next);
  }
}

}  // namespace ops_console::distributor
