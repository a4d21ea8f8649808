#pragma once
// The accounting connection (issue 19): the consent that makes it, the tokens it keeps, the
// refresh that keeps them alive, and the disconnect. One organisation at most is connected.
//
//   AccountingConnection connection(db, xero);
//   std::string url = co_await connection.begin(user.id, session_token);   // POST /api/accounting/auth
//   co_await connection.complete(session_token, {state, code, error});     // the callback route
//   std::string page = co_await connection.get("Invoices?page=1", since);  // since: "" for all  // a refreshed token, the tenant
//   json gone = co_await connection.disconnect();
//
// Consent: a single-use `state` (256 random bits, only its SHA-256 stored) bound to the session
// that asked and good for 10 minutes, with a PKCE verifier kept beside it. The callback consumes
// the state whatever happens next; a state that is unknown, used, expired or another session's
// is a 400 and nothing is stored. The code is redeemed, the organisation read from /connections
// (those of this consent: the access token's authentication_event_id), and the tokens stored
// sealed with DATA_ENCRYPTION_KEY.
//
// Refresh: Xero answers every refresh with a new refresh token and the old one stops working
// (after a grace period we do not count on), so two refreshes at once lose the connection. A
// caller whose access token is within a minute of expiring takes the connection row FOR UPDATE
// (one holder across every instance on the database), looks again (another holder may have
// refreshed meanwhile, and then it uses that), refreshes, and commits both new tokens in one
// UPDATE before anyone uses the access token. A refresh token Xero refuses marks the connection
// `needs_reconnect`, and every call then answers 409 until an administrator connects again.
#include "core/db/pool.hpp"
#include "ops_console/accounting/xero.hpp"

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace ops_console::accounting {

inline constexpr std::chrono::minutes kStateLifetime{10};

// 409: no organisation is connected.
core::http::Problem not_connected();

class AccountingConnection {
 public:
  AccountingConnection(core::db::Pool& db, std::shared_ptr<XeroClient> xero);

  const AccountingSettings& settings() const { return xero_->settings(); }

  // A consent page URL for the administrator `user_id` in the session `session_token`.
  boost::asio::awaitable<std::string> begin(std::int64_t user_id, std::string session_token);

  struct Callback {
    std::optional<std::string> state, code, error;
  };
  // Checks the state, redeems the code, stores the connection (replacing any); answers the status.
  boost::asio::awaitable<void> complete(std::int64_t user_id, std::string session_token, Callback callback);

  // 409 without a connection, or with one whose refresh token Xero has refused.
  boost::asio::awaitable<void> require_usable();

  // GET {api}/api.xro/2.0/{path_and_query} for the connected organisation, with a live token
  // (a token Xero refuses is refreshed once and the call made again).
  boost::asio::awaitable<std::string> get(std::string path_and_query, std::string modified_since);

  struct Access {
    std::string token;
    std::string tenant_id;
  };
  // A live access token; `rejected`: one the API has just refused, so a new one is needed even
  // when it has not expired. Throws 409 without a connection or when it needs reconnecting.
  boost::asio::awaitable<Access> access(std::string rejected);
  boost::asio::awaitable<Access> access() { return access(std::string()); }

  // Removes the connection at Xero (when its tokens still reach it), then the stored tokens; the
  // copy stays. {disconnected: true, removedUpstream}. 409 without a connection; 502 when Xero
  // fails (nothing is deleted, so it can be tried again).
  boost::asio::awaitable<nlohmann::json> disconnect();

 private:
  const core::SecretBox& box() const;

  core::db::Pool& db_;
  std::shared_ptr<XeroClient> xero_;
};

// {configured, connected, tenantId, tenantName, baseCurrency, connectedAt, needsReconnect,
// reconnectReason, lastRefreshAt, counts: {invoices, payments, contacts} (of the connected
// organisation), lastSync (the newest accounting run, or null)}.
boost::asio::awaitable<nlohmann::json> connection_status(core::db::Pool& db, bool configured);

}  // namespace ops_console::accounting
