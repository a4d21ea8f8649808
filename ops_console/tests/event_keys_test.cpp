// Notify event keys (issue 7): admin-only CRUD with the spec's key rule, order, 409 and 404.
#include "ops_console/tests/console_fixture.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;
constexpr const char* kBase = "/api/admin/notify-event-keys";

struct EventKeysTest : ConsoleTest {
  std::string boss, tech;
  void SetUp() override {
    sql("DELETE FROM notify_event_keys");  // the migrations seed gitforge_push (0011): these tests start from none
    add_user("boss@msp.example", kPassword, true);
    add_user("tech@msp.example", kPassword);
    start();
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  std::vector<std::string> keys() {
    std::vector<std::string> out;
    const auto list = call("GET", kBase, nullptr, boss).json();
    for (const auto& k : list) out.push_back(k["key"]);
    return out;
  }
};

}  // namespace

TEST_F(EventKeysTest, OnlyAdministrators) {
  const auto before = database_work();
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", kBase}, {"POST", kBase}, {"PUT", std::string(kBase) + "/x"}, {"DELETE", std::string(kBase) + "/x"}})
    EXPECT_EQ(call(method, path, {{"key", "x"}}).status, 401u) << method;
  EXPECT_EQ(database_work(), before);
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", kBase}, {"POST", kBase}, {"PUT", std::string(kBase) + "/x"}, {"DELETE", std::string(kBase) + "/x"}})
    EXPECT_EQ(call(method, path, {{"key", "x"}}, tech).status, 403u) << method;
  EXPECT_EQ(sql("SELECT count(*) FROM notify_event_keys"), "0");
}

TEST_F(EventKeysTest, CreateListedBySortOrderThenKey) {
  const auto created =
      call("POST", kBase, {{"key", "ticket_created"}, {"description", "a new ticket"}, {"sort_order", 20}}, boss);
  ASSERT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(created.json()["key"], "ticket_created");
  EXPECT_EQ(created.json()["description"], "a new ticket");
  EXPECT_EQ(created.json()["sort_order"], 20);
  EXPECT_EQ(created.json()["is_active"], true);  // the default
  EXPECT_EQ(call("POST", kBase, {{"key", "Backup_Failed"}, {"sort_order", 10}}, boss).json()["key"], "backup_failed");
  EXPECT_EQ(call("POST", kBase, {{"key", "sla_breach"}, {"sort_order", 10}, {"is_active", false}}, boss).status, 201u);
  EXPECT_EQ(call("POST", kBase, {{"key", "a1"}}, boss).status, 201u);  // sort_order 0
  EXPECT_EQ(keys(), (std::vector<std::string>{"a1", "backup_failed", "sla_breach", "ticket_created"}));
}

TEST_F(EventKeysTest, KeysFollowTheRuleAndDuplicatesIgnoreCase) {
  ASSERT_EQ(call("POST", kBase, {{"key", "ticket_created"}}, boss).status, 201u);
  EXPECT_EQ(call("POST", kBase, {{"key", "ticket_created"}}, boss).status, 409u);
  EXPECT_EQ(call("POST", kBase, {{"key", "TICKET_Created"}}, boss).status, 409u);
  for (const json& bad : {json("1ticket"), json("_x"), json("ticket-created"), json("ticket created"), json("tïcket"),
                          json(""), json(std::string(129, 'k')), json(5), json(nullptr)}) {
    const auto res = call("POST", kBase, {{"key", bad}}, boss);
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_EQ(res.json()["errors"][0]["field"], "key") << bad;
  }
  EXPECT_EQ(call("POST", kBase, {{"key", "ok"}, {"sort_order", "first"}}, boss).json()["errors"][0]["field"],
            "sort_order");
  EXPECT_EQ(call("POST", kBase, {{"key", "ok"}, {"is_active", "yes"}}, boss).json()["errors"][0]["field"], "is_active");
  EXPECT_EQ(call("POST", kBase, {{"key", "ok"}, {"description", std::string(501, 'd')}}, boss).status, 400u);
  EXPECT_EQ(keys(), (std::vector<std::string>{"ticket_created"}));
}

TEST_F(EventKeysTest, PutKeepsOmittedFieldsAndDeleteIsHard) {
  ASSERT_EQ(call("POST", kBase, {{"key", "ticket_created"}, {"description", "new"}, {"sort_order", 5}}, boss).status,
            201u);
  const auto put = call("PUT", std::string(kBase) + "/ticket_created", {{"is_active", false}}, boss);
  ASSERT_EQ(put.status, 200u) << put.body;
  EXPECT_EQ(put.json()["is_active"], false);
  EXPECT_EQ(put.json()["description"], "new");  // kept
  EXPECT_EQ(put.json()["sort_order"], 5);       // kept
  const auto again =
      call("PUT", std::string(kBase) + "/Ticket_Created", {{"sort_order", 1}, {"description", "renamed"}}, boss);
  EXPECT_EQ(again.json()["sort_order"], 1);
  EXPECT_EQ(again.json()["description"], "renamed");
  EXPECT_EQ(again.json()["is_active"], false);  // kept
  EXPECT_EQ(call("PUT", std::string(kBase) + "/ticket_created", {{"sort_order", nullptr}}, boss).status, 400u);
  EXPECT_EQ(call("PUT", std::string(kBase) + "/missing_key", {{"sort_order", 1}}, boss).status, 404u);

  EXPECT_EQ(call("DELETE", std::string(kBase) + "/ticket_created", nullptr, boss).status, 204u);
  EXPECT_EQ(sql("SELECT count(*) FROM notify_event_keys"), "0");  // gone, not deactivated
  EXPECT_EQ(call("DELETE", std::string(kBase) + "/ticket_created", nullptr, boss).status, 404u);
}
