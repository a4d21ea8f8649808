#include "ops_console/accounting/connection.hpp"

#include "core/db/errors.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <algorithm>

namespace ops_console::accounting {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

constexpr std::string_view kNewState = R"sql(
  WITH swept AS (DELETE FROM accounting_auth_states WHERE expires_at < now())
  INSERT INTO accounting_auth_states (state_hash, session_hash, user_id, code_verifier, expires_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
)sql";

// A state is consumed by the first callback that names it, whatever that callback finds.
constexpr std::string_view kTakeState = R"sql(
  DELETE FROM accounting_auth_states WHERE state_hash = $1
  RETURNING session_hash, user_id, code_verifier, expires_at > now()
)sql";

constexpr std::string_view kStore = R"sql(
  INSERT INTO accounting_connection (connection_id, tenant_id, tenant_name, access_token, refresh_token,
                                     access_expires_at, connected_by)
  VALUES ($1::uuid, $2::uuid, $3, $4, $5, now() + make_interval(secs => $6), $7)
  ON CONFLICT (singleton) DO UPDATE SET connection_id = EXCLUDED.connection_id, tenant_id = EXCLUDED.tenant_id,
    tenant_name = EXCLUDED.tenant_name, base_currency = NULL, access_token = EXCLUDED.access_token,
    refresh_token = EXCLUDED.refresh_token, access_expires_at = EXCLUDED.access_expires_at, refreshes = 0,
    refreshed_at = NULL, needs_reconnect = NULL, connected_by = EXCLUDED.connected_by, connected_at = now(),
    updated_at = now()
)sql";

// The tokens, and whether the access token lives at least another minute.
constexpr std::string_view kTokens = R"sql(
  SELECT access_token, refresh_token, tenant_id::text, access_expires_at > now() + interval '60 seconds',
         needs_reconnect
  FROM accounting_connection
)sql";
constexpr std::string_view kRefreshed = R"sql(
  UPDATE accounting_connection
  SET access_token = $1, refresh_token = $2, access_expires_at = now() + make_interval(secs => $3),
      refreshes = refreshes + 1, refreshed_at = now(), updated_at = now()
)sql";
constexpr std::string_view kLost =
    "UPDATE accounting_connection SET needs_reconnect = $1, updated_at = now() WHERE needs_reconnect IS NULL";

constexpr std::string_view kConnectionId = "SELECT connection_id::text, needs_reconnect FROM accounting_connection";
constexpr std::string_view kForget = "DELETE FROM accounting_connection";

// Runs render as sync_history_json() (migration 0013).
constexpr std::string_view kStatus = R"sql(
  SELECT json_build_object(
    'connected', c.tenant_id IS NOT NULL, 'tenantId', c.tenant_id, 'tenantName', c.tenant_name,
    'baseCurrency', c.base_currency, 'connectedAt', c.connected_at, 'needsReconnect', c.needs_reconnect IS NOT NULL,
    'reconnectReason', c.needs_reconnect, 'lastRefreshAt', c.refreshed_at,
    'counts', json_build_object(
      'invoices', (SELECT count(*) FROM accounting_invoices i WHERE i.tenant_id = c.tenant_id),
      'payments', (SELECT count(*) FROM accounting_payments p WHERE p.tenant_id = c.tenant_id),
      'contacts', (SELECT count(*) FROM accounting_contacts k WHERE k.tenant_id = c.tenant_id)),
    'lastSync', (SELECT sync_history_json(h) FROM sync_history h WHERE h.entity_type = 'accounting'
                 ORDER BY h.started_at DESC, h.id DESC LIMIT 1))
  FROM (SELECT 1) one LEFT JOIN accounting_connection c ON true
)sql";

Problem reconnect(std::string_view reason) {
  return Problem::conflict("the accounting connection was refused (" + std::string(reason) +
                           "); an administrator has to connect again (POST /api/accounting/auth)");
}

