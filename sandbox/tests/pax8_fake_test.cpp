// The Pax8 fake speaks Pax8's partner API over real HTTP: the token and its expiry, the bearer
// every other route needs, page/size paging, filters, Pax8's error body, the fault switches, the
// removal controls, and a deterministic seed whose company names match the PSA fake's in the
// shares the console's matching has to cope with.
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/pax8_seed.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <thread>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;
using sandbox::pax8::normalised_name;
using sandbox::pax8::trigram_similarity;

namespace {

class Pax8FakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse token_call(const json& body) { return http(fakes.port(), "POST", "/pax8/v1/token", body.dump()); }
  static json credentials() {
    return {{"client_id", "sandbox-distributor"},
            {"client_secret", "sandbox-distributor-secret"},
            {"audience", "https://api.pax8.com"},
            {"grant_type", "client_credentials"}};
  }
  std::string token() {
    const auto res = token_call(credentials());
    EXPECT_EQ(res.status, 200u) << res.body;
    return res.json()["access_token"];
  }
  HttpResponse get(const std::string& target, const std::string& bearer) {
    return http(fakes.port(), "GET", "/pax8" + target, {}, {{"Authorization", "Bearer " + bearer}});
  }
  HttpResponse get(const std::string& target) {
    if (bearer_.empty()) bearer_ = token();
    return get(target, bearer_);
  }
  // Every row of a list, page by page.
  std::vector<json> all(const std::string& target, int size) {
    std::vector<json> out;
    const auto sep = target.find('?') == std::string::npos ? "?" : "&";
    for (int page = 0;; ++page) {
      const auto res = get(target + sep + "page=" + std::to_string(page) + "&size=" + std::to_string(size));
      EXPECT_EQ(res.status, 200u) << res.body;
      const auto body = res.json();
      for (const auto& row : body["content"]) out.push_back(row);
      if (page + 1 >= body["page"]["totalPages"].get<int>()) break;
    }
    return out;
  }
  static void expect_error(const HttpResponse& res, unsigned status, const std::string& type,
                           const std::string& instance) {
    EXPECT_EQ(res.status, status) << res.body;
    const auto body = res.json();
    EXPECT_EQ(body["type"], type) << res.body;
    EXPECT_EQ(body["status"], status) << res.body;
    EXPECT_EQ(body["instance"], instance) << res.body;
    EXPECT_TRUE(body["message"].is_string()) << res.body;
    EXPECT_EQ(body["details"], json::array()) << res.body;
  }

 private:
  std::string bearer_;
};

double round2(double v) { return std::round(v * 100.0) / 100.0; }

}  // namespace

TEST_F(Pax8FakeTest, IssuesATokenToItsClientOnly) {
  const auto ok = token_call(credentials());
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_TRUE(ok.json()["access_token"].is_string());
  EXPECT_GE(ok.json()["access_token"].get<std::string>().size(), 32u);
  EXPECT_EQ(ok.json()["expires_in"], 86400);
  EXPECT_EQ(ok.json()["token_type"], "Bearer");

  auto wrong = credentials();
  wrong["client_secret"] = "guess";
  const auto bad_secret = token_call(wrong);
  EXPECT_EQ(bad_secret.status, 401u);
  EXPECT_EQ(bad_secret.json(), json({{"error", "access_denied"}, {"error_description", "Unauthorized"}}));
  wrong = credentials();
  wrong["client_id"] = "someone-else";
  EXPECT_EQ(token_call(wrong).status, 401u);
  wrong = credentials();
  wrong["audience"] = "api://provisioning";
  EXPECT_EQ(token_call(wrong).status, 403u);
  wrong = credentials();
  wrong["grant_type"] = "password";
  EXPECT_EQ(token_call(wrong).json()["error"], "unsupported_grant_type");
  EXPECT_EQ(http(fakes.port(), "POST", "/pax8/v1/token", "client_id=x").status, 400u);

  const auto stats = fakes.pax8().stats();
  EXPECT_EQ(stats["tokens_issued"], 1);
  EXPECT_EQ(stats["token_requests"], 6);
  EXPECT_EQ(stats["refused_tokens"], 5);
}

