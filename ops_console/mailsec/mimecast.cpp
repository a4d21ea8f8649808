#include "ops_console/mailsec/mimecast.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <algorithm>

namespace ops_console::mailsec {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Mimecast's words for a failure: the first {code, message} of `fail` (either of its shapes:
// [{code, message}] from the gateway, [{key, errors: [{code, message}]}] from a function).
std::string fail_reason(const json& body) {
  if (!body.is_object() || !body.contains("fail") || !body["fail"].is_array() || body["fail"].empty()) return "";
  const json* e = &body["fail"][0];
  if (e->contains("errors") && (*e)["errors"].is_array() && !(*e)["errors"].empty()) e = &(*e)["errors"][0];
  std::string reason;
  if (e->contains("code") && (*e)["code"].is_string()) reason = (*e)["code"].get<std::string>();
  if (e->contains("message") && (*e)["message"].is_string())
    reason += (reason.empty() ? "" : ": ") + (*e)["message"].get<std::string>();
  // Its words may quote the client secret or the bearer token: masked, then cut.
  return core::secrets::quote(reason, 300);
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

}  // namespace

std::optional<std::string> failure_of(const json& answer) {
  auto reason = fail_reason(answer);
  if (reason.empty() && answer.is_object() && answer.contains("fail") && answer["fail"].is_array() &&
      !answer["fail"].empty())
    reason = "a failure without a code";
  return reason.empty() ? std::nullopt : std::optional<std::string>(reason);
}

MailsecSettings read_mailsec_settings(core::config::Reader& env) {
  MailsecSettings s;
  MailsecTenant main;
  main.name = "default";
  main.base_url = env.url("MAILSEC_BASE_URL", main.base_url, "the mail-security API (Mimecast API 2.0)");
  main.client_id = env.string("MAILSEC_CLIENT_ID", "", "the mail-security API's client id (the tenant \"default\")");
  main.client_secret = env.secret("MAILSEC_CLIENT_SECRET", "the mail-security API's client secret");
  std::vector<MailsecTenant> all;
  if (!main.client_id.empty() || !main.client_secret.empty()) all.push_back(main);
  for (const auto& name : env.list("MAILSEC_TENANTS", "",
                                   "more mail-security tenants, by name; each from MAILSEC_<NAME>_CLIENT_ID, "
                                   "_CLIENT_SECRET and _BASE_URL")) {
    MailsecTenant t;
    t.name = core::to_lower(name);
    const std::string prefix = "MAILSEC_" + upper(name) + "_";
    t.base_url = env.url(prefix + "BASE_URL", t.base_url, "that tenant's API");
    t.client_id = env.string(prefix + "CLIENT_ID", "", "that tenant's client id");
    t.client_secret = env.secret(prefix + "CLIENT_SECRET", "that tenant's client secret");
    if (t.client_id.empty() && t.client_secret.empty()) env.fail(prefix + "CLIENT_ID", "is unset for tenant " + name);
    all.push_back(std::move(t));
  }
  for (const auto& t : all) {
    if (t.client_id.empty() != t.client_secret.empty())
      env.fail("MAILSEC_CLIENT_ID", "tenant " + t.name + ": the client id and secret are set together or not at all");
  }
  if (all.empty()) s.missing = {"MAILSEC_CLIENT_ID", "MAILSEC_CLIENT_SECRET"};
  s.counts_interval = std::chrono::minutes(
      env.integer("MAILSEC_COUNTS_MINUTES", 60,
                  "minutes between pulls of the message counts (also one at start; 0: none)", {0, 24 * 60}));
  s.tenants = std::move(all);
  return s;
}

MimecastClient::MimecastClient(boost::asio::any_io_executor executor, MailsecTenant tenant, integrations::Health health)
    : tenant_(std::move(tenant)),
      http_(std::move(executor), {.total_timeout = kTimeout,
                                  .max_retries = 3,
                                  .max_retry_after = std::chrono::seconds(10),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "mailsec"}),
      health_(std::move(health)) {}

awaitable<std::string> MimecastClient::token(bool fresh) {
  if (fresh) tokens_.drop();
  co_return co_await tokens_.get([this]() -> awaitable<core::http::TokenCache::Issued> {
    core::http::OutboundResponse res;
    try {
      res = co_await http_.send(
          {.method = "POST",
           .url = tenant_.base_url + "/oauth/token",
           .headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
           .body = "grant_type=client_credentials&client_id=" + core::url_encode(tenant_.client_id) +
                   "&client_secret=" + core::url_encode(tenant_.client_secret),
           .retry_transport_errors = true,
           .retry_status = [](int status) { return status == 429 || status >= 500; }});
    } catch (const core::http::TransportError& e) {
      throw MailsecError("the mail-security service could not be reached for a token: " + std::string(e.what()));
    }
    const auto body = json::parse(res.body, nullptr, false);
    if (!res.ok()) {
      const auto reason = fail_reason(body);
      throw MailsecError("the mail-security service refused a token: HTTP " + std::to_string(res.status) +
                         (reason.empty() ? "" : " " + reason));
    }
    if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string())
      throw MailsecError("the mail-security service's token answer has no access_token");
    co_return core::http::TokenCache::Issued{body["access_token"].get<std::string>(),
                                             std::chrono::seconds(body.value("expires_in", 1800))};
  });
}

awaitable<json> MimecastClient::attempt(const std::string& method, const std::string& path, const std::string& body) {
  for (int round = 0;; ++round) {
    const std::string bearer = co_await token(round > 0);
    core::http::OutboundRequest req{.method = method,
                                    .url = tenant_.base_url + path,
                                    .headers = {{"Authorization", "Bearer " + bearer}, {"Accept", "application/json"}},
                                    .retry_status = [](int status) { return status == 429 || status >= 500; }};
    if (method == "POST") {
      req.headers.push_back({"Content-Type", "application/json"});
      req.body = body;
      req.retry_transport_errors = false;
    }
    core::http::OutboundResponse res;
    try {
      res = co_await http_.send(std::move(req));
    } catch (const core::http::TransportError& e) {
      throw MailsecError("the mail-security service could not be reached (" + path + "): " + e.what());
    }
    if (res.status == 401 && round == 0) continue;  // a token it no longer takes: one more, fresh
    auto answer = json::parse(res.body, nullptr, false);
    const auto reason = fail_reason(answer);
    const std::string where = "the mail-security service refused " + path.substr(0, path.find('?'));
    if (res.status == 403) throw MailsecForbidden(where + ": HTTP 403" + (reason.empty() ? "" : " " + reason));
    if (!res.ok())
      throw MailsecError(where + ": HTTP " + std::to_string(res.status) + (reason.empty() ? "" : " " + reason));
    if (!answer.is_object()) throw MailsecError(where + ": the answer is not a JSON object");
    co_return answer;
  }
}

awaitable<json> MimecastClient::send(std::string method, std::string path, std::string body) {
  co_return co_await health_.observe<json>("mailsec", [&] { return attempt(method, path, body); });
}

awaitable<json> MimecastClient::call(std::string path, json item, Paging paging) {
  json pagination{{"pageSize", paging.page_size}};
  if (!paging.page_token.empty()) pagination["pageToken"] = paging.page_token;
  const json envelope{{"meta", {{"pagination", pagination}}}, {"data", json::array({std::move(item)})}};
  co_return co_await send("POST", std::move(path), envelope.dump());
}

awaitable<json> MimecastClient::get(std::string path_and_query) {
  co_return co_await send("GET", std::move(path_and_query), "");
}

}  // namespace ops_console::mailsec
