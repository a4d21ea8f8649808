#include "ops_console/mfa/duo.hpp"

#include "core/util/digest.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/mfa/duo_users.hpp"

#include <algorithm>

namespace ops_console::mfa {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

struct UrlParts {
  std::string scheme, host, path;  // "https", "api-x.duosecurity.com[:port]", "" or "/prefix"
};

UrlParts split_url(const std::string& url) {
  UrlParts p;
  const auto scheme_end = url.find("://");
  p.scheme = url.substr(0, scheme_end);
  const auto host_start = scheme_end + 3;
  const auto path_start = url.find('/', host_start);
  p.host = url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
  if (path_start != std::string::npos) p.path = url.substr(path_start);
  while (p.path.ends_with('/')) p.path.pop_back();
  return p;
}

// Duo's words for a failure: {stat: "FAIL", code, message, message_detail}, or the status.
// `authorization` is what the request sent: "Basic " + base64(ikey:signature). The signature is
// an HMAC of this one request under the secret key, valid while its Date is (minutes); it is masked
// here, in the words of the answer to that request, rather than remembered for the process, which
// would push the tokens other clients obtained out of core::secrets for every Duo call.
std::string reason_of(const core::http::OutboundResponse& res, std::string_view authorization) {
  const auto encoded = authorization.substr(std::min(authorization.size(), std::string_view("Basic ").size()));
  const auto decoded = core::from_base64(encoded).value_or("");
  const std::string signature = decoded.substr(std::min(decoded.size(), decoded.find(':') + 1));
  const auto body = json::parse(res.body, nullptr, false);
  std::string reason = "HTTP " + std::to_string(res.status);
  if (body.is_object()) {
    if (body.contains("code") && body["code"].is_number_integer()) reason += " " + body["code"].dump();
    for (const char* key : {"message", "message_detail"})
      if (body.contains(key) && body[key].is_string()) {
        reason += ": " + core::secrets::quote(body[key].get<std::string>(), 200, {encoded, signature});
      }
  }
  return reason;
}

}  // namespace

std::vector<std::string> MfaSettings::missing() const {
  std::vector<std::string> out;
  if (base_url.empty()) out.emplace_back("MFA_BASE_URL");
  if (integration_key.empty()) out.emplace_back("MFA_INTEGRATION_KEY");
  if (secret_key.empty()) out.emplace_back("MFA_SECRET_KEY");
  return out;
}

MfaSettings read_mfa_settings(core::config::Reader& env) {
  MfaSettings s;
  s.base_url =
      env.url("MFA_BASE_URL", "", "the MFA account's Admin API host as a URL (https://api-XXXXXXXX.duosecurity.com)");
  s.integration_key = env.string("MFA_INTEGRATION_KEY", "", "the Admin API application's integration key");
  s.secret_key = env.secret("MFA_SECRET_KEY", "the Admin API application's secret key");
  s.timeout = std::chrono::seconds(
      env.integer("MFA_TIMEOUT_SECONDS", 20, "the limit of one request to the MFA service", {1, 300}));
  s.cache_ttl = std::chrono::seconds(env.integer(
      "MFA_CACHE_SECONDS", 60, "how long an instance keeps the flagged-users answer (0: not kept)", {0, 3600}));
  return s;
}

DuoClient::DuoClient(boost::asio::any_io_executor executor, MfaSettings settings, integrations::Health health)
    : settings_(std::move(settings)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 3,
                                  .max_retry_after = std::chrono::seconds(30),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "mfa"}),
      health_(std::move(health)) {}

std::string DuoClient::url_of(const std::optional<DuoAccount>& account) const {
  if (!account) return settings_.base_url;
  const auto base = split_url(settings_.base_url);
  return base.scheme + "://" + account->api_hostname + base.path;
}

awaitable<std::string> DuoClient::call(std::string method, std::string host_url, std::string path, DuoParams params) {
  co_return co_await health_.observe<std::string>(
      "mfa", [&] { return attempt(std::move(method), std::move(host_url), std::move(path), std::move(params)); });
}

awaitable<std::string> DuoClient::attempt(std::string method, std::string host_url, std::string path,
                                          DuoParams params) {
  const auto url = split_url(host_url);
  const std::string full_path = url.path + path;
  const std::string date = duo_date_now();
  core::http::OutboundRequest req{.method = method};
  std::string canonical;
  if (method == "GET") {
    const std::string query = duo_canon_params(params);
    canonical = duo_canonical_v5(date, method, url.host, full_path, params, "", {});
    req.url = host_url + path + (query.empty() ? "" : "?" + query);
  } else {  // parameters as a JSON body, keys sorted, no spaces (duo_client's canon_json)
    json body = json::object();
    for (const auto& [k, v] : params) body[k] = v;
    req.body = body.dump();
    canonical = duo_canonical_v5(date, method, url.host, full_path, {}, req.body, {});
    req.url = host_url + path;
    req.headers.push_back({"Content-Type", "application/json"});
  }
  req.headers.push_back({"Date", date});
  const std::string authorization = duo_authorization(settings_.integration_key, settings_.secret_key, canonical);
  req.headers.push_back({"Authorization", authorization});
  req.retry_status = [](int status) { return status == 429 || status >= 500; };
  req.retry_transport_errors = method == "GET";
  core::http::OutboundResponse res;
  try {
    res = co_await http_.send(std::move(req));
  } catch (const core::http::TransportError& e) {
    throw MfaError("the MFA service could not be reached (" + path + "): " + e.what());
  }
  if (!res.ok()) throw MfaError("the MFA service refused " + path + ": " + reason_of(res, authorization));
  co_return std::move(res.body);
}

awaitable<std::vector<DuoAccount>> DuoClient::child_accounts() {
  const auto body =
      json::parse(co_await call("POST", settings_.base_url, "/accounts/v1/account/list", {}), nullptr, false);
  if (!body.is_object() || body.value("stat", "") != "OK" || !body.contains("response") || !body["response"].is_array())
    throw MfaError("the MFA service's account list is not {stat: OK, response: [...]}");
  std::vector<DuoAccount> out;
  for (const auto& a : body["response"])
    if (a.is_object() && a.contains("account_id") && a.contains("api_hostname"))
      out.push_back({a.value("account_id", ""), a.value("name", ""), a.value("api_hostname", "")});
  co_return out;
}

awaitable<DuoClient::Users> DuoClient::users(std::optional<DuoAccount> account, std::set<std::string> statuses) {
  Users all;
  std::int64_t offset = 0;
  for (;;) {
    DuoParams params{{"limit", std::to_string(kUsersPerPage)}, {"offset", std::to_string(offset)}};
    if (account) params.emplace("account_id", account->id);
    const std::string body = co_await call("GET", url_of(account), "/admin/v1/users", std::move(params));
    auto page = parse_users_page(body, statuses);
    if (!page) throw MfaError("the MFA service's user list is not {stat: OK, response: [...]}");
    all.read += page->read;
    for (auto& u : page->users) all.kept.push_back(std::move(u));
    if (!page->next_offset) co_return all;
    if (*page->next_offset <= offset) throw MfaError("the MFA service's next_offset does not move forward");
    offset = *page->next_offset;
  }
}

}  // namespace ops_console::mfa
