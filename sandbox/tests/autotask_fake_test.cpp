// The Autotask fake speaks Autotask's REST API over real HTTP: zone discovery, credentials,
// queries with every operator, paging by nextPageUrl that stays stable while rows change,
// IncludeFields, counts, GET by id, picklists, the thread and hourly limits, the fault switches,
// a deterministic seed, and signed webhook callouts.
#include "core/http/client.hpp"
#include "core/http/server.hpp"
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_seed.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <future>
#include <set>
#include <thread>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

constexpr const char* kRest = "/autotask/atservicesrest/V1.0/";
const json kEverything = json::parse(R"([{"op":"gte","field":"id","value":0}])");

class AutotaskFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  std::string host() const { return "127.0.0.1:" + std::to_string(fakes.port()); }
  std::map<std::string, std::string> credentials() const {
    return {{"ApiIntegrationCode", "sandbox-integration"},
            {"UserName", "api@msp.example"},
            {"Secret", "sandbox-secret"},
            {"Host", host()}};
  }
  HttpResponse call(const std::string& method, const std::string& path, const std::string& body = {}) {
    return http(fakes.port(), method, kRest + path, body, credentials());
  }
  HttpResponse query(const std::string& entity, const json& search) {
    return call("POST", entity + "/query", search.dump());
  }
  // A page URL is absolute, on this fake; the request target it names.
  std::string target_of(const std::string& url) {
    const std::string origin = "http://" + host();
    EXPECT_EQ(url.rfind(origin, 0), 0u) << url;
    return url.substr(origin.size());
  }
  std::vector<std::int64_t> ids_of(const json& page) {
    std::vector<std::int64_t> ids;
    for (const auto& item : page["items"]) ids.push_back(item["id"].get<std::int64_t>());
    return ids;
  }
  void add_tickets(int n) {
    for (int i = 1; i <= n; ++i)
      fakes.autotask().add("Tickets", {{"title", "ticket " + std::to_string(i)},
                                       {"status", i % 3 == 0 ? 5 : 1},
                                       {"priority", 2},
                                       {"companyID", 174},
                                       {"createDate", "2026-03-0" + std::to_string(i % 9 + 1) + "T09:00:00.000Z"}});
  }
};

std::string hmac_sha1_base64(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  std::string out(4 * ((len + 2) / 3), '\0');
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), mac, static_cast<int>(len));
  return out;
}

