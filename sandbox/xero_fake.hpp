#pragma once
// A fake of Xero (accounting) for the ops console: its OAuth 2.0 identity service (authorization
// code with PKCE, refresh-token rotation), the connections endpoint, and the Accounting API's
// Invoices, Payments, Contacts and Organisation, under /xero so that
//   ACCOUNTING_AUTHORIZE_URL = <sandbox>/xero/identity/connect/authorize
//   ACCOUNTING_TOKEN_URL     = <sandbox>/xero/identity/connect/token
//   ACCOUNTING_API_URL       = <sandbox>/xero/api        ({api}/connections, {api}/api.xro/2.0/Invoices)
//
// What it follows, and where from (../shared/vendors.md, "Accounting: Xero", checked against):
//   - developer.xero.com/documentation/oauth2/auth-flow and /pkce-flow: authorize with response_type=code,
//     client_id, redirect_uri, scope, state, code_challenge + code_challenge_method=S256 (the only
//     method); the code verifier is 43–128 characters of A-Z a-z 0-9 - . _ ~; the token endpoint takes
//     a form body, the client authenticating with HTTP Basic base64(client_id:client_secret) (the form's
//     client_id/client_secret are accepted too); the answer is {id_token (scope openid), access_token,
//     expires_in: 1800, token_type: "Bearer", refresh_token (only with scope offline_access), scope};
//     access tokens are JWTs (iss https://identity.xero.com, aud .../resources, client_id, sub,
//     xero_userid, authentication_event_id, scope[]): these are unsigned look-alikes.
//   - developer.xero.com/documentation/oauth2/troubleshooting: token errors {"error": invalid_client |
//     unsupported_grant_type | invalid_grant} with status 400 (invalid_grant: a code that is wrong,
//     expired or used; a redirect_uri or verifier that does not match); API errors
//     {Type, Title, Status, Detail, Instance, Extensions}: 403 "AuthenticationUnsuccessful" when the
//     xero-tenant-id header is missing, wrong or not connected; 401 "TokenExpired: token expired at
//     MM/dd/yyyy HH:mm:ss" (the live answer pyxero's tests record), 401 "AuthenticationUnsuccessful"
//     for an unknown or revoked token, 401 "AuthorizationUnsuccessful" with WWW-Authenticate
//     insufficient_scope when the token's scopes do not cover the endpoint (accounting.transactions or
//     the granular accounting.invoices / accounting.payments, .read or not; accounting.contacts(.read);
//     accounting.settings(.read) for Organisation: developer.xero.com/faq/granular-scopes).
//   - developer.xero.com/faq/oauth2 on refresh tokens: every refresh answers a new refresh token, which
//     replaces the old; "if you don't receive the response you can retry refreshing your existing
//     refresh token for a grace period of 30 minutes"; unused refresh tokens expire after 60 days.
//     So a used refresh token still works for `refresh_grace` (30 minutes; PUT /_sandbox/xero/token
//     {refresh_grace_seconds: 0} makes reuse fail at once), then answers 400 {"error":"invalid_grant"}.
//     Xero does not document that a refresh revokes the previous access token; here it lives out its 30
//     minutes. A code is single-use (a second redemption, even after a failed one, is invalid_grant, as
//     IdentityServer removes a code when it is looked up) and lives 5 minutes (the figure of the brief:
//     the pages found say only that an expired or used code is invalid_grant).
//   - the identity OpenAPI (XeroAPI/Xero-OpenAPI xero-identity.yaml): GET /connections →
//     [{id, authEventId, tenantId, tenantType: "ORGANISATION", tenantName, createdDateUtc,
//     updatedDateUtc}] with dates as "2019-12-07T18:46:19.5165400" (no zone), ?authEventId= filters;
//     DELETE /connections/{id} → 204. Here a disconnect also revokes every token set that reached the
//     organisation (its API calls 401, its refresh tokens invalid_grant): with one organisation nothing
//     is left for them to reach.
//   - the Accounting OpenAPI (xero_accounting.yaml): GET Invoices, Payments, Contacts with page (from 1;
//     "Up to 100 invoices/payments/contacts will be returned in a single API call"), pageSize (here
//     1..1000, as the client libraries cap it), where, order, If-Modified-Since ("Only records created or
//     modified since this timestamp will be returned": here UpdatedDateUTC strictly later), Invoices also
//     Statuses, IDs, InvoiceNumbers, ContactIDs; Contacts IDs. The envelope {Id, Status: "OK",
//     ProviderName, DateTimeUTC: "/Date(ms)/", pagination: {page, pageSize, pageCount, itemCount} (when
//     paged), Invoices: [...]}; dates "/Date(1539993600000+0000)/" with DateString/DueDateString
//     "2018-10-20T00:00:00"; line items only on paged or single-invoice GETs, as Xero documents; a page
//     past the end is an empty array. GET {kind}/{id} answers one (404 when there is none).
//     `where` and `order`: xero_query.hpp lists the syntax supported; what it cannot parse is 400
//     {ErrorNumber: 16, Type: "QueryParseException", Message}.
//   - developer.xero.com/faq/limits (and pyxero's handling of it): per organisation 5 calls in flight,
//     60 a minute, 5,000 a day; every Accounting response carries X-MinLimit-Remaining,
//     X-DayLimit-Remaining and X-AppMinLimit-Remaining; past a limit 429 with Retry-After (seconds) and
//     X-Rate-Limit-Problem: minute | day | concurrent. The limits are enforced (PUT /_sandbox/xero/limits
//     changes them; 0 turns one off); the throttle fault answers the same 429 on demand. The 429's body
//     is not documented; this one has the problem shape.
//   - Xero answers XML unless the request says Accept: application/json; this fake serves JSON only and
//     answers 406 to an Accounting call without it, so a client that forgets the header finds out here.
//
// Registered client (XeroFakeOptions): client_id "sandbox-accounting", secret
// "sandbox-accounting-secret"; redirect URIs: any http(s) URI whose host is 127.0.0.1 or localhost
// (the console's port varies in tests), compared exactly between authorize and token. One
// organisation, "Northwind IT Services (Demo)", GBP, financial year to 31 March; the data is in it.
//
// The fake consent: GET authorize answers 302 to <redirect_uri>?code=…&state=… at once (the user
// "connects" the organisation, creating or renewing its connection), or with error=access_denied when
// deny_next_authorization is set; an unknown client_id or a redirect_uri elsewhere is a 400 page; a bad
// response_type, scope (an accounting scope Xero does not have, say) or code_challenge_method goes back
// to the redirect_uri as error=….
//
// Control routes (tests in other processes, the demo), under /_sandbox/xero:
//   POST /_sandbox/xero/reset                     forget tokens, connections, rows, switches and counters
//   POST /_sandbox/xero/seed                      {seed, contacts, months} → 201 {Contacts, Invoices, Payments}
//                                                 (row counts): the books of xero_seed.hpp, replacing the rows
//   PUT  /_sandbox/xero/faults                    {throttle, retry_after, problem, server_errors, status,
//                                                 latency_ms, deny_next_authorization (bool or a count),
//                                                 echo_credentials, error_padding}: with echo_credentials,
//                                                 the token endpoint's refusals quote in error_description
//                                                 what the request carried (the Basic credentials, the
//                                                 client secret, the code and verifier, the refresh
//                                                 token) and the API's 401s and fault errors in Detail
//                                                 the bearer token (echo.hpp)
//   PUT  /_sandbox/xero/token                     {access_lifetime_seconds, refresh_grace_seconds,
//                                                 code_lifetime_seconds}: those given change (0: expired
//                                                 at once / no grace)
//   PUT  /_sandbox/xero/limits                    {minute, day, concurrent}: those given change (0: none)
//   GET  /_sandbox/xero/stats                     requests, api_requests, authorizations, denied_authorizations,
//                                                 codes_redeemed, refused_codes, tokens_issued, refreshes,
//                                                 refused_refresh_tokens, connections, disconnections,
//                                                 throttled, most_in_flight, echoed, rows {Invoices,
//                                                 Payments, Contacts}
//   POST /_sandbox/xero/invoices/{id}/touch       {status?, pay?}: changes an invoice (by InvoiceID or
//                                                 InvoiceNumber) and bumps its UpdatedDateUTC to now → {invoice}
//   GET  /_sandbox/xero/rows/{kind}               {items}: every Invoice, Payment or Contact as the API renders it
//   POST /_sandbox/xero/rows/{kind}               one row, ids and UpdatedDateUTC filled in → 201 {item}
//   GET  /_sandbox/xero/connections               the connections, without a token
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"
#include "sandbox/xero_seed.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace sandbox {

