// /api/v1/purge-rules (spec: "Purge rules" and the state table; issue 3).
#include "mail_triage/tests/api_test.hpp"

#include "core/util/strings.hpp"

using namespace core::testing;
using nlohmann::json;

namespace {

using Strings = std::vector<std::string>;

struct PurgeRulesTest : mail_triage::testing::ApiTest {
  static json rule(const std::string& address, int days = 30) {
    return {{"email_address", address},
            {"display_name", "Noise from " + address},
            {"older_than_days", days},
            {"notes", "too much"}};
  }
  std::string create(const std::string& address, int days = 30) {
    const auto res = call("POST", "/api/v1/purge-rules", rule(address, days));
    EXPECT_EQ(res.status, 201u) << res.body;
    return id_of(res);
  }
  std::string count_rows() { return sql("SELECT count(*) FROM purge_rules"); }
};

}  // namespace

TEST_F(PurgeRulesTest, PostCreatesARuleStoredLowercased) {
  const auto res = call("POST", "/api/v1/purge-rules", rule("News@Shop.Example", 90));
  ASSERT_EQ(res.status, 201u) << res.body;
  const auto r = res.json();
  EXPECT_EQ(r["email_address"], "news@shop.example");
  EXPECT_EQ(r["display_name"], "Noise from News@Shop.Example");
  EXPECT_EQ(r["older_than_days"], 90);
  EXPECT_EQ(r["notes"], "too much");
  EXPECT_EQ(r["is_active"], true);
  EXPECT_TRUE(core::is_uuid(r["id"].get<std::string>()));

  const auto minimal =
      call("POST", "/api/v1/purge-rules", json{{"email_address", "a@x.example"}, {"older_than_days", 1}});
  ASSERT_EQ(minimal.status, 201u) << minimal.body;
  EXPECT_EQ(minimal.json()["display_name"], "");
  EXPECT_TRUE(minimal.json()["notes"].is_null());
}

TEST_F(PurgeRulesTest, GetListsActiveAndInactiveRules) {
  const auto b = create("b@x.example");
  create("a@x.example");
  ASSERT_EQ(call("DELETE", "/api/v1/purge-rules/" + b).status, 200u);
  const auto items = call("GET", "/api/v1/purge-rules").json()["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["email_address"], "a@x.example");
  EXPECT_EQ(items[0]["is_active"], true);
  EXPECT_EQ(items[1]["email_address"], "b@x.example");
  EXPECT_EQ(items[1]["is_active"], false);
}

TEST_F(PurgeRulesTest, EmptyListIsAnEmptyItemsArray) {
  const auto res = call("GET", "/api/v1/purge-rules");
  EXPECT_EQ(res.status, 200u);
  EXPECT_EQ(res.json(), (json{{"items", json::array()}}));
}

TEST_F(PurgeRulesTest, PostForAnInactiveRuleReactivatesAndUpdatesIt) {
  const auto id = create("a@x.example", 30);
  const auto deleted = call("DELETE", "/api/v1/purge-rules/" + id);
  ASSERT_EQ(deleted.status, 200u);
  EXPECT_EQ(deleted.json()["is_active"], false);  // returns the deactivated rule
  EXPECT_EQ(count_rows(), "1");                   // soft delete: the row remains

  auto again = rule("A@X.example", 7);
  again["notes"] = nullptr;
  const auto res = call("POST", "/api/v1/purge-rules", again);
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["id"], id);
  EXPECT_EQ(res.json()["is_active"], true);
  EXPECT_EQ(res.json()["older_than_days"], 7);
  EXPECT_TRUE(res.json()["notes"].is_null());
  EXPECT_EQ(count_rows(), "1");
}

TEST_F(PurgeRulesTest, PostForAnActiveRuleUpdatesItWith200) {
  const auto id = create("a@x.example", 30);
  const auto res = call("POST", "/api/v1/purge-rules", rule("a@x.example", 60));
  EXPECT_EQ(res.status, 200u);
  EXPECT_EQ(res.json()["id"], id);
  EXPECT_EQ(res.json()["older_than_days"], 60);
}

TEST_F(PurgeRulesTest, PutUpdatesOnlyTheSuppliedFields) {
  const auto id = create("a@x.example", 30);
  const auto res = call("PUT", "/api/v1/purge-rules/" + id, json{{"older_than_days", 365}});
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto r = res.json();
  EXPECT_EQ(r["older_than_days"], 365);
  EXPECT_EQ(r["email_address"], "a@x.example");
  EXPECT_EQ(r["display_name"], "Noise from a@x.example");
  EXPECT_EQ(r["notes"], "too much");
  EXPECT_EQ(r["is_active"], true);

  const auto cleared = call("PUT", "/api/v1/purge-rules/" + id, json{{"notes", nullptr}, {"display_name", "X"}});
  EXPECT_TRUE(cleared.json()["notes"].is_null());  // notes is nullable: null clears it
  EXPECT_EQ(cleared.json()["display_name"], "X");
  EXPECT_EQ(cleared.json()["older_than_days"], 365);

  const auto unchanged = call("PUT", "/api/v1/purge-rules/" + id, json::object());
  EXPECT_EQ(unchanged.status, 200u);
  EXPECT_EQ(unchanged.json()["display_name"], "X");
}

