#pragma once
// The client of the accounting system, Xero (../shared/vendors.md, "Accounting: Xero"): its
// identity service (authorization code with PKCE, refresh) and its API (connections, and the
// Accounting API's lists). It holds no token: the connection (connection.hpp) keeps them.
//
//   XeroClient xero(executor, settings, health);
//   TokenSet t = co_await xero.redeem_code(code, verifier);      // after the consent's redirect
//   TokenSet u = co_await xero.refresh(t.refresh_token);         // a new refresh token every time
//   json tenants = co_await xero.connections(u.access_token, u.auth_event_id);
//   std::string page = co_await xero.get(u.access_token, tenant, "Invoices?page=1", since);
//
// Calls to the Accounting API say Accept: application/json (Xero answers XML otherwise) and carry
// xero-tenant-id. 429 (Xero's per-minute and daily limits) and 5xx are retried honouring
// Retry-After (core::http::Client). What fails throws AccountingError (a Problem 502), whose
// detail names no token or secret; a code or refresh token Xero refuses throws GrantRefused, an
// access token it refuses TokenRejected. Every call's outcome (each token redemption and refresh,
// each API request) is recorded for the integration-health dashboard (integration key
// "accounting"), a failure by that detail.
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/util/secret_box.hpp"
#include "ops_console/accounting/oauth.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ops_console::accounting {

struct AccountingSettings {
  std::string client_id;
  std::string client_secret;
  std::string redirect_uri;  // the console's callback route, as registered with Xero
  std::string authorize_url = "https://login.xero.com/identity/connect/authorize";
  std::string token_url = "https://identity.xero.com/connect/token";
  std::string api_url = "https://api.xero.com";
  std::string scopes = "offline_access accounting.transactions.read accounting.contacts.read accounting.settings.read";
  std::optional<core::SecretBox> box;  // DATA_ENCRYPTION_KEY: seals the stored tokens
  std::chrono::milliseconds timeout{30'000};

  // Client id, secret and redirect URI set (all or none, else the service refuses to start).
  bool configured() const { return !client_id.empty(); }
};

// ACCOUNTING_* and DATA_ENCRYPTION_KEY; a partial set, or a key that is not 32 bytes of base64,
// refuses start (exit 2).
AccountingSettings read_accounting_settings(core::config::Reader& env);

// A failure of the accounting system: a Problem 502 accounting-failed whose detail names no
// token or secret, so a route can let it through as it is.
struct AccountingError : core::http::Problem {
  explicit AccountingError(std::string detail)
      : Problem(core::http::Status::bad_gateway, "accounting-failed", std::move(detail)) {}
};
// The identity service refused the grant (invalid_grant): a code that is wrong, used or expired,
// or a refresh token that no longer works (then the connection is lost and has to be made again).
struct GrantRefused : AccountingError {
  using AccountingError::AccountingError;
};
// The API refused the access token (401).
struct TokenRejected : AccountingError {
  using AccountingError::AccountingError;
};

struct TokenSet {
  std::string access_token;
  std::string refresh_token;
  std::chrono::seconds expires_in{1800};
  std::string auth_event_id;  // the access token's authentication_event_id claim, when it has one
};

inline constexpr int kPageSize = 100;  // what Xero answers per page of Invoices, Payments, Contacts

class XeroClient {
 public:
  XeroClient(boost::asio::any_io_executor executor, AccountingSettings settings, integrations::Health health);

  const AccountingSettings& settings() const { return settings_; }

  // The consent page's URL for this state and PKCE challenge.
  std::string authorize_url(std::string_view state, std::string_view challenge) const;

  boost::asio::awaitable<TokenSet> redeem_code(std::string code, std::string verifier);
  boost::asio::awaitable<TokenSet> refresh(std::string refresh_token);

  // GET {api}/connections (those of one consent when `auth_event_id` is set).
  boost::asio::awaitable<nlohmann::json> connections(std::string access_token, std::string auth_event_id);
  // DELETE {api}/connections/{id}; false when Xero no longer had it (404).
  boost::asio::awaitable<bool> remove_connection(std::string access_token, std::string connection_id);

  // GET {api}/api.xro/2.0/{path_and_query}, the body as Xero sent it; `modified_since` (UTC,
  // "2026-11-01T09:30:00"; empty: none) becomes If-Modified-Since.
  boost::asio::awaitable<std::string> get(std::string access_token, std::string tenant_id, std::string path_and_query,
                                          std::string modified_since);

 private:
  boost::asio::awaitable<TokenSet> token_call(std::string form, const char* what);
  boost::asio::awaitable<core::http::OutboundResponse> send(core::http::OutboundRequest req, const std::string& what);

  AccountingSettings settings_;
  core::http::Client http_;
  integrations::Health health_;
};

}  // namespace ops_console::accounting
