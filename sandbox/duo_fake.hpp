#pragma once
// A fake of Cisco Duo's Admin API and Accounts API (MFA), following Duo's published behaviour
// (../shared/vendors.md, "MFA: Cisco Duo Admin API", checked against the sources below) rather than
// any client's expectations, under /duo so that MFA_BASE_URL = <sandbox>/duo:
//
//   POST /duo/accounts/v1/account/list   → {stat: "OK", response: [{account_id, name, api_hostname}]}: the
//                                          parent's child accounts
//   GET  /duo/admin/v1/users             ?limit (default 100, at most 300), offset (default 0), account_id,
//                                          username → {stat: "OK", response: [user...], metadata:
//                                          {total_objects, next_offset (absent on the last page), prev_offset
//                                          (absent on the first)}}
//
// Signing, exactly as Duo's own clients sign (duo_signing.hpp computes it):
//   - Authorization: Basic base64(ikey ":" hex(HMAC-SHA512(skey, canonical))); the canonical string is the
//     lines date, METHOD (upper case), host (lower case), path, canonical parameters, and for signature
//     version 5 two more: hex SHA-512 of the body and hex SHA-512 of the X-Duo-* headers (names lowercased,
//     sorted, "name\0value\0name\0value..."; the hash of "" when there are none). The canonical parameters
//     are every name=value percent-encoded as Python's urllib.parse.quote(s, '~') does (only A-Z a-z 0-9
//     - . _ ~ stay; a space is %20, never '+'), sorted by encoded name then value, joined by '&'.
//   - duo_client_python today (duosecurity/duo_client_python, duo_client/client.py, version 5.6.1:
//     Client.sig_version = 5) signs version 5 for every method: a GET puts its parameters in the query
//     string and signs them, with the SHA-512 of "" as the body line; a POST, PUT or PATCH sends its
//     parameters as a JSON body (json.dumps(sort_keys=True, separators=(',', ':')), Content-Type
//     application/json), signs an empty parameter line and the SHA-512 of that body. Its Date header is
//     email.utils.formatdate() ("Tue, 21 Aug 2012 17:29:18 -0000"). duosecurity/duo_hmac_python sends the date
//     as X-Duo-Date instead (which then is one of the hashed X-Duo headers): the date line is X-Duo-Date
//     when present, else Date. duosecurity/duo_api_golang still signs version 2 (the five lines, HMAC-SHA512)
//     in SignedCall (parameters in the query, or a form body for POST/PUT) and version 5 in JSONSignedCall,
//     so Duo accepts both: so does this fake (PUT /_sandbox/duo/signing {versions: [5]} accepts 5 only), and
//     stats count which one each call used. HMAC-SHA1 and versions 1 and 4 are refused.
//   - The host line is the host the client signed, which the fake can only learn from the request's Host
//     header: it accepts that header as sent and without its ":port" (duo_client signs its `host` without the
//     port it connects to). The path line is the request's path as sent ("/duo/admin/v1/users"), or the same
//     without the "/duo" prefix (a client that signs the API path and prepends MFA_BASE_URL's path).
//   - Refusals are 401 with Duo's body {stat: "FAIL", code, message}: 40101 "Missing request credentials"
//     (no Basic Authorization), 40102 "Invalid integration key in request credentials" (an ikey the fake does
//     not know; Duo's Authentication Proxy source lists 40102 so, one 2024 report quotes "Invalid identity in
//     request credentials" for it: duo_api_csharp issue 36), 40103 "Invalid signature in request
//     credentials" (community.duo.com and Duo help article 1338), 40105 "Bad request timestamp" when the date
//     is unparseable or more than max_clock_skew (300 s, unverified: Duo publishes no figure) from the fake's
//     clock (the live answer quoted in FreshSupaSulley/Auto-2FA issues 8 and 14), and 40105 "Missing request
//     timestamp" without one (the message Duo answers per the Cisco community; its code is unverified).
//
// Published examples these rules reproduce (sandbox/tests/duo_fake_test.cpp): Duo's documentation example
// (ikey DIWJ8X6AEYOR5OMC6TQ1, skey Zh5eGmUq9zpfQnyUIu5OL9iWoMMv5ZNmk3zLJ4Ep, "Tue, 21 Aug 2012 17:29:18 -0000",
// POST api-xxxxxxxx.duosecurity.com /accounts/v1/account/list realname=First%20Last&username=root, HMAC-SHA512)
// and its version 5 form, as duo_api_golang's duo_test.go TestSign / TestSignV5 pin them; duo_client_python's
// tests/test_client.py (test_hmac_sha512, test_v5_with_json with its X-Duo header hash, the printable-ASCII
// parameter encoding); duo_hmac_python's test/test_hmac.py (X-Duo-Date).
//
// Accounts and users (duo.com/docs/accountsapi, duo.com/docs/adminapi "Retrieve Users"):
//   - "An Accounts API ikey and skey can authenticate with the Admin API for any child account. When using an
//     Accounts API application all Admin API methods take an additional parameter, account_id, which selects the
//     child account to operate on." The parent's integration here holds both grants: without account_id an
//     Admin API call reads the parent's own users, with it the child's. duo_client's AccountAdmin sends the
//     child's calls to the child's api_hostname; here every account's api_hostname is the Host the caller used,
//     so either way reaches this fake. An account_id that is not a child is 400 {code 40002, message "Invalid
//     request parameters", message_detail "account_id"} (unverified; Duo documents no answer for it).
//   - Users: {alias1..4, aliases, created, desktoptokens, email, enable_auto_prompt, external_id, firstname,
//     groups, is_enrolled, last_directory_sync, last_login (unix seconds or null), lastname, lockout_reason,
//     notes, phones, realname, status (active, bypass, disabled, locked out, pending deletion), tokens,
//     u2ftokens, user_id, username, webauthncredentials}; one stable order, so offsets neither skip nor repeat.
//     limit outside 1..300 or a negative offset is 400 {code 40002, message "Invalid request parameters",
//     message_detail "limit"} (Duo's documented range; the refusal's shape is the one Duo gives bad parameters,
//     the clamp-or-refuse choice is unverified). duo_client pages with limit 100 until next_offset is absent.
//   - duo.com/docs/rate-limits: a 500 is {code 50001, message "Unknown internal server error", stat "FAIL"}; a
//     rate-limited call is 429 {code 42901, message "Too Many Requests", stat "FAIL"} (the code the brief gives;
//     the body is unverified) and here carries Retry-After (duo_client itself backs off 1, 2, 4... s up to 32 s
//     without reading it).
//
// Credentials (DuoFakeOptions): the parent's Accounts/Admin API integration, ikey "DISANDBOXPARENT00001" (20
// characters starting DI, Duo's form), skey "sandbox-duo-secret-key-0123456789abcdefg" (40 characters).
// Seed (duo_seed.hpp): the parent "Northwind IT Services" and two children named after PSA companies, 60 users
// each by default; the benchmark uses {children: 2, users: 2000}.
//
// Control routes (tests in other processes, the demo), under /_sandbox/duo:
//   POST /_sandbox/duo/reset             forget accounts, switches, counters; the clock and signing back to defaults
//   POST /_sandbox/duo/seed              {seed, children, users, psa_companies} → 201 {accounts, users}
//   PUT  /_sandbox/duo/faults            {throttle, retry_after, server_errors, status, latency_ms,
//                                        echo_credentials, error_padding}: with echo_credentials, a
//                                        refused signature and a fault's error quote in `message` the
//                                        Authorization header's base64 (echo.hpp)
//   PUT  /_sandbox/duo/accounts/{account_id}/failing  {status: 403|500|... or 0}: that account's Admin API calls
//                                        fail with Duo's body for the status (403 → 40301 "Access forbidden",
//                                        500 → 50001 ...); 0 heals it → 204
//   PUT  /_sandbox/duo/clock             {now: unix seconds or null (the real clock), max_skew_seconds}
//   PUT  /_sandbox/duo/signing           {versions: [2, 5] or [5]}
//   PUT  /_sandbox/duo/integration       {ikey, skey}: the parent's integration from now on
//   GET  /_sandbox/duo/accounts          {accounts: [{account_id, name, parent, api_hostname, users, bypass,
//                                        disabled, locked_out, pending_deletion, failing}]}: what the seed made
//   GET  /_sandbox/duo/stats             {requests, unauthorized: {missing_credentials, unknown_ikey, bad_signature,
//                                        bad_timestamp}, signature_failures, signature_versions: {"2", "5"},
//                                        per_account: {account_id: calls}, throttled, server_errors,
//                                        failed_account_calls, in_flight, most_in_flight, serving_ms, rows}
#include "core/http/router.hpp"
#include "sandbox/duo_seed.hpp"
#include "sandbox/echo.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sandbox {

