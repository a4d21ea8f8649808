// Pax8's partner API: the token, and the lists and rows behind the gate of pax8_fake.cpp
// (pax8_fake.hpp lists the routes).
#include "core/util/strings.hpp"
#include "sandbox/pax8_fake.hpp"
#include "sandbox/pax8_rest.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

constexpr std::string_view kBase = "/pax8/v1";
constexpr std::int64_t kDefaultSize = 10;
constexpr std::int64_t kMaxSize = 200;

struct Paging {
  std::size_t page = 0;
  std::size_t size = kDefaultSize;
};

// `page` and `size` as Pax8 takes them; a message for the 400 when they are malformed.
std::optional<std::string> paging_of(const Request& req, Paging& paging) {
  if (const auto page = req.query.get("page")) {
    const auto n = core::parse_int64(*page);
    if (!n || *n < 0) return "page must be a whole number, 0 or more";
    paging.page = static_cast<std::size_t>(*n);
  }
  if (const auto size = req.query.get("size")) {
    const auto n = core::parse_int64(*size);
    if (!n || *n < 1 || *n > kMaxSize) return "size must be between 1 and 200";
    paging.size = static_cast<std::size_t>(*n);
  }
  return std::nullopt;
}

// A query filter's value, checked: empty when absent; a message for the 400 when it is not one of
// `allowed` (any text when `allowed` is empty) or, with `uuid`, not a uuid.
struct Filter {
  std::string value;
  std::optional<std::string> bad;
};
Filter filter_of(const Request& req, std::string_view name, bool uuid,
                 std::initializer_list<const char*> allowed = {}) {
  Filter f;
  const auto v = req.query.get(name);
  if (!v) return f;
  f.value = std::string(*v);
  if (uuid && !core::is_uuid(f.value)) f.bad = std::string(name) + ": '" + f.value + "' is not a valid UUID";
  if (allowed.size() > 0 && std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return f.value == a; })) {
    std::vector<std::string> names(allowed.begin(), allowed.end());
    f.bad = std::string(name) + ": '" + f.value + "' is not one of " + core::join(names, ", ");
  }
  return f;
}

// One page of the rows at `positions`, in that order.
template <class T>
Response page_of(const pax8::Data& d, const std::vector<T>& rows, const std::vector<std::size_t>& positions,
                 const Paging& paging) {
  const auto total = positions.size();
  const auto first = std::min(total, paging.page * paging.size);
  const auto last = std::min(total, first + paging.size);
  std::string body = "{\"content\":[";
  for (auto i = first; i < last; ++i) {
    if (i > first) body += ',';
    pax8::append(body, d, rows[positions[i]]);
  }
  body += "],\"page\":{\"size\":" + std::to_string(paging.size) + ",\"totalElements\":" + std::to_string(total) +
          ",\"totalPages\":" + std::to_string((total + paging.size - 1) / paging.size) +
          ",\"number\":" + std::to_string(paging.page) + "}}";
  return Response::json_text(std::move(body));
}

// The positions of the rows `keep` keeps, among `among` (a company's) or all.
template <class T, class Keep>
std::vector<std::size_t> matching(const std::vector<T>& rows, const std::vector<std::size_t>* among, Keep keep) {
  std::vector<std::size_t> out;
  if (among) {
    for (const auto i : *among)
      if (keep(rows[i])) out.push_back(i);
  } else {
    out.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (keep(rows[i])) out.push_back(i);
  }
  return out;
}

const std::vector<std::size_t>* among(const std::unordered_map<std::string, std::vector<std::size_t>>& index,
                                      const std::string& company) {
  static const std::vector<std::size_t> kNone;
  if (company.empty()) return nullptr;
  const auto it = index.find(company);
  return it == index.end() ? &kNone : &it->second;
}

// The row of `rows` at one of `positions` (all when null) whose id the path names.
template <class T>
Response by_id(const pax8::Data& d, const std::vector<T>& rows, const Request& req, const char* what,
               const std::vector<std::size_t>* positions = nullptr) {
  const std::string id(req.param("id"));
  if (!core::is_uuid(id)) return pax8::error(400, "id: '" + id + "' is not a valid UUID", req);
  const auto found = [&](const T& row) {
    std::string body;
    pax8::append(body, d, row);
    return Response::json_text(std::move(body));
  };
  if (positions) {
    for (const auto i : *positions)
      if (core::iequals(rows[i].id, id)) return found(rows[i]);
  } else {
    for (const auto& row : rows)
      if (core::iequals(row.id, id)) return found(row);
  }
  return pax8::error(404, std::string(what) + " Not Found: " + id, req);
}

}  // namespace

