// Pax8's error body and its rows as JSON text (pax8_rest.hpp).
#include "sandbox/pax8_rest.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

namespace sandbox::pax8 {

using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

const char* type_of(int status) {
  switch (status) {
    case 400:
      return "BAD_REQUEST";
    case 401:
      return "UNAUTHORIZED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 422:
      return "UNPROCESSABLE_ENTITY";
    case 429:
      return "TOO_MANY_REQUESTS";
    case 502:
      return "BAD_GATEWAY";
    case 503:
      return "SERVICE_UNAVAILABLE";
    case 504:
      return "GATEWAY_TIMEOUT";
    default:
      return status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST";
  }
}

}  // namespace

Response error(int status, std::string message, const Request& req) {
  std::string instance = req.path;
  if (instance.rfind("/pax8/", 0) == 0) instance.erase(0, 5);
  return Response::json({{"type", type_of(status)},
                         {"message", std::move(message)},
                         {"instance", instance},
                         {"status", status},
                         {"details", json::array()}},
                        static_cast<core::http::Status>(status));
}

namespace {

constexpr const char* kPartner = "Northwind IT Services";  // the MSP, the partner every invoice is to
constexpr const char* kCurrency = "GBP";

// "2026-03-04"
void date_text(std::string& out, Day d) {
  const std::chrono::year_month_day ymd(d);
  const auto y = static_cast<int>(ymd.year());
  const auto m = static_cast<unsigned>(ymd.month()), day = static_cast<unsigned>(ymd.day());
  char buf[11] = {static_cast<char>('0' + y / 1000 % 10),
                  static_cast<char>('0' + y / 100 % 10),
                  static_cast<char>('0' + y / 10 % 10),
                  static_cast<char>('0' + y % 10),
                  '-',
                  static_cast<char>('0' + m / 10),
                  static_cast<char>('0' + m % 10),
                  '-',
                  static_cast<char>('0' + day / 10),
                  static_cast<char>('0' + day % 10),
                  '\0'};
  out.append(buf, 10);
}

// JSON text written field by field: a page is its rows' text joined, with no DOM in between.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  Writer& open(std::string_view key = {}) {
    name(key);
    out_ += '{';
    first_.push_back(true);
    return *this;
  }
  Writer& open_array(std::string_view key) {
    name(key);
    out_ += '[';
    first_.push_back(true);
    return *this;
  }
  Writer& close(char bracket = '}') {
    out_ += bracket;
    first_.pop_back();
    return *this;
  }
  Writer& text(std::string_view key, std::string_view v) {
    name(key);
    quoted(v);
    return *this;
  }
  Writer& text_or_null(std::string_view key, std::string_view v) {
    if (v.empty()) return null(key);
    return text(key, v);
  }
  Writer& null(std::string_view key) {
    name(key);
    out_ += "null";
    return *this;
  }
  Writer& number(std::string_view key, double v) {
    name(key);
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    out_.append(buf, end);
    return *this;
  }
  Writer& integer(std::string_view key, std::int64_t v) {
    name(key);
    out_ += std::to_string(v);
    return *this;
  }
  // "2026-03-04T00:00:00.000Z": RFC 3339 in UTC with milliseconds, as Pax8 writes its dates.
  Writer& time(std::string_view key, Minutes t) {
    name(key);
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const auto minutes = static_cast<int>((t - day).count());
    out_ += '"';
    date_text(out_, day);
    out_ += 'T';
    two(minutes / 60);
    out_ += ':';
    two(minutes % 60);
    out_ += ":00.000Z\"";
    return *this;
  }
  Writer& day(std::string_view key, Day d) { return time(key, Minutes(d)); }
  Writer& day_or_null(std::string_view key, const std::optional<Day>& d) { return d ? day(key, *d) : null(key); }
  Writer& boolean(std::string_view key, bool v) {
    name(key);
    out_ += v ? "true" : "false";
    return *this;
  }

 private:
  void name(std::string_view key) {
    if (!first_.empty() && !first_.back()) out_ += ',';
    if (!first_.empty()) first_.back() = false;
    if (key.empty()) return;  // an array element
    quoted(key);
    out_ += ':';
  }
  void two(int v) {
    out_ += static_cast<char>('0' + v / 10);
    out_ += static_cast<char>('0' + v % 10);
  }
  void quoted(std::string_view v) {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ += '"';
    for (const char c : v) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (u < 0x20) {
        out_ += "\\u00";
        out_ += kHex[u >> 4];
        out_ += kHex[u & 0xF];
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }

  std::string& out_;
  std::vector<bool> first_;
};

}  // namespace