// What Xero put in error=…: its codes are short words; anything else is not repeated.
std::string error_code(std::string_view error) {
  const bool word = !error.empty() && error.size() <= 64 && std::all_of(error.begin(), error.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  return word ? std::string(error) : "an error";
}

}  // namespace

Problem not_connected() {
  return Problem::conflict("no accounting organisation is connected (POST /api/accounting/auth)");
}

AccountingConnection::AccountingConnection(core::db::Pool& db, std::shared_ptr<XeroClient> xero)
    : db_(db), xero_(std::move(xero)) {}

const core::SecretBox& AccountingConnection::box() const {
  if (!settings().box)
    throw Problem::unavailable("DATA_ENCRYPTION_KEY is unset: the accounting tokens cannot be stored or read");
  return *settings().box;
}

awaitable<std::string> AccountingConnection::begin(std::int64_t user_id, std::string session_token) {
  box();  // nothing is started that could not be stored
  const std::string state = core::random_base64url(32);
  const std::string verifier = core::random_base64url(48);  // 64 characters, RFC 7636's 43..128
  co_await db_.query(kNewState, core::sha256_hex(state), core::sha256_hex(session_token), user_id, verifier,
                     static_cast<std::int64_t>(std::chrono::seconds(kStateLifetime).count()));
  co_return xero_->authorize_url(state, pkce_challenge(verifier));
}

awaitable<void> AccountingConnection::complete(std::int64_t user_id, std::string session_token, Callback callback) {
  if (!callback.state || callback.state->empty()) throw Problem::invalid_field("state", "is required");
  const auto taken = co_await db_.query(kTakeState, core::sha256_hex(*callback.state));
  if (taken.empty()) throw Problem::invalid_field("state", "is unknown or was used already; start again");
  const auto& row = taken.front();
  if (!row.get<bool>(3)) throw Problem::invalid_field("state", "has expired; start again");
  if (row.text(0) != core::sha256_hex(session_token) || row.get<std::int64_t>(1) != user_id)
    throw Problem::invalid_field("state", "was issued to another session; start again");
  if (callback.error)
    throw Problem::invalid_field("error", "the organisation was not connected: " + error_code(*callback.error));
  if (!callback.code || callback.code->empty()) throw Problem::invalid_field("code", "is required");
  const auto& seal = box();

  TokenSet tokens;
  try {
    tokens = co_await xero_->redeem_code(*callback.code, std::string(row.text(2)));
  } catch (const GrantRefused&) {
    throw Problem::invalid_field("code", "was refused by the accounting system (wrong, used or expired)");
  }
  const json connections = co_await xero_->connections(tokens.access_token, tokens.auth_event_id);
  // The organisation this consent connected; of several, the one connected last.
  const json* chosen = nullptr;
  for (const auto& c : connections)
    if (c.is_object() && c.value("tenantType", "") == "ORGANISATION" && c.contains("id") && c.contains("tenantId") &&
        (!chosen || c.value("updatedDateUtc", "") > chosen->value("updatedDateUtc", "")))
      chosen = &c;
  if (!chosen) throw AccountingError("the consent connected no organisation");
  try {
    co_await db_.query(kStore, chosen->value("id", ""), chosen->value("tenantId", ""),
                       chosen->value("tenantName", "(unnamed)"), seal.seal(tokens.access_token),
                       seal.seal(tokens.refresh_token), static_cast<std::int64_t>(tokens.expires_in.count()), user_id);
  } catch (const core::db::Error& e) {
    if (e.sqlstate == "22P02") throw AccountingError("the accounting system's connection ids are not UUIDs");
    throw;
  }
  core::log::info("accounting organisation connected", {{"tenant", chosen->value("tenantName", "")}});
}