TEST_F(Pax8FakeTest, EveryOtherRouteNeedsABearerToken) {
  fakes.pax8().seed({.companies = 3});
  const auto none = http(fakes.port(), "GET", "/pax8/v1/companies");
  expect_error(none, 401, "UNAUTHORIZED", "/v1/companies");
  EXPECT_EQ(none.header("www-authenticate"), "Bearer");
  expect_error(get("/v1/companies", "not-a-token"), 401, "UNAUTHORIZED", "/v1/companies");
  EXPECT_EQ(http(fakes.port(), "GET", "/pax8/v1/subscriptions", {}, {{"Authorization", "Basic abc"}}).status, 401u);
  EXPECT_EQ(get("/v1/companies").status, 200u);
  EXPECT_EQ(fakes.pax8().stats()["unauthorized"], 3);
}

TEST_F(Pax8FakeTest, TokensExpireAfterTheirLifetime) {
  fakes.pax8().seed({.companies = 2});
  fakes.pax8().set_token_lifetime(0);
  const auto at_once = token_call(credentials());
  EXPECT_EQ(at_once.json()["expires_in"], 0);
  EXPECT_EQ(get("/v1/companies", at_once.json()["access_token"]).status, 401u);

  // The control route sets the lifetime of tokens issued after it; earlier ones keep theirs.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/pax8/token", R"({"expires_in": 1})").status, 204u);
  const auto brief = token_call(credentials());
  EXPECT_EQ(brief.json()["expires_in"], 1);
  const std::string token = brief.json()["access_token"];
  EXPECT_EQ(get("/v1/companies", token).status, 200u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  expect_error(get("/v1/companies", token), 401, "UNAUTHORIZED", "/v1/companies");
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/pax8/token", R"({"expires_in": -1})").status, 400u);
}

TEST_F(Pax8FakeTest, PagesByPageAndSize) {
  fakes.pax8().seed({.companies = 45});
  const auto first = get("/v1/companies");
  ASSERT_EQ(first.status, 200u) << first.body;
  const auto body = first.json();
  EXPECT_EQ(body["content"].size(), 10u);  // Pax8's default size
  EXPECT_EQ(body["page"], json({{"size", 10}, {"totalElements", 45}, {"totalPages", 5}, {"number", 0}}));

  const auto last = get("/v1/companies?page=6&size=7").json();
  EXPECT_EQ(last["content"].size(), 3u);
  EXPECT_EQ(last["page"], json({{"size", 7}, {"totalElements", 45}, {"totalPages", 7}, {"number", 6}}));
  const auto past = get("/v1/companies?page=7&size=7").json();
  EXPECT_TRUE(past["content"].empty());
  EXPECT_EQ(past["page"]["number"], 7);

  // Pages follow one order: walked in sevens they give every company once, as the control lists them.
  std::vector<std::string> walked, listed;
  for (const auto& c : all("/v1/companies", 7)) walked.push_back(c["id"]);
  for (const auto& c : fakes.pax8().rows("companies")) listed.push_back(c["id"]);
  EXPECT_EQ(walked, listed);
  EXPECT_EQ(std::set<std::string>(walked.begin(), walked.end()).size(), 45u);

  EXPECT_EQ(get("/v1/companies?size=200").json()["content"].size(), 45u);
  const auto too_big = get("/v1/companies?size=201");
  expect_error(too_big, 400, "BAD_REQUEST", "/v1/companies");
  EXPECT_EQ(too_big.json()["message"], "size must be between 1 and 200");
  expect_error(get("/v1/subscriptions?size=0"), 400, "BAD_REQUEST", "/v1/subscriptions");
  expect_error(get("/v1/orders?page=-1"), 400, "BAD_REQUEST", "/v1/orders");
  expect_error(get("/v1/invoices?page=first"), 400, "BAD_REQUEST", "/v1/invoices");
}

TEST_F(Pax8FakeTest, FiltersSubscriptionsByCompanyAndStatus) {
  fakes.pax8().seed({.seed = 3, .companies = 12, .subscriptions_per_company = 8});
  const auto subscriptions = fakes.pax8().rows("subscriptions");
  ASSERT_EQ(subscriptions.size(), 96u);
  const std::string company = subscriptions[20]["companyId"];
  const auto mine = all("/v1/subscriptions?companyId=" + company, 3);
  EXPECT_EQ(mine.size(), 8u);
  for (const auto& s : mine) EXPECT_EQ(s["companyId"], company);
  // The uuid in upper case is the same company.
  std::string shouted = company;
  for (auto& ch : shouted) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(get("/v1/subscriptions?companyId=" + shouted).json()["page"]["totalElements"], 8);

  std::map<std::string, int> by_status;
  for (const auto& s : subscriptions) ++by_status[s["status"]];
  EXPECT_GT(by_status["Active"], 48);
  EXPECT_GT(by_status["Cancelled"] + by_status["PendingCancel"] + by_status["Trial"], 5);
  for (const auto& status : {"Active", "Cancelled", "PendingCancel", "Trial"}) {
    const auto rows = all(std::string("/v1/subscriptions?status=") + status, 200);
    EXPECT_EQ(static_cast<int>(rows.size()), by_status[status]) << status;
    for (const auto& s : rows) EXPECT_EQ(s["status"], status);
  }
  const auto active_mine = all("/v1/subscriptions?status=Active&companyId=" + company, 200);
  for (const auto& s : active_mine) EXPECT_EQ(s["companyId"], company);

  EXPECT_EQ(get("/v1/subscriptions?companyId=00000000-0000-4000-8000-000000000000").json()["page"]["totalElements"], 0);
  expect_error(get("/v1/subscriptions?companyId=acme"), 400, "BAD_REQUEST", "/v1/subscriptions");
  expect_error(get("/v1/subscriptions?status=Live"), 400, "BAD_REQUEST", "/v1/subscriptions");
  expect_error(get("/v1/companies?status=Live"), 400, "BAD_REQUEST", "/v1/companies");
  for (const auto& c : all("/v1/companies?status=Active", 200)) EXPECT_EQ(c["status"], "Active");
  EXPECT_EQ(all("/v1/orders?companyId=" + company, 200).front()["companyId"], company);
  EXPECT_EQ(all("/v1/invoices?companyId=" + company, 200).size(), 3u);
}

TEST_F(Pax8FakeTest, RendersRowsAsPax8Does) {
  fakes.pax8().seed({.seed = 11, .companies = 30});
  const auto company = get("/v1/companies?size=1").json()["content"][0];
  for (const auto* key : {"id", "name", "status", "externalId", "updatedDate"}) EXPECT_TRUE(company.contains(key));
  EXPECT_TRUE(core::is_uuid(company["id"].get<std::string>()));
  EXPECT_EQ(get("/v1/companies/" + company["id"].get<std::string>()).json(), company);
  const std::string nobody = "3d0617ac-57f6-40e3-951d-e91da47a326b";
  const auto missing = get("/v1/companies/" + nobody);
  expect_error(missing, 404, "NOT_FOUND", "/v1/companies/" + nobody);
  EXPECT_EQ(missing.json()["message"], "Company Not Found: " + nobody);

  const auto subscription = get("/v1/subscriptions?size=1").json()["content"][0];
  for (const auto* key : {"id", "companyId", "productId", "productName", "quantity", "status", "billingTerm", "price",
                          "partnerCost", "currencyCode", "startDate", "endDate"})
    EXPECT_TRUE(subscription.contains(key)) << key;
  EXPECT_LT(subscription["partnerCost"].get<double>(), subscription["price"].get<double>());
  EXPECT_EQ(get("/v1/subscriptions/" + subscription["id"].get<std::string>()).json(), subscription);

  // Products: the catalogue, filterable by vendor.
  const auto products = all("/v1/products", 5);
  EXPECT_GE(products.size(), 15u);
  for (const auto& p : products) EXPECT_TRUE(p["vendorName"].is_string() && p["name"].is_string());
  for (const auto& p : all("/v1/products?vendorName=microsoft", 200)) EXPECT_EQ(p["vendorName"], "Microsoft");

  // Orders: line items name subscriptions, some of which no longer exist.
  std::set<std::string> live;
  for (const auto& s : fakes.pax8().rows("subscriptions")) live.insert(s["id"]);
  int lines = 0, gone = 0;
  for (const auto& order : all("/v1/orders", 200)) {
    for (const auto* key : {"id", "companyId", "createdDate", "orderedBy", "lineItems"})
      EXPECT_TRUE(order.contains(key)) << key;
    for (const auto& line : order["lineItems"]) {
      for (const auto* key : {"id", "productId", "subscriptionId", "quantity", "billingTerm"})
        EXPECT_TRUE(line.contains(key)) << key;
      ++lines;
      gone += live.contains(line["subscriptionId"].get<std::string>()) ? 0 : 1;
    }
  }
  EXPECT_EQ(lines - gone, static_cast<int>(live.size()));  // every live subscription came from an order
  EXPECT_GE(gone, 3);

  // Invoices and their items: total = price × quantity; some items lack a product name.
  const auto invoices = all("/v1/invoices", 200);
  EXPECT_EQ(invoices.size(), 90u);
  int items = 0, unnamed = 0, bare = 0, on_gone = 0;
  for (const auto& invoice : invoices) {
    const std::string id = invoice["id"];
    double sum = 0;
    for (const auto& item : all("/v1/invoices/" + id + "/items", 50)) {
      for (const auto* key : {"id", "companyId", "subscriptionId", "productName", "description", "quantity", "price",
                              "cost", "costTotal", "total", "startPeriod", "endPeriod"})
        EXPECT_TRUE(item.contains(key)) << key;
      EXPECT_EQ(item["invoiceId"], id);
      EXPECT_EQ(item["companyId"], invoice["companyId"]);
      const double qty = item["quantity"], price = item["price"], cost = item["cost"];
      EXPECT_DOUBLE_EQ(item["total"].get<double>(), round2(price * qty));
      EXPECT_DOUBLE_EQ(item["costTotal"].get<double>(), round2(cost * qty));
      sum += item["total"].get<double>();
      ++items;
      if (item["productName"] == "") ++unnamed, bare += item["description"] == "" ? 1 : 0;
      on_gone += live.contains(item["subscriptionId"].get<std::string>()) ? 0 : 1;
    }
    EXPECT_NEAR(invoice["total"].get<double>(), sum, 0.005);
  }
  EXPECT_GT(items, 300);
  EXPECT_NEAR(unnamed, items / 15, 1);
  EXPECT_GE(bare, 1);
  EXPECT_GE(on_gone, 3);
  expect_error(get("/v1/invoices/" + nobody + "/items"), 404, "NOT_FOUND", "/v1/invoices/" + nobody + "/items");
}

TEST_F(Pax8FakeTest, FaultsThrottleAndFail) {
  fakes.pax8().seed({.companies = 2});
  const auto bearer = token();
  fakes.pax8().set_faults({.throttle = 2, .retry_after = 7});
  // A call without a token is refused before the switches are consulted.
  EXPECT_EQ(http(fakes.port(), "GET", "/pax8/v1/companies").status, 401u);
  for (int i = 0; i < 2; ++i) {
    const auto throttled = get("/v1/companies", bearer);
    expect_error(throttled, 429, "TOO_MANY_REQUESTS", "/v1/companies");
    EXPECT_EQ(throttled.header("retry-after"), "7");
  }
  EXPECT_EQ(get("/v1/companies", bearer).status, 200u);

  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/pax8/faults", R"({"server_errors": 1, "status": 502})").status, 204u);
  expect_error(get("/v1/subscriptions", bearer), 502, "BAD_GATEWAY", "/v1/subscriptions");
  EXPECT_EQ(get("/v1/subscriptions", bearer).status, 200u);
  fakes.pax8().set_faults({.server_errors = 1});
  expect_error(get("/v1/orders", bearer), 503, "SERVICE_UNAVAILABLE", "/v1/orders");
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/pax8/faults", R"({"status": 404})").status, 400u);

  // Latency holds calls in flight together.
  fakes.pax8().set_faults({.latency = std::chrono::milliseconds(1000)});
  std::vector<std::thread> callers;
  for (int i = 0; i < 3; ++i) callers.emplace_back([&] { EXPECT_EQ(get("/v1/companies", bearer).status, 200u); });
  for (auto& t : callers) t.join();

  const auto stats = json::parse(http(fakes.port(), "GET", "/_sandbox/pax8/stats").body);
  EXPECT_EQ(stats["throttled"], 2);
  EXPECT_EQ(stats["server_errors"], 2);
  EXPECT_EQ(stats["tokens_issued"], 1);
  EXPECT_EQ(stats["most_in_flight"], 3);
  EXPECT_EQ(stats["requests"], 11);  // the token, 10 API calls
  EXPECT_TRUE(stats["serving_ms"].is_number());
}

TEST_F(Pax8FakeTest, RemovedCompaniesAndSubscriptionsAreGone) {
  fakes.pax8().seed({.companies = 5, .subscriptions_per_company = 4});
  const auto companies = fakes.pax8().rows("companies");
  const std::string company = companies[1]["id"];
  ASSERT_EQ(http(fakes.port(), "DELETE", "/_sandbox/pax8/companies/" + company).status, 204u);
  EXPECT_EQ(get("/v1/companies/" + company).status, 404u);
  EXPECT_EQ(get("/v1/companies").json()["page"]["totalElements"], 4);
  EXPECT_EQ(get("/v1/subscriptions?companyId=" + company).json()["page"]["totalElements"], 0);
  EXPECT_EQ(get("/v1/subscriptions").json()["page"]["totalElements"], 16);
  EXPECT_EQ(http(fakes.port(), "DELETE", "/_sandbox/pax8/companies/" + company).status, 404u);

  const std::string subscription = fakes.pax8().rows("subscriptions")[5]["id"];
  ASSERT_EQ(http(fakes.port(), "DELETE", "/_sandbox/pax8/subscriptions/" + subscription).status, 204u);
  EXPECT_EQ(get("/v1/subscriptions/" + subscription).status, 404u);
  EXPECT_EQ(get("/v1/subscriptions").json()["page"]["totalElements"], 15);
  EXPECT_FALSE(fakes.pax8().remove_subscription(subscription));
  EXPECT_TRUE(fakes.pax8().remove_company(companies[0]["id"]));
  EXPECT_EQ(fakes.pax8().stats()["rows"]["subscriptions"], 11);
}

TEST_F(Pax8FakeTest, SeedsCountsAndNamesMatchingThePsa) {
  fakes.autotask().seed({.contacts = 0, .tickets = 0, .time_entries = 0});
  fakes.pax8().seed({});
  const auto stats = fakes.pax8().stats()["rows"];
  EXPECT_EQ(stats["companies"], 40);
  EXPECT_EQ(stats["subscriptions"], 240);
  EXPECT_EQ(stats["invoices"], 120);
  EXPECT_GT(stats["invoice_items"].get<int>(), 400);
  EXPECT_GT(stats["orders"].get<int>(), 80);

  // Classify each distributor company against the PSA fake's companies (not the MSP, company 0) by
  // the console's rules, and compare with what the seed meant.
  std::vector<std::string> psa;
  for (const auto& c : fakes.autotask().rows("Companies"))
    if (c["id"] != 0) psa.push_back(c["companyName"]);
  ASSERT_EQ(psa.size(), 39u);
  std::map<std::string, int> kinds;
  const auto listed = json::parse(http(fakes.port(), "GET", "/_sandbox/pax8/companies").body);
  for (const auto& c : listed["items"]) {
    const std::string name = c["name"];
    std::string kind = "none";
    double best = 0;
    for (const auto& p : psa) {
      if (p == name)
        kind = "exact";
      else if (kind != "exact" && normalised_name(p) == normalised_name(name))
        kind = "normalised";
      best = std::max(best, trigram_similarity(normalised_name(p), normalised_name(name)));
    }
    if (kind == "none" && best >= 0.45) kind = "similar";
    if (kind == "none") EXPECT_LT(best, 0.3) << name;
    EXPECT_EQ(json(kind), c["_sandbox"]["match"]) << name << " / " << c["_sandbox"]["psaName"];
    EXPECT_NE(name, "Northwind IT Services");
    ++kinds[kind];
  }
  EXPECT_NEAR(kinds["exact"], 40 / 3, 2);
  EXPECT_NEAR(kinds["normalised"], 40 / 3, 2);
  EXPECT_NEAR(kinds["similar"], 40 / 6, 2);
  EXPECT_NEAR(kinds["none"], 40 / 6, 2);
}

TEST_F(Pax8FakeTest, ALargeAccountKeepsTheShares) {
  fakes.pax8().seed({.seed = 9, .companies = 2000, .subscriptions_per_company = 10, .psa_companies = 2000});
  const auto stats = fakes.pax8().stats()["rows"];
  EXPECT_EQ(stats["subscriptions"], 20'000);
  std::map<std::string, int> kinds;
  std::set<std::string> psa_names;
  for (const auto& c : fakes.pax8().rows("companies")) {
    const std::string kind = c["_sandbox"]["match"], name = c["name"];
    ++kinds[kind];
    if (kind == "none") continue;
    const std::string psa = c["_sandbox"]["psaName"];
    psa_names.insert(psa);
    if (kind == "exact") EXPECT_EQ(name, psa);
    if (kind == "normalised") EXPECT_TRUE(name != psa && normalised_name(name) == normalised_name(psa)) << name;
    if (kind == "similar") {
      EXPECT_NE(normalised_name(name), normalised_name(psa)) << name;
      EXPECT_GE(trigram_similarity(normalised_name(name), normalised_name(psa)), 0.45) << name << " / " << psa;
    }
  }
  EXPECT_EQ(psa_names.size(), static_cast<std::size_t>(2000 - kinds["none"]));  // each its own PSA company
  EXPECT_NEAR(kinds["exact"], 667, 1);
  EXPECT_NEAR(kinds["normalised"], 667, 1);
  EXPECT_NEAR(kinds["similar"], 333, 1);
  EXPECT_NEAR(kinds["none"], 333, 1);

  // A full read in pages of 200 gives every company once; the subscriptions end on a full page.
  std::set<std::string> ids;
  for (const auto& c : all("/v1/companies", 200)) ids.insert(c["id"]);
  EXPECT_EQ(ids.size(), 2000u);
  const auto last = get("/v1/subscriptions?page=99&size=200").json();
  EXPECT_EQ(last["content"].size(), 200u);
  EXPECT_EQ(last["page"], json({{"size", 200}, {"totalElements", 20'000}, {"totalPages", 100}, {"number", 99}}));
}

TEST_F(Pax8FakeTest, TheSameSeedGivesTheSameAccount) {
  const auto now = *core::parse_rfc3339("2026-03-17T00:00:00Z");
  const auto a = sandbox::pax8::seed_data({.seed = 4}, now), b = sandbox::pax8::seed_data({.seed = 4}, now),
             c = sandbox::pax8::seed_data({.seed = 5}, now);
  const auto ids = [](const sandbox::pax8::Data& d) {
    std::vector<std::string> out;
    for (const auto& x : d.companies) out.push_back(x.id + x.name);
    for (const auto& x : d.subscriptions)
      out.push_back(x.id + x.status + std::to_string(x.start.time_since_epoch().count()));
    for (const auto& x : d.invoice_items)
      out.push_back(x.id + std::to_string(x.subscription) + (x.unnamed ? "-" : "+"));
    return out;
  };
  EXPECT_EQ(ids(a), ids(b));
  EXPECT_NE(ids(a), ids(c));
  EXPECT_EQ(a.products.front().id, c.products.front().id);  // the catalogue is the same whatever the seed

  fakes.pax8().seed({.seed = 4});
  const auto first = fakes.pax8().rows("companies");
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/pax8/seed", R"({"seed": 4})").status, 201u);
  EXPECT_EQ(fakes.pax8().rows("companies"), first);
  const auto seeded = http(fakes.port(), "POST", "/_sandbox/pax8/seed",
                           R"({"seed": 2, "companies": 7, "subscriptions_per_company": 2, "invoices_per_company": 1})");
  ASSERT_EQ(seeded.status, 201u) << seeded.body;
  EXPECT_EQ(seeded.json()["companies"], 7);
  EXPECT_EQ(seeded.json()["subscriptions"], 14);
  EXPECT_EQ(seeded.json()["invoices"], 7);
  EXPECT_EQ(http(fakes.port(), "POST", "/_sandbox/pax8/seed", R"({"companies": -1})").status, 400u);
}

TEST_F(Pax8FakeTest, NamesAreNormalisedAsTheConsoleDoes) {
  EXPECT_EQ(normalised_name("CONTOSO, INC."), "contoso");
  EXPECT_EQ(normalised_name("Contoso Pty. Ltd."), "contoso");
  EXPECT_EQ(normalised_name("  Alder & Finch Law LLC "), "alder finch law");
  EXPECT_EQ(normalised_name("Upland Farms Co-op"), "upland farms co op");
  EXPECT_EQ(normalised_name("Co"), "co");
  EXPECT_NEAR(trigram_similarity("word", "two words"), 4.0 / 11.0, 1e-9);  // pg_trgm's documented example
  EXPECT_DOUBLE_EQ(trigram_similarity("Cobalt Logistics", "cobalt logistics"), 1.0);
  EXPECT_EQ(trigram_similarity("", ""), 0.0);
}

TEST_F(Pax8FakeTest, ListedInTheSandboxIndex) {
  bool listed = false;
  const auto index = json::parse(http(fakes.port(), "GET", "/_sandbox").body);
  for (const auto& fake : index["fakes"])
    listed = listed || (fake["name"] == "pax8" && fake["control"] == "/_sandbox/pax8");
  EXPECT_TRUE(listed);
  fakes.pax8().seed({.companies = 2});
  const auto items = json::parse(http(fakes.port(), "GET", "/_sandbox/pax8/rows/invoice_items").body)["items"];
  EXPECT_FALSE(items.empty());
  EXPECT_EQ(http(fakes.port(), "GET", "/_sandbox/pax8/rows/widgets").status, 404u);
  EXPECT_THROW(fakes.pax8().rows("widgets"), std::invalid_argument);
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/pax8/reset").status, 204u);
  EXPECT_EQ(fakes.pax8().stats()["rows"]["companies"], 0);
}
