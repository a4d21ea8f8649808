#include "ops_console/access_gateway/cloudflare.hpp"

#include "ops_console/access_gateway/page.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

namespace ops_console::access_gateway {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Cloudflare's words for a failure: {errors: [{code, message}]}, or the status.
std::string cloudflare_reason_of(const core::http::OutboundResponse& res) {
  std::string reason = "HTTP " + std::to_string(res.status);
  const auto body = json::parse(res.body, nullptr, false);
  if (body.is_object() && body.contains("errors") && body["errors"].is_array() && !body["errors"].empty()) {
    const auto& e = body["errors"][0];
    if (e.is_object() && e.contains("code") && e["code"].is_number_integer()) reason += " " + e["code"].dump();
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      reason += ": " + core::secrets::quote(e["message"].get<std::string>(), 200);  // masked, then cut
  }
  return reason;
}

}  // namespace

std::vector<std::string> AccessGatewaySettings::missing() const {
  std::vector<std::string> out;
  if (base_url.empty()) out.emplace_back("ACCESS_GATEWAY_BASE_URL");
  if (account_id.empty()) out.emplace_back("ACCESS_GATEWAY_ACCOUNT_ID");
  if (api_token.empty()) out.emplace_back("ACCESS_GATEWAY_API_TOKEN");
  return out;
}

AccessGatewaySettings read_access_gateway_settings(core::config::Reader& env) {
  AccessGatewaySettings s;
  s.base_url = env.url("ACCESS_GATEWAY_BASE_URL", "",
                       "the access gateway's API (Cloudflare: https://api.cloudflare.com/client/v4)");
  s.account_id =
      env.string("ACCESS_GATEWAY_ACCOUNT_ID", "", "the Cloudflare account whose Access applications are copied");
  s.api_token = env.secret("ACCESS_GATEWAY_API_TOKEN",
                           "a Cloudflare API token with Access read rights (header Authorization: Bearer)");
  s.page_size = static_cast<int>(
      env.integer("ACCESS_GATEWAY_PAGE_SIZE", 100, "records per page of an access-gateway list (per_page)", {1, 1000}));
  const auto missing = s.missing();
  if (!missing.empty() && missing.size() < 3)
    env.fail(missing.front(),
             "ACCESS_GATEWAY_BASE_URL, ACCESS_GATEWAY_ACCOUNT_ID and ACCESS_GATEWAY_API_TOKEN are set together or not "
             "at all");
  return s;
}

CloudflareAccessClient::CloudflareAccessClient(boost::asio::any_io_executor executor, AccessGatewaySettings settings,
                                               integrations::Health health)
    : settings_(std::move(settings)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "access_gateway"}),
      health_(std::move(health)) {}

awaitable<void> CloudflareAccessClient::each_page(std::string path, Page page) {
  const std::string base = settings_.base_url + "/accounts/" + core::url_encode(settings_.account_id) + path +
                           "?per_page=" + std::to_string(settings_.page_size) + "&page=";
  for (int number = 1;; ++number) {
    CloudflarePage body =
        co_await health_.observe<CloudflarePage>("access_gateway", [&]() -> awaitable<CloudflarePage> {
          core::http::OutboundResponse res;
          try {
            res = co_await http_.send(
                {.method = "GET",
                 .url = base + std::to_string(number),
                 .headers = {{"Authorization", "Bearer " + settings_.api_token}, {"Accept", "application/json"}},
                 .retry_status = [](int status) { return status == 429 || status >= 500; }});
          } catch (const core::http::TransportError& e) {
            throw AccessGatewayError("the access gateway could not be reached (" + path + "): " + e.what());
          }
          if (!res.ok())
            throw AccessGatewayError("the access gateway refused " + path + ": " + cloudflare_reason_of(res));
          auto parsed = parse_cloudflare_page(res.body);
          if (!parsed) throw AccessGatewayError("the access gateway answered " + path + " without a result list");
          co_return std::move(*parsed);
        });
    const bool empty = body.result.empty();
    co_await page(std::move(body.result));
    if (empty || number >= body.total_pages) co_return;
  }
}

}  // namespace ops_console::access_gateway