struct XeroFakeOptions {
  std::string client_id = "sandbox-accounting";
  std::string client_secret = "sandbox-accounting-secret";
  std::vector<std::string> redirect_hosts{"127.0.0.1", "localhost"};
  std::string tenant_id = "6c7d5a2e-3b1f-4e8a-9d0c-52f1b7e4a913";
  std::string tenant_name = "Northwind IT Services (Demo)";
  std::string provider_name = "Northwind Ops Console";  // the app's name, ProviderName in every answer
  std::string user_email = "finance@northwind-it.example";
};

struct XeroFaults {
  int throttle = 0;                // the next N Accounting API calls answer 429
  int retry_after = 1;             // seconds, in their Retry-After
  std::string problem = "minute";  // their X-Rate-Limit-Problem
  int server_errors = 0;           // the next N Accounting API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to every Accounting API call
  int deny_authorizations = 0;           // the next N authorizations redirect with error=access_denied
  EchoSwitch echo;                       // errors quote the credentials and tokens received (echo.hpp)
};

struct XeroTokenSettings {
  std::chrono::seconds access_lifetime{1800};
  std::chrono::seconds refresh_grace{1800};  // how long a used refresh token still works
  std::chrono::seconds code_lifetime{300};
  std::chrono::seconds refresh_lifetime{60 * 86400};  // an unused refresh token's life
};

