#pragma once
// A fake of Pax8's partner API (the distributor), following its published behaviour
// (../shared/vendors.md, "Distributor: Pax8", and devx.pax8.com where that is silent) rather
// than any client's expectations, under /pax8 so that DISTRIBUTOR_BASE_URL = <sandbox>/pax8:
//
//   POST /pax8/v1/token    JSON {client_id, client_secret, audience: "https://api.pax8.com",
//                          grant_type: "client_credentials"} → {access_token, expires_in, token_type: "Bearer"}
//                          (devx.pax8.com/docs/authentication: one token lives a day, 86400 s; "you should not
//                          need to request a new access token before every request"). Pax8 does not publish
//                          the token route's refusals; its token service is Auth0
//                          (devx.pax8.com/docs/developingdelegationapplications) and clients read OAuth's
//                          {error, error_description} from them (imperian-systems/pax8-api's token manager), so
//                          that is the shape here: 401 access_denied "Unauthorized" for a wrong
//                          client_id or client_secret, 403 access_denied for another audience, 400
//                          unsupported_grant_type / invalid_request for another grant or a body that is not a
//                          JSON object with those strings.
//   GET  /pax8/v1/companies                  ?status=Active|Inactive|Deleted
//   GET  /pax8/v1/companies/{id}
//   GET  /pax8/v1/subscriptions              ?companyId, status, productId, billingTerm
//   GET  /pax8/v1/subscriptions/{id}
//   GET  /pax8/v1/orders                     ?companyId
//   GET  /pax8/v1/orders/{id}
//   GET  /pax8/v1/invoices                   ?companyId
//   GET  /pax8/v1/invoices/{id}
//   GET  /pax8/v1/invoices/{id}/items
//   GET  /pax8/v1/products                   ?vendorName
//   GET  /pax8/v1/products/{id}
//
// What a client meets, as on Pax8:
//   - every route but the token needs `Authorization: Bearer <token>`, a token this fake issued that has
//     not expired; otherwise 401. A token lives expires_in seconds (86400; set_token_lifetime changes it
//     for tokens issued after);
//   - errors are {type, message, instance, status, details: []} (devx.pax8.com/docs/errors: type as
//     "NOT_FOUND", instance the path called), e.g. 404 {"type": "NOT_FOUND", "message": "Company Not Found:
//     <id>", ...}; 400 BAD_REQUEST for a malformed query (a companyId that is not a uuid, an unknown status,
//     page < 0, size outside 1..200);
//   - lists page by `page` (from 0) and `size` (default 10, at most 200: devx.pax8.com/docs/pagination and
//     /reference/findpartnerdraftinvoiceitems "Default page is 0 and default size is 10. The maximum page
//     size is 200.") → {content: [...], page: {size, totalElements, totalPages, number}}; a page past the
//     end has empty content. Rows keep one order (the order they were created in), so pages neither skip nor
//     repeat while nothing changes; a row removed meanwhile shifts the later ones back, as offset paging does;
//   - shapes: Company {id, name, status, externalId, updatedDate, ...}; Subscription {id, companyId,
//     productId, productName, quantity, status (Active, Cancelled, PendingCancel, Trial), billingTerm, price,
//     partnerCost, currencyCode, startDate, endDate, createdDate, updatedDate, billingStart, commitmentTerm,
//     vendorSubscriptionId}; Order {id, companyId, createdDate, orderedBy, orderedByUserEmail, isScheduled,
//     lineItems: [{id, productId, subscriptionId, commitmentTermId, provisionStartDate, billingTerm,
//     quantity, lineItemNumber}]} (Pax8's partner OpenAPI, as imperian-systems/pax8-api models it);
//     Invoice {id, companyId, invoiceDate, dueDate, paidDate, status, total, balance, carriedBalance,
//     partnerName}; InvoiceItem {id, invoiceId, companyId, subscriptionId, productId, productName, description,
//     quantity, price, cost, costTotal, total, startPeriod, endPeriod, billingTerm, currencyCode} with
//     total = price × quantity; Product {id, name, vendorName, shortDescription, sku, requiresCommitment}.
//     Every date is RFC 3339 UTC with milliseconds ("2026-03-04T00:00:00.000Z");
//   - 429 with Retry-After when throttled (a fault here: Pax8 publishes no figure), 5xx when a fault says;
//     the switches and the latency apply to the API calls a valid token reaches, not to /v1/token;
//   - with the echo switch (echo.hpp), the token route's refusals quote the client_secret received and
//     the API's 401s and fault errors the bearer token, in the message (error_description) field.
//
// Sources beyond vendors.md: devx.pax8.com/docs/authentication (token body and answer, a day's lifetime),
// /docs/errors (the error body, "Company Not Found: <id>"), /docs/pagination and
// /reference/findpartnerdraftinvoiceitems (page from 0, default size 10, at most 200), /docs/invoice-billing-
// integrations (invoices generated on the 4th of the month); the field lists of Pax8's partner OpenAPI as
// imperian-systems/pax8-api (src/models/*.ts) transcribes them (Company's flags, Order and its line items,
// subscription statuses and billing terms, company statuses Active/Inactive/Deleted). Where those disagree
// with vendors.md (their InvoiceItem has unitPrice and startDate), vendors.md wins.
//
// Control routes (tests in other processes, the demo), under /_sandbox/pax8:
//   POST   /_sandbox/pax8/reset               forget every row, token, switch and counter
//   POST   /_sandbox/pax8/seed                {seed, companies, subscriptions_per_company, invoices_per_company,
//                                             psa_companies}: replaces everything (pax8_seed.hpp) → 201 {rows}
//   PUT    /_sandbox/pax8/faults              {throttle, retry_after, server_errors, status, latency_ms,
//                                             echo_credentials, error_padding}
//   GET    /_sandbox/pax8/stats               {requests (every /pax8/v1 call), token_requests, tokens_issued,
//                                             refused_tokens, unauthorized, throttled, server_errors, in_flight,
//                                             most_in_flight, serving_ms (building answers, latency excluded),
//                                             token_lifetime, rows: {companies, subscriptions, ...}}
//   PUT    /_sandbox/pax8/token               {expires_in}: the lifetime of tokens issued from now on
//   GET    /_sandbox/pax8/companies           {items}: every company, unpaged, each with "_sandbox": {match,
//                                             psaName} (what the seed meant it to match)
//   GET    /_sandbox/pax8/rows/{kind}         {items}: every row of companies, subscriptions, orders, invoices,
//                                             invoice_items or products, as the API renders them
//   DELETE /_sandbox/pax8/companies/{id}      the company and its subscriptions are gone → 204
//   DELETE /_sandbox/pax8/subscriptions/{id}  → 204
#include "core/http/router.hpp"
#include "sandbox/echo.hpp"
#include "sandbox/pax8_seed.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace sandbox {

