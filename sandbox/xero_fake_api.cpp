// Xero's Accounting API (api.xro/2.0): Invoices, Payments and Contacts with page, pageSize, where,
// order, If-Modified-Since and the list parameters, one by id, and Organisation, each behind the gate
// of xero_fake.cpp (xero_fake.hpp has the rules and sources).
#include "sandbox/xero_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/xero_query.hpp"
#include "sandbox/xero_rest.hpp"

#include <algorithm>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

constexpr std::string_view kBase = "/xero/api/api.xro/2.0";
constexpr int kPageSize = 100;  // "Up to 100 ... will be returned in a single API call"
constexpr int kMaxPageSize = 1000;

// A comma-separated list parameter (Statuses=DRAFT,SUBMITTED), each value trimmed; empty when absent.
std::vector<std::string> list_param(const Request& req, const char* name) {
  std::vector<std::string> out;
  if (const auto v = req.query.get(name))
    for (const auto piece : core::split(*v, ','))
      if (const auto t = core::trim(piece); !t.empty()) {
        std::string value(t);
        if (value.size() > 1 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
        out.push_back(value);
      }
  return out;
}

bool listed(const std::vector<std::string>& list, const json* value, bool ignore_case) {
  if (list.empty()) return true;
  if (!value || !value->is_string()) return false;
  const auto& v = value->get_ref<const std::string&>();
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& x) { return ignore_case ? core::iequals(x, v) : x == v; });
}

json envelope(const std::string& provider) {
  return {{"Id", core::random_uuid()},
          {"Status", "OK"},
          {"ProviderName", provider},
          {"DateTimeUTC", "/Date(" + std::to_string(xero::to_ms(core::now())) + ")/"}};
}

}  // namespace

