// The Graph fake speaks Graph's shapes: token errors, $filter/$select/$top, nextLink paging,
// InefficientFilter, ids that change on move without ImmutableId, 429 with Retry-After.
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/demo_mail.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

class GraphFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;
  const std::string mailbox = "inbox@msp.example";

  HttpResponse token(const std::string& secret = "sandbox-secret") {
    return http(fakes.port(), "POST", "/contoso-tenant/oauth2/v2.0/token",
                "client_id=sandbox-client&client_secret=" + core::url_encode(secret) +
                    "&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default&grant_type=client_credentials",
                {{"Content-Type", "application/x-www-form-urlencoded"}});
  }
  std::map<std::string, std::string> auth() {
    return {{"Authorization", "Bearer " + token().json()["access_token"].get<std::string>()},
            {"Prefer", "outlook.body-content-type=\"text\""}};
  }
  HttpResponse get(const std::string& target) { return http(fakes.port(), "GET", target, {}, auth()); }
  sandbox::FakeMessage message(std::string subject, std::string from, int hours_ago, bool read = false) {
    sandbox::FakeMessage m;
    m.subject = std::move(subject);
    m.from_address = std::move(from);
    m.body = "body of " + m.subject;
    m.received_at = core::now() - std::chrono::hours(hours_ago);
    m.is_read = read;
    return m;
  }
};

}  // namespace

TEST_F(GraphFakeTest, TokenEndpointChecksTheClientCredentials) {
  const auto ok = token();
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["token_type"], "Bearer");
  EXPECT_EQ(ok.json()["expires_in"], 3599);
  const auto bad = token("wrong");
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(bad.json()["error"], "invalid_client");
  EXPECT_EQ(bad.json()["error_codes"][0], 7000215);
  EXPECT_TRUE(bad.json().contains("trace_id"));
}

TEST_F(GraphFakeTest, ApiCallsNeedAValidToken) {
  fakes.graph().create_mailbox(mailbox);
  const auto none = http(fakes.port(), "GET", "/v1.0/users/" + mailbox + "/messages");
  EXPECT_EQ(none.status, 401u);
  EXPECT_EQ(none.json()["error"]["code"], "InvalidAuthenticationToken");
  const auto forged =
      http(fakes.port(), "GET", "/v1.0/users/" + mailbox + "/messages", {}, {{"Authorization", "Bearer forged"}});
  EXPECT_EQ(forged.status, 401u);
  EXPECT_EQ(get("/v1.0/users/nobody@msp.example/messages").json()["error"]["code"], "ErrorInvalidUser");
}

