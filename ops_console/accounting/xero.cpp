#include "ops_console/accounting/xero.hpp"

#include "core/util/secrets.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

namespace ops_console::accounting {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// Xero's words for a failure, short: the identity service's {error, error_description} (the code,
// then its description when it gives one), the API's {Title, Detail} or {Message}; or the status.
std::string reason_of(const core::http::OutboundResponse& res) {
  const auto body = json::parse(res.body, nullptr, false);
  const auto text = [&](const char* key) {
    return body.is_object() && body.contains(key) && body[key].is_string() ? body[key].get<std::string>() : "";
  };
  std::string reason;
  for (const char* key : {"error", "Detail", "Message", "Title", "error_description"})
    if (!text(key).empty()) {
      reason = text(key);
      break;
    }
  if (!text("error").empty() && !text("error_description").empty()) reason += ": " + text("error_description");
  // Its words may quote what the request carried (the Basic credentials, a token): masked, then cut.
  reason = core::secrets::quote(reason, 300);
  return "HTTP " + std::to_string(res.status) + (reason.empty() ? "" : ": " + reason);
}

const auto retry_throttled = [](int status) { return status == 429 || status >= 500; };

}  // namespace

AccountingSettings read_accounting_settings(core::config::Reader& env) {
  AccountingSettings s;
  s.client_id = env.string("ACCOUNTING_CLIENT_ID", "", "the accounting app's client id (Xero; unset: not configured)");
  s.client_secret = env.secret("ACCOUNTING_CLIENT_SECRET", "the accounting app's client secret");
  using UrlEnd = core::config::Reader::UrlEnd;
  s.redirect_uri = env.url("ACCOUNTING_REDIRECT_URI", "",
                           "where the consent page sends the browser back: this console's "
                           "/api/accounting/callback, as registered with the app",
                           UrlEnd::as_given);
  s.authorize_url =
      env.url("ACCOUNTING_AUTHORIZE_URL", s.authorize_url, "the accounting consent page", UrlEnd::as_given);
  s.token_url = env.url("ACCOUNTING_TOKEN_URL", s.token_url, "the accounting identity service's token endpoint",
                        UrlEnd::as_given);
  s.api_url = env.url("ACCOUNTING_API_URL", s.api_url, "the accounting API ({api}/connections, {api}/api.xro/2.0/...)");
  s.scopes = env.string("ACCOUNTING_SCOPES", s.scopes, "the scopes asked for at consent, space-separated");
  const std::string key =
      env.secret("DATA_ENCRYPTION_KEY",
                 "32 random bytes, base64: seals stored integration tokens (required to connect accounting)");
  if (!key.empty()) {
    s.box = core::SecretBox::from_base64(key);
    if (!s.box) env.fail("DATA_ENCRYPTION_KEY", "must be 32 bytes in base64 (openssl rand -base64 32)");
  }
  const bool any = !s.client_id.empty() || !s.client_secret.empty() || !s.redirect_uri.empty();
  if (any && (s.client_id.empty() || s.client_secret.empty() || s.redirect_uri.empty()))
    env.fail(
        "ACCOUNTING_CLIENT_ID",
        "ACCOUNTING_CLIENT_ID, ACCOUNTING_CLIENT_SECRET and ACCOUNTING_REDIRECT_URI are set together or not at all");
  return s;
}

XeroClient::XeroClient(boost::asio::any_io_executor executor, AccountingSettings settings, integrations::Health health)
    : settings_(std::move(settings)),
      http_(std::move(executor), {.total_timeout = settings_.timeout,
                                  .max_retries = 4,
                                  .max_retry_after = std::chrono::seconds(60),
                                  .user_agent = "msp-ops-console/0.1",
                                  .integration = "accounting"}),
      health_(std::move(health)) {
  // The token endpoint's Authorization header carries base64(client_id:client_secret): an identity
  // service that quotes the header quotes that (the secret alone is remembered as it is read).
  core::secrets::remember_basic(settings_.client_id, settings_.client_secret);
}

std::string XeroClient::authorize_url(std::string_view state, std::string_view challenge) const {
  const char separator = settings_.authorize_url.find('?') == std::string::npos ? '?' : '&';
  return settings_.authorize_url + separator + "response_type=code&client_id=" + core::url_encode(settings_.client_id) +
         "&redirect_uri=" + core::url_encode(settings_.redirect_uri) + "&scope=" + core::url_encode(settings_.scopes) +
         "&state=" + core::url_encode(state) + "&code_challenge=" + core::url_encode(challenge) +
         "&code_challenge_method=S256";
}

awaitable<core::http::OutboundResponse> XeroClient::send(core::http::OutboundRequest req, const std::string& what) {
  try {
    co_return co_await http_.send(std::move(req));
  } catch (const core::http::TransportError& e) {
    throw AccountingError("the accounting system could not be reached (" + what + "): " + e.what());
  }
}