// A webhook receiver of the test's own: records what arrives, answers `status`.
class Receiver {
 public:
  explicit Receiver(unsigned status)
      : server_(io_.executor(), core::http::ServerOptions{}, {},
                [this](core::http::Request& req) { return handle(req); }),
        status_(status) {
    port_ = server_.start();
  }
  ~Receiver() { io_.run(server_.stop()); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hooks/autotask"; }
  std::vector<std::pair<std::string, std::string>> received() {  // (X-Hook-Signature, body)
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  boost::asio::awaitable<core::http::Response> handle(core::http::Request& req) {
    {
      std::lock_guard lock(mutex_);
      received_.emplace_back(std::string(req.header("X-Hook-Signature")), req.body);
    }
    co_return core::http::Response::json({{"received", true}}, static_cast<core::http::Status>(status_));
  }

  core::testing::IoThreads io_{1};
  core::http::Server server_;
  unsigned status_;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> received_;
};

}  // namespace

TEST_F(AutotaskFakeTest, ZoneInformationNamesThisFakeAsTheRestRoot) {
  const auto zone =
      http(fakes.port(), "GET", std::string(kRest) + "ZoneInformation?user=API%40msp.example", {}, {{"Host", host()}});
  ASSERT_EQ(zone.status, 200u) << zone.body;
  EXPECT_EQ(zone.json()["url"], "http://" + host() + "/autotask/atservicesrest/");
  EXPECT_EQ(zone.json()["webUrl"], "http://" + host() + "/autotask/");
  EXPECT_TRUE(zone.json()["zoneName"].is_string());
  EXPECT_TRUE(zone.json()["ci"].is_number_integer());
  const auto unknown = http(fakes.port(), "GET", std::string(kRest) + "ZoneInformation?user=nobody%40x.example");
  EXPECT_EQ(unknown.status, 500u);
  EXPECT_EQ(unknown.json(), json({{"errors", {"Zone information could not be determined"}}}));
}

TEST_F(AutotaskFakeTest, RefusesMissingOrWrongCredentials) {
  const std::string target = std::string(kRest) + "Tickets/query";
  const std::string body = json({{"Filter", kEverything}}).dump();
  const auto none = http(fakes.port(), "POST", target, body);
  EXPECT_EQ(none.status, 401u);
  ASSERT_TRUE(none.json()["errors"].is_array());
  EXPECT_TRUE(none.json()["errors"][0].is_string());
  for (const auto& [header, wrong] : std::vector<std::pair<std::string, std::string>>{
           {"Secret", "guess"}, {"ApiIntegrationCode", "other-integration"}, {"UserName", "someone@msp.example"}}) {
    auto headers = credentials();
    headers[header] = wrong;
    const auto refused = http(fakes.port(), "POST", target, body, headers);
    EXPECT_EQ(refused.status, 401u) << header;
    EXPECT_TRUE(refused.json()["errors"].is_array()) << header;
  }
  EXPECT_EQ(query("Tickets", {{"Filter", kEverything}}).status, 200u);
  EXPECT_EQ(fakes.autotask().stats()["refused_credentials"], 4);

  // As the live service has been seen to: an unknown user or integration code is a 500.
  sandbox::InProcess observed({}, {}, sandbox::AutotaskFakeOptions{.observed_auth_errors = true});
  auto headers = credentials();
  headers["UserName"] = "someone@msp.example";
  EXPECT_EQ(http(observed.port(), "POST", target, body, headers).status, 500u);
  headers = credentials();
  headers["Secret"] = "guess";
  EXPECT_EQ(http(observed.port(), "POST", target, body, headers).status, 401u);
}

TEST_F(AutotaskFakeTest, QueriesFilterWithOperatorsAndGroups) {
  add_tickets(9);  // ids 1..9; 3, 6 and 9 are Complete
  const auto ids = [&](const std::string& filter) {
    const auto page = query("Tickets", {{"Filter", json::parse(filter)}});
    EXPECT_EQ(page.status, 200u) << page.body;
    return ids_of(page.json());
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(ids(R"([{"op":"eq","field":"status","value":5}])"), (V{3, 6, 9}));
  EXPECT_EQ(ids(R"([{"op":"noteq","field":"status","value":5},{"op":"lt","field":"id","value":5}])"), (V{1, 2, 4}));
  EXPECT_EQ(ids(R"([{"op":"in","field":"id","value":[2,4,99]}])"), (V{2, 4}));
  EXPECT_EQ(ids(R"([{"op":"notIn","field":"id","value":[1,2,3,4,5,6,7]}])"), (V{8, 9}));
  EXPECT_EQ(ids(R"([{"op":"beginsWith","field":"title","value":"TICKET 1"}])"), (V{1}));
  EXPECT_EQ(ids(R"([{"op":"endsWith","field":"title","value":"7"}])"), (V{7}));
  EXPECT_EQ(ids(R"([{"op":"contains","field":"title","value":"et 8"}])"), (V{8}));
  EXPECT_EQ(ids(R"([{"op":"gte","field":"createDate","value":"2026-03-08"}])"), (V{7, 8}));
  EXPECT_EQ(ids(R"([{"op":"gt","field":"id","value":7}])"), (V{8, 9}));
  EXPECT_EQ(ids(R"([{"op":"lte","field":"id","value":2}])"), (V{1, 2}));
  EXPECT_EQ(ids(R"([{"op":"exist","field":"completedDate"}])"), V{});
  EXPECT_EQ(ids(R"([{"op":"notExist","field":"completedDate"},{"op":"eq","field":"id","value":1}])"), (V{1}));
  EXPECT_EQ(ids(R"([{"op":"or","items":[{"op":"eq","field":"id","value":1},
                     {"op":"and","items":[{"op":"eq","field":"status","value":5},{"op":"gt","field":"id","value":5}]}]}])"),
            (V{1, 6, 9}));
  // Autotask's refusals, in its shape.
  const auto unknown = query("Tickets", {{"Filter", json::parse(R"([{"op":"eq","field":"colour","value":1}])")}});
  EXPECT_EQ(unknown.status, 500u);
  EXPECT_EQ(unknown.json(), json({{"errors", {"Unable to find colour in the Ticket Entity."}}}));
  EXPECT_EQ(query("Tickets", {{"Filter", json::array()}}).status, 500u);
  EXPECT_EQ(query("Tickets", json::object()).status, 500u);
  EXPECT_EQ(call("POST", "Tickets/query", "{not json").status, 400u);
  EXPECT_EQ(query("Tickets", {{"Filter", kEverything}}).json()["items"].size(), 9u);
  EXPECT_EQ(query("Gadgets", {{"Filter", kEverything}}).status, 404u);
  // The GET form carries the same JSON in ?search=.
  const auto get =
      call("GET", "Tickets/query?search=" + core::url_encode(R"({"filter":[{"op":"eq","field":"status","value":5}]})"));
  ASSERT_EQ(get.status, 200u) << get.body;
  EXPECT_EQ(ids_of(get.json()), (V{3, 6, 9}));
}

