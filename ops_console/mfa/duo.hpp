#pragma once
// The client of the MFA service, Cisco Duo's Admin API and Accounts API (../shared/vendors.md,
// "MFA: Cisco Duo Admin API"): every request signed (duo_signature.hpp, version 5), users read in
// pages of 300 (the Admin API's largest `limit`) by offset until metadata.next_offset is absent.
//
//   DuoClient duo(executor, settings, health);
//   auto accounts = co_await duo.child_accounts();     // the Accounts API; the parent is not listed
//   json users = co_await duo.users(std::nullopt);      // the parent's users
//   json theirs = co_await duo.users(accounts[0]);      // a child's: its api_hostname, account_id=<id>
//
// A child account is called at its own api_hostname with the parent's keys and account_id (as
// duo_client's Accounts/Admin do); its URL keeps MFA_BASE_URL's scheme and path. Every request has
// MFA_TIMEOUT_SECONDS (20); 429 and 5xx are retried with backoff (core::http::Client). A failure
// throws MfaError (a Problem 502) with Duo's code and message, never a key; every call's outcome is
// recorded for the integration-health dashboard (integration key "mfa").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "ops_console/integrations/health.hpp"
#include "ops_console/mfa/duo_signature.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ops_console::mfa {

struct MfaSettings {
  std::string base_url;  // https://api-XXXXXXXX.duosecurity.com
  std::string integration_key;
  std::string secret_key;
  std::chrono::milliseconds timeout{20'000};
  std::chrono::seconds cache_ttl{60};

  // The settings a call needs that are unset, by name: empty when configured.
  std::vector<std::string> missing() const;
};

// MFA_*; a base URL that is not an absolute http(s) URL refuses start (exit 2). A partial set
// starts: the routes then answer 503 naming what is missing.
MfaSettings read_mfa_settings(core::config::Reader& env);

// A failure of the MFA service: a Problem 502 mfa-failed whose detail names Duo's code and message.
struct MfaError : core::http::Problem {
  explicit MfaError(std::string detail) : Problem(core::http::Status::bad_gateway, "mfa-failed", std::move(detail)) {}
};

struct DuoAccount {
  std::string id;  // account_id
  std::string name;
  std::string api_hostname;
};

inline constexpr int kUsersPerPage = 300;

class DuoClient {
 public:
  DuoClient(boost::asio::any_io_executor executor, MfaSettings settings, integrations::Health health);

  const MfaSettings& settings() const { return settings_; }

  // POST /accounts/v1/account/list: the child accounts.
  boost::asio::awaitable<std::vector<DuoAccount>> child_accounts();
  // GET /admin/v1/users, every page: the parent's (nullopt) or a child's users whose status is
  // one of `statuses` (every user when empty), each with its top-level fields (duo_users.hpp).
  struct Users {
    nlohmann::json kept = nlohmann::json::array();
    std::int64_t read = 0;  // every user of the account
  };
  boost::asio::awaitable<Users> users(std::optional<DuoAccount> account, std::set<std::string> statuses);

 private:
  // One signed call: the body of a 2xx answer; its outcome recorded.
  boost::asio::awaitable<std::string> call(std::string method, std::string host_url, std::string path,
                                           DuoParams params);
  boost::asio::awaitable<std::string> attempt(std::string method, std::string host_url, std::string path,
                                              DuoParams params);
  std::string url_of(const std::optional<DuoAccount>& account) const;

  MfaSettings settings_;
  core::http::Client http_;
  integrations::Health health_;
};

}  // namespace ops_console::mfa