TEST_F(GraphFakeTest, FiltersSelectsAndPagesWithNextLink) {
  for (int i = 0; i < 5; ++i)
    fakes.graph().add_message(mailbox, message("unread " + std::to_string(i), "a@x.example", i));
  fakes.graph().add_message(mailbox, message("read", "a@x.example", 1, true));
  fakes.graph().add_message(mailbox, message("old", "a@x.example", 24 * 30));
  const std::string since = core::format_rfc3339(core::now() - std::chrono::hours(24 * 14)).substr(0, 19) + "Z";
  std::string next = "/v1.0/users/" + mailbox + "/mailFolders/inbox/messages?$filter=" +
                     core::url_encode("isRead eq false and receivedDateTime ge " + since) +
                     "&$select=subject,body&$top=2";
  std::vector<std::string> subjects;
  int pages = 0;
  while (!next.empty()) {
    const auto page = get(next);
    ASSERT_EQ(page.status, 200u) << page.body;
    ++pages;
    const auto body = page.json();
    for (const auto& m : body["value"]) {
      subjects.push_back(m["subject"]);
      EXPECT_FALSE(m.contains("isRead"));  // not selected
      EXPECT_EQ(m["body"]["contentType"], "text");
    }
    next = body.contains("@odata.nextLink") ? body["@odata.nextLink"].get<std::string>() : "";
    if (!next.empty()) next = next.substr(next.find("/v1.0/"));  // absolute: http://127.0.0.1:port/...
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(subjects, (std::vector<std::string>{"unread 0", "unread 1", "unread 2", "unread 3", "unread 4"}));
}

TEST_F(GraphFakeTest, RefusesWhatGraphRefuses) {
  fakes.graph().create_mailbox(mailbox);
  const std::string base = "/v1.0/users/" + mailbox + "/messages?";
  EXPECT_EQ(get(base + "$filter=" + core::url_encode("colour eq 'red'")).json()["error"]["code"], "BadRequest");
  EXPECT_EQ(get(base + "$top=1001").status, 400u);
  EXPECT_EQ(get(base + "$select=nonsense").status, 400u);
  const auto inefficient =
      get(base + "$filter=" + core::url_encode("isRead eq false") + "&$orderby=receivedDateTime%20desc");
  EXPECT_EQ(inefficient.status, 400u);
  EXPECT_EQ(inefficient.json()["error"]["code"], "InefficientFilter");
  EXPECT_EQ(get(base + "$filter=" + core::url_encode("receivedDateTime ge 2026-01-01T00:00:00Z") +
                "&$orderby=receivedDateTime%20desc")
                .status,
            200u);
}

TEST_F(GraphFakeTest, MoveKeepsTheIdOnlyWithImmutableIds) {
  const auto id = fakes.graph().add_message(mailbox, message("move me", "a@x.example", 1));
  auto headers = auth();
  const auto moved = http(fakes.port(), "POST", "/v1.0/users/" + mailbox + "/messages/" + id + "/move",
                          R"({"destinationId":"archive"})", headers);
  ASSERT_EQ(moved.status, 201u) << moved.body;
  EXPECT_NE(moved.json()["id"], id);
  const std::string new_id = moved.json()["id"];
  headers["Prefer"] = "IdType=\"ImmutableId\"";
  const auto again = http(fakes.port(), "POST", "/v1.0/users/" + mailbox + "/messages/" + new_id + "/move",
                          R"({"destinationId":"junkemail"})", headers);
  EXPECT_EQ(again.json()["id"], new_id);
  EXPECT_EQ(fakes.graph().messages(mailbox).front().folder, "junkemail");
  EXPECT_EQ(http(fakes.port(), "DELETE", "/v1.0/users/" + mailbox + "/messages/" + new_id, {}, headers).status, 204u);
  EXPECT_EQ(http(fakes.port(), "DELETE", "/v1.0/users/" + mailbox + "/messages/" + new_id, {}, headers)
                .json()["error"]["code"],
            "ErrorItemNotFound");
  EXPECT_EQ(fakes.graph().deleted(mailbox).size(), 1u);
}

TEST_F(GraphFakeTest, ThrottlesWithRetryAfterWhenAsked) {
  fakes.graph().create_mailbox(mailbox);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/faults", R"({"throttle":1,"retry_after":7})").status, 204u);
  const auto throttled = get("/v1.0/users/" + mailbox + "/messages");
  EXPECT_EQ(throttled.status, 429u);
  EXPECT_EQ(throttled.header("retry-after"), "7");
  EXPECT_EQ(throttled.json()["error"]["code"], "TooManyRequests");
  EXPECT_EQ(get("/v1.0/users/" + mailbox + "/messages").status, 200u);
}

TEST_F(GraphFakeTest, SeedsARealisticDemoMailbox) {
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/graph/mailboxes/" + mailbox + "/seed", R"({"count":300})").status,
            201u);
  const auto all = fakes.graph().messages(mailbox);
  ASSERT_EQ(all.size(), 300u);
  std::set<std::string> senders;
  int unread = 0, bulk = 0;
  for (const auto& m : all) {
    senders.insert(m.from_address);
    unread += m.is_read ? 0 : 1;
    for (const auto& h : m.headers) bulk += h.first == "List-Unsubscribe" ? 1 : 0;
  }
  EXPECT_GT(senders.size(), 15u);
  EXPECT_GT(unread, 150);
  EXPECT_LT(unread, 300);
  EXPECT_GT(bulk, 20);
  // the same seed gives the same mailbox
  EXPECT_EQ(sandbox::demo_mail(20, 7, {}).back().subject, sandbox::demo_mail(20, 7, {}).back().subject);
}

TEST_F(GraphFakeTest, SeedsAnAllUnreadInboxOfTheLastWeekForALoad) {
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/graph/mailboxes/" + mailbox + "/seed",
                 R"({"count":500,"seed":3,"unread":true})")
                .status,
            201u);
  const auto all = fakes.graph().messages(mailbox);
  ASSERT_EQ(all.size(), 500u);
  const auto week_ago = std::chrono::system_clock::now() - std::chrono::days(7);
  for (const auto& m : all) {
    EXPECT_FALSE(m.is_read);
    EXPECT_GT(m.received_at, week_ago);
    EXPECT_EQ(m.folder, "inbox");
  }
}