TEST_F(PurgeRulesTest, PutWithIsActiveFalseDeactivatesAndUpdatesTheOtherFields) {
  const auto id = create("a@x.example", 30);
  const auto res = call("PUT", "/api/v1/purge-rules/" + id, json{{"is_active", false}, {"older_than_days", 10}});
  ASSERT_EQ(res.status, 200u);
  EXPECT_EQ(res.json()["is_active"], false);
  EXPECT_EQ(res.json()["older_than_days"], 10);
  EXPECT_EQ(sql("SELECT is_active FROM purge_rules"), "f");

  const auto back = call("PUT", "/api/v1/purge-rules/" + id, json{{"is_active", true}});
  EXPECT_EQ(back.json()["is_active"], true);
}

TEST_F(PurgeRulesTest, PutToAnotherRulesAddressIs409AndChangesNothing) {
  const auto a = create("a@x.example");
  create("b@x.example");
  const auto res =
      call("PUT", "/api/v1/purge-rules/" + a, json{{"email_address", "B@X.example"}, {"older_than_days", 5}});
  EXPECT_EQ(res.status, 409u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_EQ(sql("SELECT email_address || ' ' || older_than_days FROM purge_rules WHERE id = '" + a + "'"),
            "a@x.example 30");
}

TEST_F(PurgeRulesTest, OlderThanDaysIsAnIntegerFrom1To3650) {
  EXPECT_EQ(call("POST", "/api/v1/purge-rules", rule("a@x.example", 1)).status, 201u);
  EXPECT_EQ(call("POST", "/api/v1/purge-rules", rule("b@x.example", 3650)).status, 201u);
  for (const json& days : {json(0), json(3651), json(-5), json(1.5), json("30"), json(true)}) {
    auto body = rule("c@x.example");
    body["older_than_days"] = days;
    const auto res = call("POST", "/api/v1/purge-rules", body);
    EXPECT_EQ(res.status, 400u) << days;
    EXPECT_EQ(error_fields(res), Strings{"older_than_days"}) << days;
  }
  const auto id = create("d@x.example");
  const auto put = call("PUT", "/api/v1/purge-rules/" + id, json{{"older_than_days", 3651}});
  EXPECT_EQ(put.status, 400u);
  EXPECT_EQ(error_fields(put), Strings{"older_than_days"});
  EXPECT_EQ(count_rows(), "3");
}

TEST_F(PurgeRulesTest, InvalidBodiesAre400NamingEveryFieldAndChangeNothing) {
  const auto res = call("POST", "/api/v1/purge-rules", json{{"email_address", "nope"}, {"notes", 5}});
  ASSERT_EQ(res.status, 400u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_EQ(error_fields(res), (Strings{"email_address", "older_than_days", "notes"}));
  EXPECT_EQ(http(svc.port(), "POST", "/api/v1/purge-rules", "[1]", kAuth).status, 400u);

  const auto id = create("a@x.example");
  const auto put = call("PUT", "/api/v1/purge-rules/" + id,
                        json{{"email_address", nullptr}, {"is_active", "no"}, {"display_name", nullptr}});
  EXPECT_EQ(put.status, 400u);
  EXPECT_EQ(error_fields(put), (Strings{"email_address", "display_name", "is_active"}));
  EXPECT_EQ(sql("SELECT is_active FROM purge_rules"), "t");
  EXPECT_EQ(count_rows(), "1");
}

TEST_F(PurgeRulesTest, UnknownIdsAre404AndMalformedOnes400) {
  const std::string unknown = "/api/v1/purge-rules/123e4567-e89b-12d3-a456-426614174000";
  EXPECT_EQ(call("PUT", unknown, json{{"older_than_days", 5}}).status, 404u);
  EXPECT_EQ(call("DELETE", unknown).status, 404u);
  const auto bad = call("DELETE", "/api/v1/purge-rules/not-a-uuid");
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(error_fields(bad), Strings{"rule_id"});
}

TEST_F(PurgeRulesTest, RoutesNeedTheBearerKey) {
  EXPECT_EQ(http(svc.port(), "GET", "/api/v1/purge-rules").status, 401u);
  EXPECT_EQ(http(svc.port(), "POST", "/api/v1/purge-rules", rule("a@x.example").dump()).status, 401u);
  EXPECT_EQ(count_rows(), "0");
}
