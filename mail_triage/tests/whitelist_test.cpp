// /api/v1/whitelist (spec: "Whitelist" and the state table; issue 3).
#include "mail_triage/tests/api_test.hpp"

using namespace core::testing;
using nlohmann::json;

namespace {

using Strings = std::vector<std::string>;

struct WhitelistTest : mail_triage::testing::ApiTest {
  std::string create(json body) {
    const auto res = call("POST", "/api/v1/whitelist", body);
    EXPECT_EQ(res.status, 201u) << res.body;
    return id_of(res);
  }
  // Addresses or domains of the listed entries, in order.
  Strings listed(const std::string& target = "/api/v1/whitelist") {
    Strings out;
    const auto body = call("GET", target).json();
    for (const auto& e : body["items"])
      out.push_back(e["email_address"].is_null() ? "@" + e["domain"].get<std::string>()
                                                 : e["email_address"].get<std::string>());
    return out;
  }
  // An active entry whose expiry has passed (the API refuses to create one).
  void insert_expired(const std::string& address) {
    sql("INSERT INTO whitelist (email_address, expires_at) VALUES ('" + address + "', now() - interval '1 day')");
  }
  std::string count_rows() { return sql("SELECT count(*) FROM whitelist"); }
};

}  // namespace

TEST_F(WhitelistTest, PostCreatesAnEntryByAddressOrDomainOrBoth) {
  const auto res = call("POST", "/api/v1/whitelist",
                        json{{"email_address", "CEO@Customer.example"},
                             {"description", "our biggest customer"},
                             {"added_by", "jane"},
                             {"expires_at", "2099-12-31T23:59:59+01:00"}});
  ASSERT_EQ(res.status, 201u) << res.body;
  const auto e = res.json();
  EXPECT_EQ(e["email_address"], "ceo@customer.example");
  EXPECT_TRUE(e["domain"].is_null());
  EXPECT_EQ(e["description"], "our biggest customer");
  EXPECT_EQ(e["added_by"], "jane");
  EXPECT_EQ(e["expires_at"], "2099-12-31T22:59:59+00:00");  // stored as an instant, rendered in UTC
  EXPECT_EQ(e["is_active"], true);
  EXPECT_EQ(e["expired"], false);

  const auto domain = call("POST", "/api/v1/whitelist", json{{"domain", "Partner.Example"}});
  ASSERT_EQ(domain.status, 201u) << domain.body;
  EXPECT_EQ(domain.json()["domain"], "partner.example");
  EXPECT_TRUE(domain.json()["email_address"].is_null());
  EXPECT_TRUE(domain.json()["expires_at"].is_null());
  EXPECT_EQ(domain.json()["description"], "");

  EXPECT_EQ(call("POST", "/api/v1/whitelist", json{{"email_address", "a@b.example"}, {"domain", "b.example"}}).status,
            201u);
  EXPECT_EQ(count_rows(), "3");
}

TEST_F(WhitelistTest, PostWithNeitherAddressNorDomainIs400NamingBoth) {
  for (const json& body :
       {json::object(), json{{"email_address", nullptr}, {"domain", nullptr}}, json{{"description", "nobody"}}}) {
    const auto res = call("POST", "/api/v1/whitelist", body);
    EXPECT_EQ(res.status, 400u) << body;
    EXPECT_EQ(res.header("content-type"), "application/problem+json");
    EXPECT_EQ(error_fields(res), (Strings{"email_address", "domain"})) << body;
  }
  EXPECT_EQ(count_rows(), "0");
}

TEST_F(WhitelistTest, PostValidatesEveryField) {
  const auto res = call(
      "POST", "/api/v1/whitelist",
      json{{"email_address", "not an address"}, {"domain", "no_domain"}, {"added_by", 5}, {"expires_at", "next week"}});
  ASSERT_EQ(res.status, 400u);
  EXPECT_EQ(error_fields(res), (Strings{"email_address", "domain", "added_by", "expires_at"}));

  const auto past =
      call("POST", "/api/v1/whitelist", json{{"domain", "x.example"}, {"expires_at", "2020-01-01T00:00:00Z"}});
  EXPECT_EQ(past.status, 400u);
  EXPECT_EQ(error_fields(past), Strings{"expires_at"});
  const auto no_offset =
      call("POST", "/api/v1/whitelist", json{{"domain", "x.example"}, {"expires_at", "2099-01-01T00:00:00"}});
  EXPECT_EQ(error_fields(no_offset), Strings{"expires_at"});
  EXPECT_EQ(count_rows(), "0");
}