void XeroFake::install_api(core::http::Router& router) {
  // GET {kind}: the list, filtered, ordered and paged.
  const auto list = [this](Request& req, const xero::Kind& kind) -> Response {
    xero::Where where;
    std::vector<xero::OrderKey> order;
    try {
      where = xero::parse_where(req.query.get("where").value_or(""), kind.singular, kind.fields);
      order = xero::parse_order(req.query.get("order").value_or(""), kind.singular, kind.fields);
    } catch (const xero::QueryParseError& e) {
      return xero::api_exception(16, "QueryParseException", e.message);
    }
    std::optional<std::int64_t> since;
    if (const auto header = core::trim(req.header("if-modified-since")); !header.empty()) {
      since = xero::parse_if_modified_since(header);
      if (!since)
        return xero::api_exception(10, "ValidationException",
                                   "The If-Modified-Since header is not a date: '" + std::string(header) + "'");
    }
    std::optional<int> page;
    int page_size = kPageSize;
    if (const auto p = req.query.get("page")) {
      const auto n = core::parse_int64(core::trim(*p));
      if (!n) return xero::api_exception(10, "ValidationException", "page must be a whole number");
      page = static_cast<int>(std::clamp<std::int64_t>(*n, 1, 1'000'000));
    }
    if (const auto p = req.query.get("pageSize")) {
      const auto n = core::parse_int64(core::trim(*p));
      if (!n) return xero::api_exception(10, "ValidationException", "pageSize must be a whole number");
      page_size = static_cast<int>(std::clamp<std::int64_t>(*n, 1, kMaxPageSize));
    }
    const auto ids = list_param(req, "IDs"), statuses = list_param(req, "Statuses"),
               numbers = list_param(req, "InvoiceNumbers"), contacts = list_param(req, "ContactIDs");
    const bool invoices = kind.name == "Invoices";

    std::vector<const json*> matching;
    for (const auto& row : tables_[kind.name]) {
      if (since) {
        const auto* updated = xero::find_member(row, "UpdatedDateUTC");
        const auto ms =
            updated && updated->is_string() ? xero::parse_json_date(updated->get<std::string>()) : std::nullopt;
        if (!ms || *ms <= *since) continue;
      }
      if (!listed(ids, xero::find_member(row, kind.id_field), true)) continue;
      if (invoices) {
        const auto* contact = xero::find_member(row, "Contact");
        if (!listed(statuses, xero::find_member(row, "Status"), false) ||
            !listed(numbers, xero::find_member(row, "InvoiceNumber"), false) ||
            !listed(contacts, contact ? xero::find_member(*contact, "ContactID") : nullptr, true))
          continue;
      }
      if (where.matches(row)) matching.push_back(&row);
    }
    xero::sort_rows(matching, order);

    std::size_t first = 0, last = matching.size();
    if (page) {
      first = std::min(matching.size(), static_cast<std::size_t>(*page - 1) * page_size);
      last = std::min(matching.size(), first + page_size);
    }
    json items = json::array();
    for (auto i = first; i < last; ++i) {
      json row = *matching[i];
      if (invoices && !page) row["LineItems"] = json::array();  // line items come with paging, as on Xero
      items.push_back(std::move(row));
    }
    json body = envelope(options_.provider_name);
    if (page)
      body["pagination"] = {{"page", *page},
                            {"pageSize", page_size},
                            {"pageCount", (matching.size() + page_size - 1) / page_size},
                            {"itemCount", matching.size()}};
    body[kind.name] = std::move(items);
    return Response::json(body);
  };

  // GET {kind}/{id}: one, by its id (an invoice also by its number).
  const auto one = [this](Request& req, const xero::Kind& kind) -> Response {
    const std::string id(req.param("id"));
    for (const auto& row : tables_[kind.name]) {
      const auto* key = xero::find_member(row, kind.id_field);
      const auto* number = kind.name == "Invoices" ? xero::find_member(row, "InvoiceNumber") : nullptr;
      if ((key && key->is_string() && core::iequals(key->get<std::string>(), id)) ||
          (number && number->is_string() && number->get<std::string>() == id)) {
        json body = envelope(options_.provider_name);
        body[kind.name] = json::array({row});
        return Response::json(body);
      }
    }
    return xero::problem(404, "The resource you're looking for cannot be found");
  };

  const auto organisation = [this](Request&) -> Response {
    json body = envelope(options_.provider_name);
    body["Organisations"] = json::array({{{"OrganisationID", options_.tenant_id},
                                          {"APIKey", ""},
                                          {"Name", options_.tenant_name},
                                          {"LegalName", "Northwind IT Services Ltd"},
                                          {"PaysTax", true},
                                          {"Version", "UK"},
                                          {"OrganisationType", "COMPANY"},
                                          {"BaseCurrency", "GBP"},
                                          {"CountryCode", "GB"},
                                          {"IsDemoCompany", false},
                                          {"OrganisationStatus", "ACTIVE"},
                                          {"FinancialYearEndDay", 31},
                                          {"FinancialYearEndMonth", 3},
                                          {"SalesTaxBasis", "ACCRUALS"},
                                          {"SalesTaxPeriod", "QUARTERLY1"},
                                          {"DefaultSalesTax", "Tax Exclusive"},
                                          {"DefaultPurchasesTax", "Tax Exclusive"},
                                          {"CreatedDateUTC", "/Date(1420070400000)/"},
                                          {"OrganisationEntityType", "COMPANY"},
                                          {"Timezone", "GMTUKTIME"},
                                          {"ShortCode", "!Nw7xT"},
                                          {"Edition", "BUSINESS"},
                                          {"Class", "STANDARD"},
                                          {"LineOfBusiness", "IT managed services"}}});
    return Response::json(body);
  };
  const std::vector<std::string> settings_scopes{"accounting.settings", "accounting.settings.read"};

  router.get(std::string(kBase) + "/{kind}",
             [this, list, organisation, settings_scopes](Request& req) -> awaitable<Response> {
               const std::string name(req.param("kind"));
               if (core::iequals(name, "Organisation")) co_return co_await serve(req, settings_scopes, organisation);
               const auto* kind = xero::find_kind(name);
               if (!kind) co_return xero::problem(404, "The resource you're looking for cannot be found");
               co_return co_await serve(req, kind->scopes, [list, kind](Request& r) { return list(r, *kind); });
             });
  router.get(std::string(kBase) + "/{kind}/{id}", [this, one](Request& req) -> awaitable<Response> {
    const auto* kind = xero::find_kind(req.param("kind"));
    if (!kind) co_return xero::problem(404, "The resource you're looking for cannot be found");
    co_return co_await serve(req, kind->scopes, [one, kind](Request& r) { return one(r, *kind); });
  });
}

}  // namespace sandbox