void Pax8Fake::install_api(core::http::Router& router) {
  const std::string at(kBase);
  router.post(at + "/token", [this](Request& req) -> awaitable<Response> { co_return issue_token(req); });

  auto api = [this](Work work) -> core::http::Handler {
    return [this, work](Request& req) -> awaitable<Response> { co_return co_await serve(req, work); };
  };
  // A list: paging and filters checked before the rows are read.
  auto list = [api](std::function<Response(Request&, const Paging&)> read) {
    return api([read](Request& req) {
      Paging paging;
      if (const auto bad = paging_of(req, paging)) return pax8::error(400, *bad, req);
      return read(req, paging);
    });
  };

  router.get(at + "/companies", list([this](Request& req, const Paging& paging) {
               const auto status = filter_of(req, "status", false, {"Active", "Inactive", "Deleted"});
               if (status.bad) return pax8::error(400, *status.bad, req);
               std::lock_guard lock(mutex_);
               const auto rows = matching(data_.companies, nullptr, [&](const pax8::Company& c) {
                 return status.value.empty() || c.status == status.value;
               });
               return page_of(data_, data_.companies, rows, paging);
             }));
  router.get(at + "/companies/{id}", api([this](Request& req) {
               std::lock_guard lock(mutex_);
               return by_id(data_, data_.companies, req, "Company");
             }));

  router.get(
      at + "/subscriptions", list([this](Request& req, const Paging& paging) {
        const auto company = filter_of(req, "companyId", true);
        const auto product = filter_of(req, "productId", true);
        const auto status = filter_of(req, "status", false,
                                      {"Active", "Cancelled", "PendingManual", "PendingAutomated", "PendingCancel",
                                       "WaitingForDetails", "Trial", "Converted", "PendingActivation", "Activated"});
        const auto term = filter_of(req, "billingTerm", false,
                                    {"Monthly", "Annual", "2-Year", "3-Year", "One-Time", "Trial", "Activation"});
        for (const auto* f : {&company, &product, &status, &term})
          if (f->bad) return pax8::error(400, *f->bad, req);
        const auto company_id = core::to_lower(company.value);
        std::lock_guard lock(mutex_);
        const auto* pool = company_id.empty() ? &data_.live : among(subscriptions_of_, company_id);
        const auto rows = matching(data_.subscriptions, pool, [&](const pax8::Subscription& s) {
          return (status.value.empty() || s.status == status.value) &&
                 (term.value.empty() || s.billing_term == term.value) &&
                 (product.value.empty() || core::iequals(data_.products[s.product].id, product.value));
        });
        return page_of(data_, data_.subscriptions, rows, paging);
      }));
  router.get(at + "/subscriptions/{id}", api([this](Request& req) {
               std::lock_guard lock(mutex_);
               return by_id(data_, data_.subscriptions, req, "Subscription", &data_.live);
             }));

  router.get(at + "/orders", list([this](Request& req, const Paging& paging) {
               const auto company = filter_of(req, "companyId", true);
               if (company.bad) return pax8::error(400, *company.bad, req);
               std::lock_guard lock(mutex_);
               const auto rows = matching(data_.orders, among(orders_of_, core::to_lower(company.value)),
                                          [](const pax8::Order&) { return true; });
               return page_of(data_, data_.orders, rows, paging);
             }));
  router.get(at + "/orders/{id}", api([this](Request& req) {
               std::lock_guard lock(mutex_);
               return by_id(data_, data_.orders, req, "Order");
             }));

  router.get(at + "/invoices", list([this](Request& req, const Paging& paging) {
               const auto company = filter_of(req, "companyId", true);
               if (company.bad) return pax8::error(400, *company.bad, req);
               std::lock_guard lock(mutex_);
               const auto rows = matching(data_.invoices, among(invoices_of_, core::to_lower(company.value)),
                                          [](const pax8::Invoice&) { return true; });
               return page_of(data_, data_.invoices, rows, paging);
             }));
  router.get(at + "/invoices/{id}", api([this](Request& req) {
               std::lock_guard lock(mutex_);
               return by_id(data_, data_.invoices, req, "Invoice");
             }));
  router.get(at + "/invoices/{id}/items", list([this](Request& req, const Paging& paging) {
               const auto id = core::to_lower(req.param("id"));
               if (!core::is_uuid(id)) return pax8::error(400, "id: '" + id + "' is not a valid UUID", req);
               std::lock_guard lock(mutex_);
               const auto known = std::any_of(data_.invoices.begin(), data_.invoices.end(),
                                              [&](const pax8::Invoice& i) { return i.id == id; });
               if (!known) return pax8::error(404, "Invoice Not Found: " + id, req);
               std::vector<std::size_t> rows;
               if (const auto it = items_of_.find(id); it != items_of_.end())
                 for (auto i = it->second.first; i < it->second.second; ++i) rows.push_back(i);
               return page_of(data_, data_.invoice_items, rows, paging);
             }));

  router.get(at + "/products", list([this](Request& req, const Paging& paging) {
               const auto vendor = filter_of(req, "vendorName", false);
               std::lock_guard lock(mutex_);
               const auto rows = matching(data_.products, nullptr, [&](const pax8::Product& p) {
                 return vendor.value.empty() || core::iequals(p.vendor_name, vendor.value);
               });
               return page_of(data_, data_.products, rows, paging);
             }));
  router.get(at + "/products/{id}", api([this](Request& req) {
               std::lock_guard lock(mutex_);
               return by_id(data_, data_.products, req, "Product");
             }));
}

}  // namespace sandbox
