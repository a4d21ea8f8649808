// The Xero fake's state (rows, token sets, the connection, switches, counters) and the gate every
// Accounting API call passes: the bearer token, the tenant header, the scopes, Accept, the
// organisation's limits and the fault switches.
#include "sandbox/xero_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/http/bearer.hpp"
#include "core/util/strings.hpp"
#include "sandbox/xero_rest.hpp"

#include <algorithm>
#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace xero {

Response problem(int status, std::string detail) {
  const char* title = status == 400   ? "Bad Request"
                      : status == 401 ? "Unauthorized"
                      : status == 403 ? "Forbidden"
                      : status == 404 ? "Not Found"
                      : status == 406 ? "Not Acceptable"
                      : status == 429 ? "Too Many Requests"
                      : status == 503 ? "Service Unavailable"
                                      : "Internal Server Error";
  return Response::json({{"Type", nullptr},
                         {"Title", title},
                         {"Status", status},
                         {"Detail", std::move(detail)},
                         {"Instance", core::random_uuid()},
                         {"Extensions", json::object()}},
                        static_cast<Status>(status));
}

Response oauth_error(std::string error, std::string description) {
  json body = {{"error", std::move(error)}};
  if (!description.empty()) body["error_description"] = std::move(description);
  return Response::json(body, Status::bad_request);
}

Response api_exception(int number, std::string type, std::string message) {
  return Response::json({{"ErrorNumber", number}, {"Type", std::move(type)}, {"Message", std::move(message)}},
                        Status::bad_request);
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all{
      {"Invoices",
       "Invoice",
       "InvoiceID",
       {"Type",
        "InvoiceID",
        "InvoiceNumber",
        "Reference",
        "Payments",
        "CreditNotes",
        "Prepayments",
        "Overpayments",
        "AmountDue",
        "AmountPaid",
        "AmountCredited",
        "SentToContact",
        "CurrencyRate",
        "IsDiscounted",
        "HasAttachments",
        "HasErrors",
        "Contact",
        "DateString",
        "Date",
        "DueDateString",
        "DueDate",
        "Status",
        "LineAmountTypes",
        "LineItems",
        "SubTotal",
        "TotalTax",
        "Total",
        "UpdatedDateUTC",
        "CurrencyCode",
        "FullyPaidOnDate",
        "ExpectedPaymentDate",
        "PlannedPaymentDate",
        "BrandingThemeID",
        "Url",
        "RepeatingInvoiceID"},
       {"accounting.transactions", "accounting.transactions.read", "accounting.invoices", "accounting.invoices.read"}},
      {"Payments",
       "Payment",
       "PaymentID",
       {"PaymentID", "Date", "BankAmount", "Amount", "Reference", "CurrencyRate", "PaymentType", "Status",
        "UpdatedDateUTC", "HasAccount", "IsReconciled", "Account", "Invoice", "HasValidationErrors", "BatchPaymentID"},
       {"accounting.transactions", "accounting.transactions.read", "accounting.payments", "accounting.payments.read"}},
      {"Contacts",
       "Contact",
       "ContactID",
       {"ContactID",  "ContactNumber",   "AccountNumber",  "ContactStatus",      "Name",
        "FirstName",  "LastName",        "EmailAddress",   "BankAccountDetails", "TaxNumber",
        "Addresses",  "Phones",          "UpdatedDateUTC", "ContactGroups",      "IsSupplier",
        "IsCustomer", "DefaultCurrency", "ContactPersons", "HasAttachments",     "HasValidationErrors"},
       {"accounting.contacts", "accounting.contacts.read"}}};
  return all;
}

const Kind* find_kind(std::string_view name) {
  for (const auto& k : kinds())
    if (core::iequals(k.name, name)) return &k;
  return nullptr;
}

std::string connection_time(core::Timestamp t) { return core::format_rfc3339(t).substr(0, 26) + "0"; }

}  // namespace xero

XeroFake::XeroFake(XeroFakeOptions options) : options_(std::move(options)) { reset(); }

void XeroFake::install(core::http::Router& router) {
  install_identity(router);  // xero_fake_identity.cpp
  install_api(router);       // xero_fake_api.cpp
  install_control(router);   // xero_fake_control.cpp
}

void XeroFake::configure(XeroFakeOptions options) {
  {
    std::lock_guard lock(mutex_);
    options_ = std::move(options);
  }
  reset();
}