TEST_F(WhitelistTest, AnActiveDuplicateIs409CaseInsensitively) {
  create({{"email_address", "a@x.example"}});
  create({{"domain", "x.example"}});
  const auto dup = call("POST", "/api/v1/whitelist", json{{"email_address", "A@X.EXAMPLE"}, {"description", "again"}});
  EXPECT_EQ(dup.status, 409u);
  EXPECT_EQ(dup.header("content-type"), "application/problem+json");
  EXPECT_EQ(call("POST", "/api/v1/whitelist", json{{"domain", "X.example"}}).status, 409u);
  EXPECT_EQ(count_rows(), "2");
}

TEST_F(WhitelistTest, ADeactivatedOrExpiredEntryIsNoDuplicate) {
  const auto id = create({{"email_address", "a@x.example"}});
  ASSERT_EQ(call("DELETE", "/api/v1/whitelist/" + id).status, 200u);
  EXPECT_EQ(call("POST", "/api/v1/whitelist", json{{"email_address", "a@x.example"}}).status, 201u);

  insert_expired("old@x.example");
  EXPECT_EQ(call("POST", "/api/v1/whitelist", json{{"email_address", "old@x.example"}}).status, 201u);
  // The expired entry was retired; the new one is the only active entry for the address.
  EXPECT_EQ(sql("SELECT count(*) FROM whitelist WHERE email_address = 'old@x.example' AND is_active"), "1");
}

TEST_F(WhitelistTest, GetListsActiveUnexpiredEntriesAndExpiredOnesOnRequest) {
  create({{"email_address", "b@x.example"}});
  create({{"domain", "a.example"}, {"expires_at", "2099-01-01T00:00:00Z"}});
  const auto gone = create({{"email_address", "gone@x.example"}});
  call("DELETE", "/api/v1/whitelist/" + gone);
  insert_expired("old@x.example");

  EXPECT_EQ(listed(), (Strings{"@a.example", "b@x.example"}));
  EXPECT_EQ(listed("/api/v1/whitelist?include_expired=true"), (Strings{"@a.example", "b@x.example", "old@x.example"}));
  EXPECT_EQ(listed("/api/v1/whitelist?include_expired=false"), (Strings{"@a.example", "b@x.example"}));
  const auto items = call("GET", "/api/v1/whitelist?include_expired=true").json()["items"];
  EXPECT_EQ(items[2]["expired"], true);

  const auto bad = call("GET", "/api/v1/whitelist?include_expired=perhaps");
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(error_fields(bad), Strings{"include_expired"});
}

TEST_F(WhitelistTest, DeleteDeactivatesAndReturnsTheEntry) {
  const auto id = create({{"email_address", "a@x.example"}});
  const auto res = call("DELETE", "/api/v1/whitelist/" + id);
  ASSERT_EQ(res.status, 200u);
  EXPECT_EQ(res.json()["id"], id);
  EXPECT_EQ(res.json()["is_active"], false);
  EXPECT_EQ(listed(), Strings{});
  EXPECT_EQ(count_rows(), "1");                                       // the row remains
  EXPECT_EQ(call("DELETE", "/api/v1/whitelist/" + id).status, 200u);  // deactivating twice is harmless
}

TEST_F(WhitelistTest, UnknownIdsAre404AndMalformedOnes400) {
  EXPECT_EQ(call("DELETE", "/api/v1/whitelist/123e4567-e89b-12d3-a456-426614174000").status, 404u);
  const auto bad = call("DELETE", "/api/v1/whitelist/7");
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(error_fields(bad), Strings{"entry_id"});
}

TEST_F(WhitelistTest, RoutesNeedTheBearerKey) {
  EXPECT_EQ(http(svc.port(), "GET", "/api/v1/whitelist").status, 401u);
  EXPECT_EQ(http(svc.port(), "POST", "/api/v1/whitelist", R"({"domain":"x.example"})").status, 401u);
  EXPECT_EQ(count_rows(), "0");
}