TEST_F(AutotaskFakeTest, PagesByNextPageUrlStayStableWhileRowsChange) {
  add_tickets(12);
  const auto first = query("Tickets", {{"MaxRecords", 5}, {"Filter", kEverything}});
  ASSERT_EQ(first.status, 200u) << first.body;
  const auto page1 = first.json();
  EXPECT_EQ(ids_of(page1), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(page1["pageDetails"]["count"], 5);
  EXPECT_EQ(page1["pageDetails"]["requestCount"], 5);
  EXPECT_TRUE(page1["pageDetails"]["prevPageUrl"].is_null());
  ASSERT_TRUE(page1["pageDetails"]["nextPageUrl"].is_string());

  // Meanwhile a ticket is created and one not yet read is deleted.
  const auto added = fakes.autotask().add("Tickets", {{"title", "late arrival"}, {"status", 1}, {"companyID", 174}});
  EXPECT_EQ(added["id"], 13);
  ASSERT_TRUE(fakes.autotask().remove("Tickets", 7));

  const auto second = http(fakes.port(), "GET", target_of(page1["pageDetails"]["nextPageUrl"]), {}, credentials());
  ASSERT_EQ(second.status, 200u) << second.body;
  const auto page2 = second.json();
  EXPECT_EQ(ids_of(page2), (std::vector<std::int64_t>{6, 8, 9, 10, 11}));
  ASSERT_TRUE(page2["pageDetails"]["prevPageUrl"].is_string());

  // POST on a page URL works too (its body is not needed: the URL carries the query).
  const auto third = http(fakes.port(), "POST", target_of(page2["pageDetails"]["nextPageUrl"]), {}, credentials());
  ASSERT_EQ(third.status, 200u) << third.body;
  EXPECT_EQ(ids_of(third.json()), (std::vector<std::int64_t>{12, 13}));
  EXPECT_TRUE(third.json()["pageDetails"]["nextPageUrl"].is_null());
  EXPECT_EQ(third.json()["pageDetails"]["count"], 2);

  const auto back = http(fakes.port(), "GET", target_of(page2["pageDetails"]["prevPageUrl"]), {}, credentials());
  EXPECT_EQ(ids_of(back.json()), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

TEST_F(AutotaskFakeTest, MaxRecordsIsOneToFiveHundred) {
  add_tickets(3);
  const auto all = query("Tickets", {{"Filter", kEverything}});
  EXPECT_EQ(all.json()["pageDetails"]["requestCount"], 500);
  EXPECT_TRUE(all.json()["pageDetails"]["nextPageUrl"].is_null());
  for (const int bad : {0, 501}) {
    const auto refused = query("Tickets", {{"MaxRecords", bad}, {"Filter", kEverything}});
    EXPECT_EQ(refused.status, 500u) << bad;
    EXPECT_EQ(refused.json()["errors"][0], "MaxRecords must be between 1 and 500.");
  }
  EXPECT_EQ(query("Tickets", {{"maxRecords", 500}, {"filter", kEverything}}).status, 200u);
}

TEST_F(AutotaskFakeTest, AClientFollowsNextPageUrlVerbatim) {
  fakes.autotask().seed({.seed = 5, .companies = 10, .contacts = 30, .tickets = 730, .time_entries = 50});
  core::testing::IoThreads io(1);
  const std::string zone_url = "http://" + host() + kRest + "ZoneInformation?user=api%40msp.example";
  auto walk = [&]() -> boost::asio::awaitable<std::vector<std::int64_t>> {
    const auto executor = co_await boost::asio::this_coro::executor;
    const core::http::Client client(executor);
    const core::http::HeaderList headers{
        {"ApiIntegrationCode", "sandbox-integration"}, {"UserName", "api@msp.example"}, {"Secret", "sandbox-secret"}};
    const auto zone = co_await client.get(zone_url);
    const std::string base = zone.json()["url"];
    const json search = {{"MaxRecords", 200}, {"Filter", kEverything}};
    std::string url = base + "V1.0/Tickets/query";
    auto page = co_await client.post_json(url, search, headers);
    std::vector<std::int64_t> ids;
    for (;;) {
      const auto body = page.json();
      for (const auto& item : body["items"]) ids.push_back(item["id"].get<std::int64_t>());
      if (body["pageDetails"]["nextPageUrl"].is_null()) break;
      url = body["pageDetails"]["nextPageUrl"].get<std::string>();
      page = co_await client.get(url, headers);
    }
    co_return ids;
  };
  const auto ids = io.run(walk());
  EXPECT_EQ(ids.size(), 730u);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(std::set<std::int64_t>(ids.begin(), ids.end()).size(), 730u);
}

TEST_F(AutotaskFakeTest, IncludeFieldsLimitsEachItem) {
  add_tickets(2);
  const auto page = query("Tickets", {{"IncludeFields", {"Title", "status"}}, {"Filter", kEverything}});
  ASSERT_EQ(page.status, 200u) << page.body;
  EXPECT_EQ(page.json()["items"][0], json({{"id", 1}, {"title", "ticket 1"}, {"status", 1}}));
  const auto full = query("Tickets", {{"Filter", kEverything}}).json()["items"][0];
  EXPECT_TRUE(full.contains("lastActivityDate"));
  EXPECT_TRUE(full["completedDate"].is_null());
  EXPECT_EQ(full["userDefinedFields"], json::array());
  const auto unknown = query("Tickets", {{"IncludeFields", {"colour"}}, {"Filter", kEverything}});
  EXPECT_EQ(unknown.status, 500u);
  EXPECT_EQ(unknown.json()["errors"][0], "Unable to find colour in the Ticket Entity.");
}

TEST_F(AutotaskFakeTest, CountsWhatAQueryWouldReturn) {
  add_tickets(9);
  const json complete = {{"filter", json::parse(R"([{"op":"eq","field":"status","value":5}])")}};
  const auto counted = call("POST", "Tickets/query/count", complete.dump());
  ASSERT_EQ(counted.status, 200u) << counted.body;
  EXPECT_EQ(counted.json(), json({{"queryCount", 3}}));
  EXPECT_EQ(call("GET", "Tickets/query/count?search=" + core::url_encode(complete.dump())).json()["queryCount"], 3);
  EXPECT_EQ(call("POST", "Tickets/query/count", R"({"filter":[{"op":"eq","field":"nope","value":1}]})").status, 500u);
}

TEST_F(AutotaskFakeTest, GetsOneRowByIdOrNull) {
  add_tickets(1);
  const auto found = call("GET", "Tickets/1");
  ASSERT_EQ(found.status, 200u) << found.body;
  EXPECT_EQ(found.json()["item"]["title"], "ticket 1");
  EXPECT_EQ(found.json()["item"]["status"], 1);
  const auto missing = call("GET", "Tickets/424242");
  EXPECT_EQ(missing.status, 200u);  // Autotask answers a missing id with a null item, not a 404
  EXPECT_EQ(missing.json(), json({{"item", nullptr}}));
  EXPECT_EQ(call("GET", "tickets/1").json()["item"]["id"], 1);  // URLs are case-insensitive
  EXPECT_EQ(call("GET", "Gadgets/1").status, 404u);
  EXPECT_EQ(call("GET", "Tickets/abc").status, 404u);
}

TEST_F(AutotaskFakeTest, FieldInformationCarriesThePicklists) {
  const auto info = call("GET", "Tickets/entityInformation/fields");
  ASSERT_EQ(info.status, 200u) << info.body;
  const auto body = info.json();  // named: a range-for over part of a temporary dangles
  std::map<std::string, json> fields;
  for (const auto& f : body["fields"]) fields[f["name"].get<std::string>()] = f;
  ASSERT_TRUE(fields.contains("status"));
  EXPECT_EQ(fields["status"]["isPickList"], true);
  EXPECT_EQ(fields["status"]["dataType"], "integer");
  std::map<std::string, std::string> status;
  for (const auto& v : fields["status"]["picklistValues"]) {
    status[v["value"].get<std::string>()] = v["label"].get<std::string>();
    EXPECT_TRUE(v.contains("isActive") && v.contains("sortOrder") && v.contains("isDefaultValue"));
  }
  EXPECT_EQ(status["1"], "New");
  EXPECT_EQ(status["5"], "Complete");
  EXPECT_EQ(status["7"], "Waiting Customer");
  EXPECT_EQ(status["8"], "In Process");
  EXPECT_GE(status.size(), 6u);
  for (const char* name : {"priority", "queueID", "issueType", "subIssueType", "source"})
    EXPECT_FALSE(fields[name]["picklistValues"].empty()) << name;
  EXPECT_EQ(fields["subIssueType"]["picklistParentValueField"], "issueType");
  for (const auto& v : fields["subIssueType"]["picklistValues"])
    EXPECT_FALSE(v["parentValue"].get<std::string>().empty());
  EXPECT_EQ(fields["createDate"]["dataType"], "dateTime");
  EXPECT_TRUE(fields["title"]["picklistValues"].is_null());

  const auto companies = call("GET", "Companies/entityInformation/fields").json();
  std::set<std::string> picklists;
  for (const auto& f : companies["fields"])
    if (f["isPickList"] == true) picklists.insert(f["name"].get<std::string>());
  EXPECT_TRUE(picklists.contains("classification"));
  EXPECT_TRUE(picklists.contains("companyType"));
}

TEST_F(AutotaskFakeTest, AFourthConcurrentCallToOneEndpointIsRefused) {
  add_tickets(2);
  fakes.autotask().set_faults({.latency = std::chrono::milliseconds(1500), .entity = "Tickets"});
  std::vector<std::future<HttpResponse>> slow;
  for (int i = 0; i < 3; ++i)
    slow.push_back(std::async(std::launch::async, [this] { return query("Tickets", {{"Filter", kEverything}}); }));
  ASSERT_TRUE(
      core::testing::eventually([&] { return fakes.autotask().stats()["entities"]["Tickets"]["in_flight"] == 3; }));
  const auto fourth = query("Tickets", {{"Filter", kEverything}});
  EXPECT_EQ(fourth.status, 429u);
  EXPECT_NE(fourth.json()["errors"][0].get<std::string>().find("thread threshold of 3 threads"), std::string::npos);
  // Another endpoint has threads of its own.
  EXPECT_EQ(query("Companies", {{"Filter", kEverything}}).status, 200u);
  for (auto& f : slow) EXPECT_EQ(f.get().status, 200u);
  const auto stats = fakes.autotask().stats();
  EXPECT_EQ(stats["entities"]["Tickets"]["most_in_flight"], 3);
  EXPECT_EQ(stats["entities"]["Tickets"]["refused"], 1);
  EXPECT_EQ(stats["entities"]["Tickets"]["requests"], 4);
  EXPECT_EQ(stats["entities"]["Companies"]["requests"], 1);
  EXPECT_EQ(stats["refused_threads"], 1);
}

TEST_F(AutotaskFakeTest, FaultSwitchesThrottleAndFail) {
  add_tickets(1);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/autotask/faults", R"({"throttle":2,"retry_after":7})").status, 204u);
  for (int i = 0; i < 2; ++i) {
    const auto throttled = query("Tickets", {{"Filter", kEverything}});
    EXPECT_EQ(throttled.status, 429u);
    EXPECT_EQ(throttled.header("retry-after"), "7");
    EXPECT_TRUE(throttled.json()["errors"].is_array());
  }
  EXPECT_EQ(query("Tickets", {{"Filter", kEverything}}).status, 200u);

  ASSERT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/autotask/faults", R"({"server_errors":1,"status":500,"entity":"Companies"})")
          .status,
      204u);
  EXPECT_EQ(query("Tickets", {{"Filter", kEverything}}).status, 200u);  // not the endpoint named
  const auto failed = query("Companies", {{"Filter", kEverything}});
  EXPECT_EQ(failed.status, 500u);
  EXPECT_TRUE(failed.json()["errors"][0].is_string());
  EXPECT_EQ(query("Companies", {{"Filter", kEverything}}).status, 200u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/autotask/faults", R"({"server_errors":1,"status":404})").status, 400u);
}

TEST(AutotaskFakeLimits, TheHourlyThresholdRefusesAndIsReported) {
  sandbox::InProcess fakes({}, {}, sandbox::AutotaskFakeOptions{.hourly_limit = 4, .usage_latency = false});
  const std::map<std::string, std::string> headers{
      {"ApiIntegrationCode", "sandbox-integration"}, {"UserName", "api@msp.example"}, {"Secret", "sandbox-secret"}};
  const auto threshold = http(fakes.port(), "GET", std::string(kRest) + "ThresholdInformation", {}, headers);
  ASSERT_EQ(threshold.status, 200u) << threshold.body;
  EXPECT_EQ(
      threshold.json(),
      json({{"externalRequestThreshold", 4}, {"requestThresholdTimeframe", 60}, {"currentTimeframeRequestCount", 1}}));
  const std::string body = json({{"Filter", kEverything}}).dump();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(http(fakes.port(), "POST", std::string(kRest) + "Tickets/query", body, headers).status, 200u);
  const auto over = http(fakes.port(), "POST", std::string(kRest) + "Tickets/query", body, headers);
  EXPECT_EQ(over.status, 429u);
  EXPECT_TRUE(over.json()["errors"].is_array());
  const auto stats = http(fakes.port(), "GET", "/_sandbox/autotask/stats").json();
  EXPECT_EQ(stats["requests"], 5);
  EXPECT_EQ(stats["requests_this_hour"], 4);
  EXPECT_EQ(stats["refused_hourly"], 1);
}

TEST(AutotaskFakeSeed, TheSameSeedGivesTheSameMsp) {
  const auto now = core::parse_rfc3339("2026-05-04T10:00:00Z").value();
  sandbox::autotask::SeedCounts counts{.seed = 11, .tickets = 400, .time_entries = 200};
  EXPECT_EQ(sandbox::autotask::seed_rows(counts, now), sandbox::autotask::seed_rows(counts, now));
  auto other = counts;
  other.seed = 12;
  EXPECT_NE(sandbox::autotask::seed_rows(counts, now)["Tickets"], sandbox::autotask::seed_rows(other, now)["Tickets"]);
}

TEST_F(AutotaskFakeTest, SeedsABelievableMsp) {
  const auto seeded = http(fakes.port(), "POST", "/_sandbox/autotask/seed", R"({"seed":3})");
  ASSERT_EQ(seeded.status, 201u) << seeded.body;
  EXPECT_EQ(seeded.json(), json({{"Tickets", 5000},
                                 {"Companies", 40},
                                 {"Contacts", 300},
                                 {"Resources", 15},
                                 {"TimeEntries", 3000},
                                 {"Projects", 20},
                                 {"Tasks", 100},
                                 {"Contracts", 40},
                                 {"ConfigurationItems", 200},
                                 {"TagGroups", 4},
                                 {"Tags", 16},
                                 {"TicketTagAssociations", 600},
                                 {"DeletedTicketLogs", 0}}));
  const auto now = core::now();
  const auto at = [](const json& v) { return core::parse_rfc3339(v.get<std::string>()).value(); };
  std::map<int, int> statuses, priorities;
  std::set<std::int64_t> company_ids;
  for (const auto& c : fakes.autotask().rows("Companies")) company_ids.insert(c["id"].get<std::int64_t>());
  EXPECT_TRUE(company_ids.contains(0));  // the MSP itself
  for (const auto& t : fakes.autotask().rows("Tickets")) {
    ++statuses[t["status"].get<int>()];
    ++priorities[t["priority"].get<int>()];
    EXPECT_TRUE(company_ids.contains(t["companyID"].get<std::int64_t>()));
    const auto created = at(t["createDate"]);
    EXPECT_GT(created, now - std::chrono::days(121));
    EXPECT_LE(at(t["lastActivityDate"]), now);
    EXPECT_GE(at(t["lastActivityDate"]), created);
    if (!t["firstResponseDateTime"].is_null()) EXPECT_GE(at(t["firstResponseDateTime"]), created);
    if (t["status"] == 5) {
      ASSERT_FALSE(t["completedDate"].is_null());
      EXPECT_GE(at(t["completedDate"]), at(t["firstResponseDateTime"]));
      EXPECT_LE(at(t["completedDate"]), at(t["lastActivityDate"]));
      EXPECT_EQ(t["completedDate"], t["resolvedDateTime"]);
    } else {
      EXPECT_TRUE(t["completedDate"].is_null());
    }
  }
  EXPECT_GT(statuses[5], 4000);
  EXPECT_GT(statuses[1] + statuses[7] + statuses[8], 100);
  for (const int s : {7, 8, 12}) EXPECT_GT(statuses[s], 0) << s;
  for (const int p : {1, 2, 3, 4}) EXPECT_GT(priorities[p], 0) << p;
  int inactive = 0, classified = 0;
  for (const auto& c : fakes.autotask().rows("Companies")) {
    inactive += c["isActive"] == false ? 1 : 0;
    classified += c["classification"].is_null() ? 0 : 1;
  }
  EXPECT_GT(inactive, 0);
  EXPECT_GT(classified, 25);
}

TEST_F(AutotaskFakeTest, AChangeBumpsLastActivityAndADeletionDisappears) {
  fakes.autotask().seed({.tickets = 30, .time_entries = 10});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the change below lands on a later millisecond
  const std::string since = sandbox::autotask::format_time(core::now());
  const auto ticket = fakes.autotask().rows("Tickets")[10]["id"].get<std::int64_t>();
  const auto gone = fakes.autotask().rows("Tickets")[20]["id"].get<std::int64_t>();
  const auto changed = http(fakes.port(), "PATCH", "/_sandbox/autotask/entities/Tickets/" + std::to_string(ticket),
                            R"({"status":5,"title":"Fixed"})");
  ASSERT_EQ(changed.status, 200u) << changed.body;
  EXPECT_GE(changed.json()["item"]["lastActivityDate"].get<std::string>(), since);
  EXPECT_EQ(http(fakes.port(), "DELETE", "/_sandbox/autotask/entities/Tickets/" + std::to_string(gone)).status, 204u);

  const auto recent =
      query("Tickets", {{"Filter", {{{"op", "gte"}, {"field", "lastActivityDate"}, {"value", since}}}}});
  ASSERT_EQ(recent.status, 200u) << recent.body;
  EXPECT_EQ(ids_of(recent.json()), std::vector<std::int64_t>{ticket});
  EXPECT_EQ(recent.json()["items"][0]["title"], "Fixed");
  EXPECT_EQ(call("GET", "Tickets/" + std::to_string(gone)).json()["item"], nullptr);
  EXPECT_EQ(call("POST", "Tickets/query/count", json({{"Filter", kEverything}}).dump()).json()["queryCount"], 29);
  EXPECT_EQ(http(fakes.port(), "PATCH", "/_sandbox/autotask/entities/Tickets/1", R"({"status":5})").status, 404u);
  EXPECT_EQ(http(fakes.port(), "POST", "/_sandbox/autotask/entities/Tickets", R"({"colour":"red"})").status, 400u);
}

TEST_F(AutotaskFakeTest, WebhookCalloutsAreSignedOverTheBytesSent) {
  Receiver receiver(200);
  const auto ticket =
      fakes.autotask().add("Tickets", {{"title", "Printer & scanner"}, {"status", 8}, {"companyID", 174}});
  const json request = {
      {"url", receiver.url()},   {"secret", "s3cret+key"},
      {"entity_type", "Ticket"}, {"id", ticket["id"]},
      {"action", "Update"},      {"fields", {{"Status", 5}, {"Title", "Café <b> & co"}, {"IsBillable", true}}}};
  const auto sent = http(fakes.port(), "POST", "/_sandbox/autotask/webhooks/send", request.dump());
  ASSERT_EQ(sent.status, 200u) << sent.body;
  EXPECT_EQ(sent.json()["status"], 200);
  const auto got = receiver.received();
  ASSERT_EQ(got.size(), 1u);
  const auto& [signature, body] = got[0];
  EXPECT_EQ(body, sent.json()["sent"].get<std::string>());
  EXPECT_EQ(signature, "sha1=" + hmac_sha1_base64("s3cret+key", body));
  EXPECT_EQ(signature, sent.json()["signature"].get<std::string>());
  // .NET's escaping, as Autotask sends it: a receiver must verify the raw bytes.
  EXPECT_NE(body.find(R"(Caf\u00E9 \u003Cb\u003E \u0026 co)"), std::string::npos) << body;
  const auto payload = json::parse(body);
  EXPECT_EQ(payload["Action"], "Update");
  EXPECT_EQ(payload["EntityType"], "Ticket");
  EXPECT_EQ(payload["Id"], ticket["id"]);
  EXPECT_EQ(payload["Fields"], json({{"Status", "5"}, {"Title", "Café <b> & co"}, {"IsBillable", "True"}}));
  EXPECT_EQ(payload["Guid"].get<std::string>(), fakes.autotask().options().webhook_guid);
  EXPECT_TRUE(core::parse_rfc3339(payload["EventTime"].get<std::string>()).has_value());
  EXPECT_EQ(payload["PersonID"].is_number_integer(), true);
  EXPECT_EQ(body.rfind(R"({"Action":"Update","Guid":)", 0), 0u);  // Autotask's member order

  // Without fields: the row's, as strings; the same Guid; the next sequence number.
  const json again = {{"url", receiver.url()}, {"secret", "k"}, {"entity_type", "Ticket"}, {"id", ticket["id"]}};
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/autotask/webhooks/send", again.dump()).status, 200u);
  const auto second = json::parse(receiver.received().at(1).second);
  EXPECT_EQ(second["Guid"], payload["Guid"]);
  EXPECT_EQ(second["SequenceNumber"], payload["SequenceNumber"].get<int>() + 1);
  EXPECT_EQ(second["Fields"]["Title"], "Printer & scanner");
  EXPECT_EQ(second["Fields"]["Status"], "8");

  // The receiver's answer is reported as it came.
  Receiver failing(502);
  json to_failing = again;
  to_failing["url"] = failing.url();
  const auto refused = http(fakes.port(), "POST", "/_sandbox/autotask/webhooks/send", to_failing.dump());
  EXPECT_EQ(refused.json()["status"], 502);
  EXPECT_EQ(fakes.autotask().stats()["webhooks_sent"], 3);
}

// How an incremental sync learns of deletions: a deleted ticket leaves a DeletedTicketLogs row.
TEST_F(AutotaskFakeTest, ADeletedTicketLeavesADeletedTicketLog) {
  add_tickets(2);
  ASSERT_TRUE(fakes.autotask().remove("Tickets", 1));
  EXPECT_FALSE(fakes.autotask().remove("Tickets", 1));
  const auto page = query(
      "DeletedTicketLogs",
      {{"Filter", json::array({{{"op", "gte"}, {"field", "deletedDateTime"}, {"value", "2000-01-01T00:00:00Z"}}})}});
  ASSERT_EQ(page.status, 200u) << page.body;
  const json items = page.json()["items"];
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0]["ticketID"], 1);
  EXPECT_EQ(items[0]["ticketTitle"], "ticket 1");
  EXPECT_TRUE(core::parse_rfc3339(items[0]["deletedDateTime"].get<std::string>()));
  EXPECT_EQ(query("Tickets", {{"Filter", kEverything}}).json()["items"].size(), 1u);
}