void append(std::string& out, const Data&, const Company& c) {
  Writer(out)
      .open()
      .text("id", c.id)
      .text("name", c.name)
      .text("status", c.status)
      .text_or_null("externalId", c.external_id)
      .boolean("billOnBehalfOfEnabled", false)
      .boolean("selfServiceAllowed", false)
      .boolean("orderApprovalRequired", false)
      .time("updatedDate", c.updated)
      .close();
}

void append(std::string& out, const Data&, const Product& p) {
  Writer(out)
      .open()
      .text("id", p.id)
      .text("name", p.name)
      .text("vendorName", p.vendor_name)
      .text("shortDescription", p.short_description)
      .text("sku", p.sku)
      .text("vendorSku", p.sku)
      .boolean("requiresCommitment", p.requires_commitment)
      .close();
}

void append(std::string& out, const Data& d, const Subscription& s) {
  const auto& product = d.products[s.product];
  Writer w(out);
  w.open()
      .text("id", s.id)
      .text("companyId", s.company_id)
      .text("productId", product.id)
      .text("productName", product.name)
      .text_or_null("vendorSubscriptionId", s.vendor_subscription_id)
      .integer("quantity", s.quantity)
      .day("startDate", s.start)
      .day_or_null("endDate", s.end)
      .time("createdDate", s.created)
      .time("updatedDate", s.updated)
      .day("billingStart", s.start)
      .text("status", s.status)
      .number("price", s.price)
      .number("partnerCost", s.partner_cost)
      .text("currencyCode", kCurrency)
      .text("billingTerm", s.billing_term);
  if (s.commitment_end)
    w.open("commitmentTerm").text("term", "Annual").day("endDate", *s.commitment_end).close();
  else
    w.null("commitmentTerm");
  w.close();
}

void append(std::string& out, const Data& d, const Order& o) {
  Writer w(out);
  w.open()
      .text("id", o.id)
      .text("companyId", o.company_id)
      .time("createdDate", o.created)
      .text("orderedBy", o.ordered_by)
      .text("orderedByUserEmail", o.ordered_by_user_email)
      .boolean("isScheduled", false)
      .open_array("lineItems");
  for (const auto& l : o.line_items) {
    const auto& s = d.subscriptions[l.subscription];
    w.open()
        .text("id", l.id)
        .text("productId", d.products[s.product].id)
        .text("subscriptionId", s.id)
        .null("commitmentTermId")
        .day("provisionStartDate", s.start)
        .text("billingTerm", s.billing_term)
        .integer("quantity", s.quantity)
        .integer("lineItemNumber", l.line_item_number)
        .close();
  }
  w.close(']').close();
}

void append(std::string& out, const Data&, const Invoice& i) {
  Writer(out)
      .open()
      .text("id", i.id)
      .text("companyId", i.company_id)
      .day("invoiceDate", i.invoice_date)
      .day("dueDate", i.due_date)
      .day_or_null("paidDate", i.paid_date)
      .text("status", i.status)
      .number("total", i.total)
      .number("balance", i.balance)
      .number("carriedBalance", 0)
      .text("partnerName", kPartner)
      .close();
}

void append(std::string& out, const Data& d, const InvoiceItem& i) {
  const auto& invoice = d.invoices[i.invoice];
  const auto& s = d.subscriptions[i.subscription];
  const auto& product = d.products[s.product];
  const std::chrono::year_month_day first(invoice.period);
  const Day last(first.year() / first.month() / std::chrono::last);
  std::string description;
  if (!i.bare) {
    description = std::string(product.name) + " - " + s.billing_term + " (";
    date_text(description, invoice.period);
    description += " to ";
    date_text(description, last);
    description += ')';
  }
  Writer(out)
      .open()
      .text("id", i.id)
      .text("invoiceId", invoice.id)
      .text("companyId", invoice.company_id)
      .text("subscriptionId", s.id)
      .text("productId", product.id)
      .text("productName", i.unnamed ? "" : product.name)
      .text("description", description)
      .integer("quantity", s.quantity)
      .number("price", s.price)
      .number("cost", s.partner_cost)
      .number("costTotal", std::round(s.partner_cost * s.quantity * 100.0) / 100.0)
      .number("total", std::round(s.price * s.quantity * 100.0) / 100.0)
      .day("startPeriod", invoice.period)
      .day("endPeriod", last)
      .text("billingTerm", s.billing_term)
      .text("currencyCode", kCurrency)
      .close();
}

}  // namespace sandbox::pax8