awaitable<AccountingConnection::Access> AccountingConnection::access(std::string rejected) {
  const auto& seal = box();
  const auto open = [&](std::string_view sealed) {
    auto token = seal.unseal(sealed);
    if (!token)
      throw Problem::unavailable(
          "DATA_ENCRYPTION_KEY does not open the stored accounting tokens (was it changed?); connect again");
    return std::move(*token);
  };
  // Usable as stored: not about to expire, and not the one the API has just refused.
  const auto usable = [&](const core::db::Row& r) -> std::optional<Access> {
    if (!r.get<bool>(3)) return std::nullopt;
    Access a{open(r.text(0)), std::string(r.text(2))};
    if (!rejected.empty() && a.token == rejected) return std::nullopt;
    return a;
  };

  {
    const auto rows = co_await db_.query(kTokens);
    if (rows.empty()) throw not_connected();
    if (!rows.front().is_null(4)) throw reconnect(rows.front().text(4));
    if (auto a = usable(rows.front())) co_return *a;
  }

  auto tx = co_await db_.begin();
  const auto rows = co_await tx.query(std::string(kTokens) + " FOR UPDATE");  // waits while another caller refreshes
  if (rows.empty()) throw not_connected();
  if (!rows.front().is_null(4)) throw reconnect(rows.front().text(4));
  if (auto a = usable(rows.front())) co_return *a;  // refreshed by the holder we waited for
  const std::string tenant(rows.front().text(2));
  TokenSet fresh;
  std::optional<std::string> refused;
  try {
    fresh = co_await xero_->refresh(open(rows.front().text(1)));
  } catch (const GrantRefused& e) {
    refused = core::secrets::quote(e.detail());  // stored: masked, bounded
  }
  if (refused) {
    co_await tx.query(kLost, *refused);
    co_await tx.commit();
    core::log::warn("the accounting refresh token was refused; the connection needs an administrator");
    throw reconnect(*refused);
  }
  // Both tokens are stored before the access token is used: a crash after Xero answered loses
  // nothing but this one access token.
  co_await tx.query(kRefreshed, seal.seal(fresh.access_token), seal.seal(fresh.refresh_token),
                    static_cast<std::int64_t>(fresh.expires_in.count()));
  co_await tx.commit();
  co_return Access{std::move(fresh.access_token), tenant};
}

awaitable<void> AccountingConnection::require_usable() {
  const auto rows = co_await db_.query(kConnectionId);
  if (rows.empty()) throw not_connected();
  if (!rows.front().is_null(1)) throw reconnect(rows.front().text(1));
}

awaitable<std::string> AccountingConnection::get(std::string path_and_query, std::string modified_since) {
  auto a = co_await access();
  try {
    co_return co_await xero_->get(a.token, a.tenant_id, path_and_query, modified_since);
  } catch (const TokenRejected&) {
  }
  a = co_await access(a.token);
  co_return co_await xero_->get(a.token, a.tenant_id, path_and_query, modified_since);
}

awaitable<json> AccountingConnection::disconnect() {
  const auto rows = co_await db_.query(kConnectionId);
  if (rows.empty()) throw not_connected();
  bool removed = false;
  if (rows.front().is_null(1)) {  // its tokens may still reach Xero
    const std::string connection(rows.front().text(0));
    try {
      auto a = co_await access();
      bool rejected = false;
      try {
        removed = co_await xero_->remove_connection(a.token, connection);
      } catch (const TokenRejected&) {
        rejected = true;
      }
      if (rejected) {
        a = co_await access(a.token);
        removed = co_await xero_->remove_connection(a.token, connection);
      }
    } catch (const TokenRejected&) {
      // Xero no longer takes any token of this connection: nothing is left to remove there.
    } catch (const Problem& p) {
      if (p.status() != core::http::Status::conflict) throw;  // 502, 503: nothing deleted, try again
      // The refresh token was refused meanwhile: the connection is gone at Xero already.
    }
  }
  co_await db_.query(kForget);
  core::log::info("accounting organisation disconnected", {{"removed_upstream", removed}});
  co_return json{{"disconnected", true}, {"removedUpstream", removed}};
}

awaitable<json> connection_status(core::db::Pool& db, bool configured) {
  const auto rows = co_await db.query(kStatus);
  json out = json::parse(rows.front().text(0));
  out["configured"] = configured;
  co_return out;
}

}  // namespace ops_console::accounting
