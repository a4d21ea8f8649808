#include "ops_console/mfa/duo_users.hpp"

#include <gtest/gtest.h>

namespace {

using ops_console::mfa::parse_users_page;

constexpr const char* kPage = R"({"stat": "OK", "response": [
  {"user_id": "DU1", "username": "ann", "status": "bypass", "is_enrolled": true, "last_login": 1700000000,
   "phones": [{"phone_id": "DP1", "number": "+1"}], "groups": [], "notes": "contractor"},
  {"user_id": "DU2", "username": "bob", "status": "active", "email": "bob@x.example"},
  {"user_id": "DU3", "username": "cy", "status": "disabled", "email": null, "tokens": [{"serial": "9"}]}],
  "metadata": {"next_offset": 300, "prev_offset": 0, "total_objects": 1234}})";

TEST(DuoUsersPage, KeepsTheUsersOfTheStatusesAskedWithTheirTopLevelFields) {
  const auto page = parse_users_page(kPage, {"bypass", "disabled"});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->read, 3);
  ASSERT_EQ(page->users.size(), 2u);
  EXPECT_EQ(page->users[0]["username"], "ann");
  EXPECT_EQ(page->users[0]["last_login"], 1700000000);
  EXPECT_EQ(page->users[0]["notes"], "contractor");
  EXPECT_FALSE(page->users[0].contains("phones"));  // nested parts are skipped
  EXPECT_EQ(page->users[1]["username"], "cy");
  EXPECT_TRUE(page->users[1]["email"].is_null());
  EXPECT_EQ(page->next_offset, 300);
  EXPECT_EQ(parse_users_page(kPage, {})->users.size(), 3u);
}

TEST(DuoUsersPage, TheLastPageHasNoNextOffsetAndAFailureIsNoPage) {
  const auto last = parse_users_page(R"({"stat":"OK","response":[],"metadata":{"total_objects":0}})", {"bypass"});
  ASSERT_TRUE(last);
  EXPECT_FALSE(last->next_offset);
  EXPECT_EQ(last->read, 0);
  EXPECT_FALSE(parse_users_page(R"({"stat":"FAIL","code":40103,"message":"Invalid signature"})", {}));
  EXPECT_FALSE(parse_users_page(R"({"stat":"OK"})", {}));
  EXPECT_FALSE(parse_users_page(R"({"stat":"OK","response":[{"status":"bypass")", {}));
  EXPECT_FALSE(parse_users_page("", {}));
}

}  // namespace
