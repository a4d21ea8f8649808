#pragma once
// The client of the mail-security service, Mimecast API 2.0 (../shared/vendors.md, "Mail
// security: Mimecast API 2.0"), one per configured tenant.
//
//   MimecastClient mc(executor, tenant, health);
//   json answer = co_await mc.call("/api/gateway/get-hold-message-list", {{"admin", true}}, {.page_size = 10});
//   // answer: {meta: {status, pagination: {next, ...}}, data: [...], fail: [...]}
//
// The token (POST {base}/oauth/token, client credentials) is kept until a minute before it
// expires, fetched by one caller at a time; a 401 drops it and the call is made once more. Each
// call sends the API 2.0 envelope {meta: {pagination: {pageSize, pageToken}}, data: [item]}.
// Every request has the spec's 20-second timeout. 429 and 5xx are retried honouring Retry-After.
// HTTP 403 throws MailsecForbidden (the held list's admin fallback reads it); other failures, and
// a 200 whose `fail` list is not empty, throw MailsecError (a Problem 502) with Mimecast's code and
// message, never a secret. Every call's outcome is recorded (integration key "mailsec").
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/problem.hpp"
#include "core/http/token_cache.hpp"
#include "ops_console/integrations/health.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ops_console::mailsec {

inline constexpr std::chrono::seconds kTimeout{20};  // the spec's limit of every mail-security request

struct MailsecTenant {
  std::string name;  // "default", or a name of MAILSEC_TENANTS
  std::string base_url = "https://api.services.mimecast.com";
  std::string client_id;
  std::string client_secret;
};

struct MailsecSettings {
  std::vector<MailsecTenant> tenants;        // the first is the default; empty: not configured
  std::vector<std::string> missing;          // what is unset, by name, when not configured
  std::chrono::minutes counts_interval{60};  // the message-count pull; 0: none
};

// MAILSEC_BASE_URL, MAILSEC_CLIENT_ID, MAILSEC_CLIENT_SECRET: the tenant "default". MAILSEC_TENANTS
// (names, comma-separated) adds tenants, each from MAILSEC_<NAME>_CLIENT_ID, _CLIENT_SECRET and
// _BASE_URL (default Mimecast's). A tenant with an id and no secret (or the reverse) refuses start.
MailsecSettings read_mailsec_settings(core::config::Reader& env);

struct MailsecError : core::http::Problem {
  explicit MailsecError(std::string detail)
      : Problem(core::http::Status::bad_gateway, "mailsec-failed", std::move(detail)) {}
};
struct MailsecForbidden : MailsecError {
  using MailsecError::MailsecError;
};

// The first failure of an answer's `fail` list, "code: message"; nullopt when there is none.
std::optional<std::string> failure_of(const nlohmann::json& answer);

struct Paging {
  int page_size = 25;
  std::string page_token;
};

class MimecastClient {
 public:
  MimecastClient(boost::asio::any_io_executor executor, MailsecTenant tenant, integrations::Health health);

  const MailsecTenant& tenant() const { return tenant_; }

  // POST {base}{path} with the envelope around `item`; the answer.
  boost::asio::awaitable<nlohmann::json> call(std::string path, nlohmann::json item, Paging paging);
  // GET {base}{path_and_query} (the SIEM stream); the answer.
  boost::asio::awaitable<nlohmann::json> get(std::string path_and_query);

 private:
  boost::asio::awaitable<std::string> token(bool fresh);
  boost::asio::awaitable<nlohmann::json> send(std::string method, std::string path, std::string body);
  boost::asio::awaitable<nlohmann::json> attempt(const std::string& method, const std::string& path,
                                                 const std::string& body);

  MailsecTenant tenant_;
  core::http::Client http_;
  integrations::Health health_;
  core::http::TokenCache tokens_;
};

}  // namespace ops_console::mailsec