struct XeroLimits {
  int minute = 60;  // calls per organisation in any 60 seconds; 0: no limit
  int day = 5000;   // in any 24 hours
  int concurrent = 5;
  int app_minute = 10'000;  // across organisations, for X-AppMinLimit-Remaining
};

// What touch_invoice changes. Neither set: the invoice's next step (DRAFT or SUBMITTED → AUTHORISED;
// AUTHORISED → paid in full today; PAID or VOIDED → a new Reference).
struct XeroInvoiceChange {
  std::optional<std::string> status;  // DRAFT, SUBMITTED, AUTHORISED, VOIDED (PAID: pay what is due)
  std::optional<double> pay;          // a payment of this amount, dated today
};

class XeroFake {
 public:
  explicit XeroFake(XeroFakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process. Kinds as in the URL
  // ("Invoices", "Payments", "Contacts"), case-insensitive; another throws std::invalid_argument.
  void configure(XeroFakeOptions options);  // and reset()
  void reset();
  void seed(const xero::SeedOptions& options);
  void set_faults(XeroFaults faults);
  void set_token_settings(XeroTokenSettings settings);
  XeroTokenSettings token_settings() const;
  void set_limits(XeroLimits limits);
  XeroLimits limits() const;
  nlohmann::json stats() const;
  // The invoice after the change; nullopt when no invoice has that InvoiceID or InvoiceNumber.
  std::optional<nlohmann::json> touch_invoice(const std::string& id, XeroInvoiceChange change = {});
  std::vector<nlohmann::json> rows(const std::string& kind) const;
  // Adds a row: a missing id (InvoiceID, PaymentID, ContactID) gets a new one, a missing UpdatedDateUTC
  // now; a Payment is also recorded on its invoice. Returns it.
  nlohmann::json add(const std::string& kind, nlohmann::json row);
  std::vector<nlohmann::json> connections() const;
  const XeroFakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  struct Grant {  // one user's authorization: the token set that refreshes from it
    std::string scope;
    std::string auth_event_id;
    std::string session_id;
    bool revoked = false;
  };
  struct Code {
    std::string grant_id;
    std::string client_id;
    std::string redirect_uri;
    std::string challenge;  // S256, empty without PKCE
    core::Timestamp expires;
  };
  struct AccessToken {
    std::string grant_id;
    core::Timestamp expires;
  };
  struct RefreshToken {
    std::string grant_id;
    core::Timestamp issued;
    std::optional<core::Timestamp> used;
  };
  struct Connection {
    std::string id;
    std::string auth_event_id;
    core::Timestamp created, updated;
  };
  struct Slot;  // one Accounting call in flight
  // An Accounting API handler: the request and the kind ("Invoices"...), under mutex_.
  using Work = std::function<core::http::Response(core::http::Request&)>;

  void install_identity(core::http::Router& router);  // xero_fake_identity.cpp
  void install_api(core::http::Router& router);       // xero_fake_api.cpp
  void install_control(core::http::Router& router);   // xero_fake_control.cpp

  // The token and the tenant header, then the limits and faults, then `work`; `scopes` are those of
  // which the token needs one.
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, std::vector<std::string> scopes,
                                                     Work work);
  // The grant an access token of `req` belongs to, or the 401 to answer. Callers hold mutex_.
  std::variant<std::string, core::http::Response> authenticate(const core::http::Request& req);
  // `message`, quoting the request's bearer token when the echo switch is on. Callers hold mutex_.
  std::string echoed_bearer(const core::http::Request& req, std::string message);
  nlohmann::json token_response(const std::string& grant_id, bool with_refresh);  // callers hold mutex_
  std::vector<nlohmann::json>& table(const std::string& kind);                    // callers hold mutex_
  const std::vector<nlohmann::json>& table(const std::string& kind) const;
  nlohmann::json* invoice_locked(const std::string& id);

  XeroFakeOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<nlohmann::json>> tables_;  // by kind, in creation order
  std::map<std::string, Grant> grants_;
  std::map<std::string, Code> codes_;
  std::map<std::string, AccessToken> access_tokens_;
  std::map<std::string, RefreshToken> refresh_tokens_;
  std::optional<Connection> connection_;  // the organisation's connection to the app
  XeroFaults faults_;
  XeroTokenSettings token_settings_;
  XeroLimits limits_;
  std::deque<std::chrono::steady_clock::time_point> minute_calls_, day_calls_;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
  std::int64_t requests_ = 0, api_requests_ = 0, authorizations_ = 0, denied_authorizations_ = 0, codes_redeemed_ = 0,
               refused_codes_ = 0, tokens_issued_ = 0, refreshes_ = 0, refused_refresh_tokens_ = 0, disconnections_ = 0,
               throttled_ = 0;
  Echoes echoes_;
};

}  // namespace sandbox