void XeroFake::reset() {
  std::lock_guard lock(mutex_);
  tables_.clear();
  for (const auto& k : xero::kinds()) tables_[k.name];
  grants_.clear();
  codes_.clear();
  access_tokens_.clear();
  refresh_tokens_.clear();
  connection_.reset();
  faults_ = {};
  token_settings_ = {};
  limits_ = {};
  minute_calls_.clear();
  day_calls_.clear();
  most_in_flight_ = 0;
  requests_ = api_requests_ = authorizations_ = denied_authorizations_ = codes_redeemed_ = refused_codes_ =
      tokens_issued_ = refreshes_ = refused_refresh_tokens_ = disconnections_ = throttled_ = 0;
  echoes_.clear();
}

void XeroFake::seed(const xero::SeedOptions& options) {
  auto books = xero::seed_books(options, core::now());
  std::lock_guard lock(mutex_);
  tables_["Contacts"] = std::move(books.contacts);
  tables_["Invoices"] = std::move(books.invoices);
  tables_["Payments"] = std::move(books.payments);
}

void XeroFake::set_faults(XeroFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

void XeroFake::set_token_settings(XeroTokenSettings settings) {
  std::lock_guard lock(mutex_);
  token_settings_ = settings;
}

XeroTokenSettings XeroFake::token_settings() const {
  std::lock_guard lock(mutex_);
  return token_settings_;
}

void XeroFake::set_limits(XeroLimits limits) {
  std::lock_guard lock(mutex_);
  limits_ = limits;
}

XeroLimits XeroFake::limits() const {
  std::lock_guard lock(mutex_);
  return limits_;
}

json XeroFake::stats() const {
  std::lock_guard lock(mutex_);
  json rows = json::object();
  for (const auto& [kind, list] : tables_) rows[kind] = list.size();
  return {{"requests", requests_},
          {"api_requests", api_requests_},
          {"authorizations", authorizations_},
          {"denied_authorizations", denied_authorizations_},
          {"codes_redeemed", codes_redeemed_},
          {"refused_codes", refused_codes_},
          {"tokens_issued", tokens_issued_},
          {"refreshes", refreshes_},
          {"refused_refresh_tokens", refused_refresh_tokens_},
          {"connections", connection_ ? 1 : 0},
          {"disconnections", disconnections_},
          {"throttled", throttled_},
          {"most_in_flight", most_in_flight_},
          {"echoed", echoes_.count()},
          {"rows", rows}};
}

std::vector<json>& XeroFake::table(const std::string& kind) {
  const auto* k = xero::find_kind(kind);
  if (!k) throw std::invalid_argument("unknown Xero kind '" + kind + "' (Invoices, Payments, Contacts)");
  return tables_[k->name];
}

const std::vector<json>& XeroFake::table(const std::string& kind) const {
  const auto* k = xero::find_kind(kind);
  if (!k) throw std::invalid_argument("unknown Xero kind '" + kind + "' (Invoices, Payments, Contacts)");
  return tables_.at(k->name);
}

std::vector<json> XeroFake::rows(const std::string& kind) const {
  std::lock_guard lock(mutex_);
  return table(kind);
}

json* XeroFake::invoice_locked(const std::string& id) {
  for (auto& row : tables_["Invoices"])
    if (core::iequals(row.value("InvoiceID", ""), id) || row.value("InvoiceNumber", "") == id) return &row;
  return nullptr;
}

std::optional<json> XeroFake::touch_invoice(const std::string& id, XeroInvoiceChange change) {
  static const std::set<std::string> kStatuses{"DRAFT", "SUBMITTED", "AUTHORISED", "PAID", "VOIDED"};
  if (change.status && !kStatuses.contains(*change.status))
    throw std::invalid_argument("status must be DRAFT, SUBMITTED, AUTHORISED, PAID or VOIDED");
  if (change.pay && *change.pay <= 0) throw std::invalid_argument("pay must be a positive amount");
  const auto now = core::now();
  std::lock_guard lock(mutex_);
  json* invoice = invoice_locked(id);
  if (!invoice) return std::nullopt;
  const std::string status = invoice->value("Status", "");
  const std::int64_t due = xero::pence((*invoice)["AmountDue"]);
  if (!change.status && !change.pay) {
    if (status == "DRAFT" || status == "SUBMITTED") change.status = "AUTHORISED";
    if (status == "AUTHORISED") change.pay = xero::money(due);
  }
  if (change.status == "PAID") {
    change.status.reset();
    change.pay = xero::money(due);
  }
  std::string next = change.status.value_or(status);
  if (change.pay && next != "AUTHORISED")
    throw std::invalid_argument("only an AUTHORISED invoice takes a payment (this one is " + next + ")");
  if (change.pay && (due <= 0 || xero::pence(*change.pay) > due))
    throw std::invalid_argument("the payment is more than the " + std::to_string(xero::money(due)) + " due");
  if (change.status) {
    (*invoice)["Status"] = next;
    (*invoice)["SentToContact"] = next == "AUTHORISED" && invoice->value("Type", "") == "ACCREC";
    if (next == "VOIDED") (*invoice)["AmountDue"] = 0.0;
  }
  if (change.pay) {
    const auto today = core::Timestamp(std::chrono::floor<std::chrono::days>(now));
    json payment = xero::make_payment(*invoice, core::random_uuid(), today, xero::pence(*change.pay), now, false);
    xero::apply_payment(*invoice, payment);
    tables_["Payments"].push_back(std::move(payment));
  }
  if (!change.status && !change.pay) {
    std::string reference = invoice->value("Reference", "");
    if (!reference.ends_with(" (revised)")) reference += " (revised)";
    (*invoice)["Reference"] = reference;
  }
  (*invoice)["UpdatedDateUTC"] = xero::json_date(now);
  return *invoice;
}

json XeroFake::add(const std::string& kind, json row) {
  const auto* k = xero::find_kind(kind);
  if (!k) throw std::invalid_argument("unknown Xero kind '" + kind + "' (Invoices, Payments, Contacts)");
  if (!row.is_object()) throw std::invalid_argument("a row must be a JSON object");
  if (!row.contains(k->id_field) || row[k->id_field].is_null()) row[k->id_field] = core::random_uuid();
  if (!row.contains("UpdatedDateUTC") || row["UpdatedDateUTC"].is_null())
    row["UpdatedDateUTC"] = xero::json_date(core::now());
  std::lock_guard lock(mutex_);
  if (k->name == "Payments" && row.contains("Invoice") && row["Invoice"].is_object())
    if (json* invoice = invoice_locked(row["Invoice"].value("InvoiceID", ""))) xero::apply_payment(*invoice, row);
  tables_[k->name].push_back(row);
  return row;
}

std::vector<json> XeroFake::connections() const {
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  if (connection_)
    out.push_back({{"id", connection_->id},
                   {"authEventId", connection_->auth_event_id},
                   {"tenantId", options_.tenant_id},
                   {"tenantType", "ORGANISATION"},
                   {"tenantName", options_.tenant_name},
                   {"createdDateUtc", xero::connection_time(connection_->created)},
                   {"updatedDateUtc", xero::connection_time(connection_->updated)}});
  return out;
}

// --- the gate ---

std::string XeroFake::echoed_bearer(const Request& req, std::string message) {
  const auto token = core::http::bearer_token(req.header("authorization"));
  return echoes_.message(faults_.echo, std::move(message),
                         {{"Authorization", token ? std::string(*token) : std::string()}});
}

struct XeroFake::Slot {
  XeroFake& fake;
  bool admitted = false;

  explicit Slot(XeroFake& f) : fake(f) {
    std::lock_guard lock(fake.mutex_);
    if (fake.limits_.concurrent > 0 && fake.in_flight_ >= fake.limits_.concurrent) return;
    admitted = true;
    fake.most_in_flight_ = std::max(fake.most_in_flight_, ++fake.in_flight_);
  }
  ~Slot() {
    if (!admitted) return;
    std::lock_guard lock(fake.mutex_);
    --fake.in_flight_;
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
};

std::variant<std::string, Response> XeroFake::authenticate(const Request& req) {
  const auto bad = [&](std::string detail) {
    auto res = xero::problem(401, echoed_bearer(req, std::move(detail)));
    res.headers.set("WWW-Authenticate", "Bearer error=\"invalid_token\"");
    return res;
  };
  const auto token = core::http::bearer_token(req.header("authorization"));
  if (!token) return bad("AuthenticationUnsuccessful");
  const auto it = access_tokens_.find(std::string(*token));
  if (it == access_tokens_.end()) return bad("AuthenticationUnsuccessful");
  if (core::now() >= it->second.expires) {
    const auto t = core::format_rfc3339(it->second.expires);  // 2026-11-21T09:30:00.250000Z
    return bad("TokenExpired: token expired at " + t.substr(5, 2) + "/" + t.substr(8, 2) + "/" + t.substr(0, 4) + " " +
               t.substr(11, 8));
  }
  const auto grant = grants_.find(it->second.grant_id);
  if (grant == grants_.end() || grant->second.revoked) return bad("AuthenticationUnsuccessful");
  return it->second.grant_id;
}

awaitable<Response> XeroFake::serve(Request& req, std::vector<std::string> scopes, Work work) {
  std::optional<Response> refused;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    ++api_requests_;
    auto who = authenticate(req);
    if (auto* res = std::get_if<Response>(&who)) {
      refused = std::move(*res);
    } else {
      const auto& grant = grants_.at(std::get<std::string>(who));
      const auto granted = core::split(grant.scope, ' ');
      const auto tenant = core::trim(req.header("xero-tenant-id"));
      if (!connection_ || !core::iequals(tenant, options_.tenant_id)) {
        refused = xero::problem(403, "AuthenticationUnsuccessful");
      } else if (std::none_of(scopes.begin(), scopes.end(), [&](const std::string& s) {
                   return std::find(granted.begin(), granted.end(), s) != granted.end();
                 })) {
        refused = xero::problem(401, "AuthorizationUnsuccessful");
        refused->headers.set("WWW-Authenticate", "Bearer error=\"insufficient_scope\"");
      } else if (core::to_lower(req.header("accept")).find("application/json") == std::string::npos) {
        refused = Response::text(
            "Xero answers XML unless the request has Accept: application/json; this fake serves JSON only.\n",
            Status::not_acceptable);
      }
    }
  }
  if (refused) co_return std::move(*refused);

  // The organisation's limits: calls in flight, in the last minute, in the last day.
  Slot slot(*this);
  std::string limit;
  std::int64_t retry_after = 1;
  XeroFaults faults;
  const auto remaining = [this](Response& res) {  // callers hold mutex_
    const auto left = [](int limit, std::size_t used) {
      return std::to_string(limit > 0 ? std::max<std::int64_t>(0, limit - static_cast<std::int64_t>(used)) : 999'999);
    };
    res.headers.set("X-MinLimit-Remaining", left(limits_.minute, minute_calls_.size()));
    res.headers.set("X-DayLimit-Remaining", left(limits_.day, day_calls_.size()));
    res.headers.set("X-AppMinLimit-Remaining", left(limits_.app_minute, minute_calls_.size()));
  };
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    while (!minute_calls_.empty() && minute_calls_.front() <= now - std::chrono::minutes(1)) minute_calls_.pop_front();
    while (!day_calls_.empty() && day_calls_.front() <= now - std::chrono::hours(24)) day_calls_.pop_front();
    const auto seconds_until = [&](std::chrono::steady_clock::time_point t) {
      return std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(t - now).count());
    };
    if (!slot.admitted) {
      limit = "concurrent";
    } else if (limits_.minute > 0 && static_cast<int>(minute_calls_.size()) >= limits_.minute) {
      limit = "minute", retry_after = seconds_until(minute_calls_.front() + std::chrono::minutes(1));
    } else if (limits_.day > 0 && static_cast<int>(day_calls_.size()) >= limits_.day) {
      limit = "day", retry_after = seconds_until(day_calls_.front() + std::chrono::hours(24));
    } else {
      minute_calls_.push_back(now);
      day_calls_.push_back(now);
    }
    faults = faults_;
    if (limit.empty()) {
      if (faults_.throttle > 0)
        --faults_.throttle;
      else if (faults_.server_errors > 0)
        --faults_.server_errors;
    }
    if (!limit.empty() || faults.throttle > 0) ++throttled_;
  }
  const auto too_many = [&](const std::string& problem, std::int64_t seconds) {
    auto res = xero::problem(429, "Rate limit exceeded: the " + problem + " limit");
    if (problem != "concurrent") res.headers.set("Retry-After", std::to_string(seconds));
    res.headers.set("X-Rate-Limit-Problem", problem);
    std::lock_guard lock(mutex_);
    remaining(res);
    return res;
  };
  if (!limit.empty()) co_return too_many(limit, retry_after);

  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) co_return too_many(faults.problem, faults.retry_after);
  if (faults.server_errors > 0) {
    std::lock_guard lock(mutex_);
    co_return xero::problem(faults.status,
                            echoed_bearer(req, faults.status == 503 ? "The Xero API is temporarily unavailable"
                                                                    : "An error occurred in Xero"));
  }
  std::lock_guard lock(mutex_);
  auto res = work(req);
  remaining(res);
  co_return res;
}

}  // namespace sandbox