struct DuoFakeOptions {
  std::string ikey = "DISANDBOXPARENT00001";
  std::string skey = "sandbox-duo-secret-key-0123456789abcdefg";
  std::chrono::seconds max_clock_skew{300};
};

struct DuoFaults {
  int throttle = 0;       // the next N signed API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N signed API calls answer `status`
  int status = 500;
  std::chrono::milliseconds latency{0};  // added to every signed API call
  EchoSwitch echo;                       // errors quote the Authorization received (echo.hpp)
};

class DuoFake {
 public:
  explicit DuoFake(DuoFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  void seed(const DuoFakeSeedOptions& options);  // replaces every account
  void set_faults(DuoFaults faults);
  // The Admin API calls for `account_id` answer `status` with Duo's body (0: they succeed again); false
  // when there is no such account.
  bool set_account_failing(const std::string& account_id, int status);
  // Pins the fake's clock (what request dates are checked against); nullopt: the real clock.
  void set_clock(std::optional<std::chrono::sys_seconds> now);
  void set_max_clock_skew(std::chrono::seconds skew);
  // The integration the fake accepts from now on (tests: Duo's documentation example's keys).
  void set_integration(std::string ikey, std::string skey);
  // The signature versions accepted: {2, 5} (the default) or {5}.
  void set_signature_versions(std::set<int> versions);
  nlohmann::json stats() const;
  nlohmann::json accounts() const;  // GET /_sandbox/duo/accounts without api_hostname
  const DuoFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  struct Verdict {
    std::optional<core::http::Response> refusal;  // the 401 when the signature check fails
    int version = 0;                              // the signature version that matched
  };

  void install_api(core::http::Router& router);      // duo_fake.cpp
  void install_control(core::http::Router& router);  // duo_fake_control.cpp

  std::chrono::sys_seconds clock() const;          // callers hold mutex_
  Verdict verify(const core::http::Request& req);  // the signature check
  // `message`, quoting the request's Authorization when the echo switch is on.
  std::string echoed(const core::http::Request& req, std::string message);
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, bool admin);
  core::http::Response users(const core::http::Request& req, const duo::Account& account);
  core::http::Response account_list(const core::http::Request& req);

  DuoFakeOptions options_;
  mutable std::mutex mutex_;
  std::string ikey_, skey_;
  std::vector<duo::Account> accounts_;  // the parent first
  std::map<std::string, int> failing_;  // account_id → status
  DuoFaults faults_;
  std::optional<std::chrono::sys_seconds> pinned_now_;
  std::chrono::seconds max_skew_;
  std::set<int> versions_{2, 5};
  std::int64_t requests_ = 0;
  std::int64_t missing_credentials_ = 0, unknown_ikey_ = 0, bad_signature_ = 0, bad_timestamp_ = 0;
  std::map<int, std::int64_t> signature_versions_;
  std::map<std::string, std::int64_t> per_account_;
  std::int64_t throttled_ = 0;
  std::int64_t server_errors_ = 0;
  std::int64_t failed_account_calls_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
  std::chrono::steady_clock::duration serving_{};
  Echoes echoes_;
};

}  // namespace sandbox