// The token endpoint: the client authenticates with HTTP Basic, the grant is a form.
awaitable<TokenSet> XeroClient::token_call(std::string form, const char* what) {
  co_return co_await health_.observe<TokenSet>("accounting", [&]() -> awaitable<TokenSet> {
    core::http::OutboundRequest req{
        .method = "POST",
        .url = settings_.token_url,
        .headers = {{"Authorization", "Basic " + core::base64(settings_.client_id + ":" + settings_.client_secret)},
                    {"Content-Type", "application/x-www-form-urlencoded"},
                    {"Accept", "application/json"}},
        .body = std::move(form),
        // A redeemed code or a used refresh token is spent once Xero has answered: only a request
        // that got no answer at all is sent again (the refresh grace period covers it).
        .retry_transport_errors = true,
        .retry_status = [](int status) { return status == 429 || status == 503; }};
    const auto res = co_await send(std::move(req), what);
    const auto body = json::parse(res.body, nullptr, false);
    if (res.status == 400 && body.is_object() && body.value("error", "") == "invalid_grant")
      throw GrantRefused(std::string("the accounting system refused the ") + what + " (invalid_grant)");
    if (!res.ok())
      throw AccountingError(std::string("the accounting system refused the ") + what + ": " + reason_of(res));
    if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string())
      throw AccountingError(std::string("the accounting system's answer to the ") + what + " has no access_token");
    TokenSet t;
    t.access_token = body["access_token"].get<std::string>();
    if (body.contains("refresh_token") && body["refresh_token"].is_string())
      t.refresh_token = body["refresh_token"].get<std::string>();
    if (body.contains("expires_in") && body["expires_in"].is_number_integer())
      t.expires_in = std::chrono::seconds(body["expires_in"].get<std::int64_t>());
    core::secrets::remember(t.access_token);  // both masked in every log line from now on
    core::secrets::remember(t.refresh_token);
    t.auth_event_id = jwt_claim(t.access_token, "authentication_event_id").value_or("");
    if (t.refresh_token.empty())
      throw AccountingError(std::string("the accounting system's answer to the ") + what +
                            " has no refresh_token (is offline_access among ACCOUNTING_SCOPES?)");
    co_return t;
  });
}

awaitable<TokenSet> XeroClient::redeem_code(std::string code, std::string verifier) {
  // Both are credentials until the identity service has answered (a refusal may quote them).
  core::secrets::remember(code);
  core::secrets::remember(verifier);
  co_return co_await token_call("grant_type=authorization_code&code=" + core::url_encode(code) +
                                    "&redirect_uri=" + core::url_encode(settings_.redirect_uri) +
                                    "&code_verifier=" + core::url_encode(verifier),
                                "authorization code");
}

awaitable<TokenSet> XeroClient::refresh(std::string refresh_token) {
  co_return co_await token_call("grant_type=refresh_token&refresh_token=" + core::url_encode(refresh_token),
                                "refresh token");
}

awaitable<json> XeroClient::connections(std::string access_token, std::string auth_event_id) {
  co_return co_await health_.observe<json>("accounting", [&]() -> awaitable<json> {
    const std::string query = auth_event_id.empty() ? "" : "?authEventId=" + core::url_encode(auth_event_id);
    const auto res =
        co_await send({.method = "GET",
                       .url = settings_.api_url + "/connections" + query,
                       .headers = {{"Authorization", "Bearer " + access_token}, {"Accept", "application/json"}},
                       .retry_status = retry_throttled},
                      "connections");
    if (res.status == 401) throw TokenRejected("the accounting system refused the access token (connections)");
    if (!res.ok()) throw AccountingError("the accounting system refused the connections list: " + reason_of(res));
    auto body = json::parse(res.body, nullptr, false);
    if (!body.is_array()) throw AccountingError("the accounting system's connections list is not an array");
    co_return body;
  });
}

awaitable<bool> XeroClient::remove_connection(std::string access_token, std::string connection_id) {
  co_return co_await health_.observe<bool>("accounting", [&]() -> awaitable<bool> {
    const auto res = co_await send({.method = "DELETE",
                                    .url = settings_.api_url + "/connections/" + core::url_encode(connection_id),
                                    .headers = {{"Authorization", "Bearer " + access_token}},
                                    .retry_transport_errors = true,
                                    .retry_status = retry_throttled},
                                   "disconnect");
    if (res.status == 404) co_return false;
    if (res.status == 401) throw TokenRejected("the accounting system refused the access token (disconnect)");
    if (!res.ok()) throw AccountingError("the accounting system refused the disconnect: " + reason_of(res));
    co_return true;
  });
}

awaitable<std::string> XeroClient::get(std::string access_token, std::string tenant_id, std::string path_and_query,
                                       std::string modified_since) {
  co_return co_await health_.observe<std::string>("accounting", [&]() -> awaitable<std::string> {
    const std::string path = path_and_query.substr(0, path_and_query.find('?'));
    core::http::OutboundRequest req{.method = "GET",
                                    .url = settings_.api_url + "/api.xro/2.0/" + path_and_query,
                                    .headers = {{"Authorization", "Bearer " + access_token},
                                                {"xero-tenant-id", tenant_id},
                                                {"Accept", "application/json"}},
                                    .retry_status = retry_throttled};
    if (!modified_since.empty()) req.headers.push_back({"If-Modified-Since", modified_since});
    const auto res = co_await send(std::move(req), path);
    if (res.status == 401) throw TokenRejected("the accounting system refused the access token (" + path + ")");
    if (!res.ok()) throw AccountingError("the accounting system refused " + path + ": " + reason_of(res));
    co_return res.body;
  });
}

}  // namespace ops_console::accounting
