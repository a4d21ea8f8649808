#include "ops_console/endpointsec/sentinelone.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

namespace ops_console::endpointsec {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// SentinelOne's words for a failure: {errors: [{code, title, detail}]}, or the status.
std::string reason_of(const core::http::OutboundResponse& res) {
  std::string reason = "HTTP " + std::to_string(res.status);
  const auto body = json::parse(res.body, nullptr, false);
  if (body.is_object() && body.contains("errors") && body["errors"].is_array() && !body["errors"].empty()) {
    const auto& e = body["errors"][0];
    if (e.contains("code") && e["code"].is_number_integer()) reason += " " + e["code"].dump();
    for (const char* key : {"title", "detail"})
      if (e.contains(key) && e[key].is_string()) {
        // The API token may be quoted: masked, then cut.
        reason += ": " + core::secrets::quote(e[key].get<std::string>(), 200);
      }
  }
  return reason;
}

}  // namespace

std::vector<std::string> EndpointSecSettings::missing() const {
  std::vector<std::string> out;
  if (base_url.empty()) out.emplace_back("ENDPOINTSEC_BASE_URL");
  if (api_token.empty()) out.emplace_back("ENDPOINTSEC_API_TOKEN");
  return out;
}

EndpointSecSettings read_endpointsec_settings(core::config::Reader& env) {
  EndpointSecSettings s;
  s.base_url = env.url("ENDPOINTSEC_BASE_URL", "",
                       "the endpoint-security API (SentinelOne: https://<tenant>.sentinelone.net/web/api/v2.1)");
  s.api_token = env.secret("ENDPOINTSEC_API_TOKEN", "the endpoint-security API token (header Authorization: ApiToken)");
  s.page_limit = static_cast<int>(env.integer("ENDPOINTSEC_PAGE_LIMIT", 1000,
                                              "records per page of a list (SentinelOne allows 1 to 1,000)", {1, 1000}));
  return s;
}

SentinelOneClient::SentinelOneClient(boost::asio::any_io_executor executor, EndpointSecSettings settings,
                                     integrations::Health health)
    : settings_(std::move(settings)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "endpointsec"}),
      health_(std::move(health)) {}

awaitable<json> SentinelOneClient::get(std::string path, std::map<std::string, std::string> query) {
  std::string target = settings_.base_url + path;
  char separator = '?';
  for (const auto& [k, v] : query) {
    target += separator + core::url_encode(k) + "=" + core::url_encode(v);
    separator = '&';
  }
  co_return co_await health_.observe<json>("endpointsec", [&]() -> awaitable<json> {
    core::http::OutboundResponse res;
    try {
      res = co_await http_.send(
          {.method = "GET",
           .url = target,
           .headers = {{"Authorization", "ApiToken " + settings_.api_token}, {"Accept", "application/json"}},
           .retry_status = [](int status) { return status == 429 || status >= 500; }});
    } catch (const core::http::TransportError& e) {
      throw EndpointSecError("the endpoint-security service could not be reached (" + path + "): " + e.what());
    }
    if (!res.ok()) throw EndpointSecError("the endpoint-security service refused " + path + ": " + reason_of(res));
    auto body = json::parse(res.body, nullptr, false);
    if (!body.is_object() || !body.contains("data"))
      throw EndpointSecError("the endpoint-security service answered " + path + " without data");
    co_return body;
  });
}

awaitable<void> SentinelOneClient::each_page(std::string path, std::map<std::string, std::string> query, Page page) {
  query["limit"] = std::to_string(settings_.page_limit);
  for (;;) {
    json body = co_await get(path, query);
    std::string next;
    if (body.contains("pagination") && body["pagination"].is_object()) {
      const auto& cursor = body["pagination"]["nextCursor"];
      if (cursor.is_string()) next = cursor.get<std::string>();
    }
    co_await page(std::move(body));
    if (next.empty() || next == query["cursor"]) co_return;
    query["cursor"] = next;
  }
}

awaitable<std::int64_t> SentinelOneClient::agent_count(std::string site_id, bool active_only) {
  std::map<std::string, std::string> query{{"siteIds", std::move(site_id)}};
  if (active_only) query["isActive"] = "true";
  const json body = co_await get("/agents/count", std::move(query));
  const auto& total = body["data"].is_object() ? body["data"].value("total", json(nullptr)) : json(nullptr);
  if (!total.is_number_integer()) throw EndpointSecError("the endpoint-security agent count has no total");
  co_return total.get<std::int64_t>();
}

}  // namespace ops_console::endpointsec