struct Pax8FakeOptions {
  std::string client_id = "sandbox-distributor";
  std::string client_secret = "sandbox-distributor-secret";
  std::string audience = "https://api.pax8.com";
  int token_lifetime = 86'400;  // seconds
};

struct Pax8Faults {
  int throttle = 0;       // the next N API calls answer 429 with Retry-After
  int retry_after = 1;    // seconds
  int server_errors = 0;  // the next N API calls answer `status`
  int status = 503;
  std::chrono::milliseconds latency{0};  // added to every API call
  EchoSwitch echo;                       // errors quote the token or client secret received (echo.hpp)
};

class Pax8Fake {
 public:
  explicit Pax8Fake(Pax8FakeOptions options = {});

  void install(core::http::Router& router);

  // The state behind the control routes, for tests in this process; thread-safe.
  void reset();
  void seed(const Pax8SeedCounts& counts);  // replaces every row
  void set_faults(Pax8Faults faults);
  nlohmann::json stats() const;
  bool remove_company(const std::string& id);  // its subscriptions go too; false when there is none
  bool remove_subscription(const std::string& id);
  void set_token_lifetime(int seconds);  // for tokens issued from now on; 0 and up
  // Every row of a kind, as the API renders them (companies also with "_sandbox": {match, psaName}):
  // companies, subscriptions, orders, invoices, invoice_items, products; std::invalid_argument otherwise.
  nlohmann::json rows(const std::string& kind) const;
  const Pax8FakeOptions& options() const { return options_; }
  std::vector<std::string> echoed() const { return echoes_.values(); }  // what errors quoted (echo.hpp)

 private:
  using Work = std::function<core::http::Response(core::http::Request&)>;
  using Index = std::unordered_map<std::string, std::vector<std::size_t>>;  // company id → positions

  void install_api(core::http::Router& router);      // pax8_fake_api.cpp
  void install_control(core::http::Router& router);  // pax8_fake_control.cpp

  // Runs an API call behind the bearer token and the fault switches.
  boost::asio::awaitable<core::http::Response> serve(core::http::Request& req, Work work);
  core::http::Response issue_token(const core::http::Request& req);
  bool authorised(const core::http::Request& req) const;
  void reindex();  // callers hold mutex_

  Pax8FakeOptions options_;
  mutable std::mutex mutex_;
  pax8::Data data_;
  Index subscriptions_of_, orders_of_, invoices_of_;
  std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> items_of_;  // invoice → [first, last)
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> tokens_;  // → expiry
  int token_lifetime_;                                                             // seconds
  Pax8Faults faults_;
  std::int64_t requests_ = 0;
  std::int64_t token_requests_ = 0;
  std::int64_t tokens_issued_ = 0;
  std::int64_t refused_tokens_ = 0;
  std::int64_t unauthorised_ = 0;
  std::int64_t throttled_ = 0;
  std::int64_t server_errors_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
  std::chrono::steady_clock::duration serving_{};  // building answers, without latency
  Echoes echoes_;
};

}  // namespace sandbox
