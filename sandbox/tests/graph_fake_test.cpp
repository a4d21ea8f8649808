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

// --- mailbox remediation (issue 20): $search, the filters it uses, a mailbox that refuses access ---

TEST_F(GraphFakeTest, SearchesAMailboxAcrossFoldersWithKql) {
  auto put = [&](std::string subject, std::string from, std::string folder, std::string body, int hours_ago) {
    auto m = message(std::move(subject), std::move(from), hours_ago);
    m.folder = std::move(folder);
    m.body = std::move(body);
    return fakes.graph().add_message(mailbox, std::move(m));
  };
  const auto overdue = put("Invoice overdue", "bad@phish.example", "inbox", "pay now", 1);
  put("Re: invoice", "bad@phish.example", "junkemail", "pay now please", 2);
  put("Lunch", "friend@x.example", "inbox", "no invoice here", 3);
  put("Team update", "boss@msp.example", "archive", "weekly notes", 4);
  const std::string base = "/v1.0/users/" + mailbox + "/messages?$select=subject&$search=";
  const auto subjects = [&](const std::string& search, const std::string& extra = "") {
    std::vector<std::string> out;
    const auto res = get(base + core::url_encode(search) + extra);
    EXPECT_EQ(res.status, 200u) << search << ": " << res.body;
    const auto body = res.json();
    for (const auto& m : body["value"]) out.push_back(m["subject"]);
    return out;
  };
  using Subjects = std::vector<std::string>;
  EXPECT_EQ(subjects("\"from:bad@phish.example\""), (Subjects{"Invoice overdue", "Re: invoice"}));
  EXPECT_EQ(subjects("\"subject:invoice\""), (Subjects{"Invoice overdue", "Re: invoice"}));
  EXPECT_EQ(subjects("\"invoice\""), (Subjects{"Invoice overdue", "Re: invoice", "Lunch"}));  // from, subject, body
  EXPECT_EQ(subjects("\"lunch OR update\""), (Subjects{"Lunch", "Team update"}));
  EXPECT_EQ(subjects("\"from:bad@phish.example AND subject:overdue\""), (Subjects{"Invoice overdue"}));
  EXPECT_EQ(subjects("\"to:" + mailbox + "\"").size(), 4u);
  EXPECT_TRUE(subjects("\"from:nobody@else.example\"").empty());

  // Paged like any list: $top and a nextLink that keeps the search.
  const auto first = get(base + core::url_encode("\"invoice\"") + "&$top=2");
  ASSERT_EQ(first.status, 200u);
  ASSERT_TRUE(first.json().contains("@odata.nextLink"));
  std::string next = first.json()["@odata.nextLink"];
  const auto rest = get(next.substr(next.find("/v1.0/")));
  EXPECT_EQ(rest.json()["value"].size(), 1u);
  EXPECT_EQ(rest.json()["value"][0]["subject"], "Lunch");

  // Graph's rules: not with $filter or $orderby; the value in double quotes.
  const auto with_filter =
      get(base + core::url_encode("\"invoice\"") + "&$filter=" + core::url_encode("isRead eq false"));
  EXPECT_EQ(with_filter.status, 400u);
  EXPECT_EQ(with_filter.json()["error"]["code"], "ErrorInvalidUrlQuery");
  EXPECT_EQ(with_filter.json()["error"]["message"], "The query parameter '$filter' is not supported with '$search'.");
  const auto with_order = get(base + core::url_encode("\"invoice\"") + "&$orderby=receivedDateTime%20desc");
  EXPECT_EQ(with_order.status, 400u);
  EXPECT_EQ(with_order.json()["error"]["message"], "The query parameter '$orderBy' is not supported with '$search'.");
  EXPECT_EQ(get(base + "invoice").json()["error"]["code"], "BadRequest");

  // One folder's messages take $search too.
  const auto junk =
      get("/v1.0/users/" + mailbox + "/mailFolders/junkemail/messages?$search=" + core::url_encode("\"invoice\""));
  ASSERT_EQ(junk.json()["value"].size(), 1u);
  EXPECT_EQ(junk.json()["value"][0]["subject"], "Re: invoice");

  // $filter by internetMessageId and by subject (case-insensitively).
  std::string internet_id;
  for (const auto& m : fakes.graph().messages(mailbox))
    if (m.id == overdue) internet_id = m.internet_message_id;
  const auto by_id = get("/v1.0/users/" + mailbox +
                         "/messages?$filter=" + core::url_encode("internetMessageId eq '" + internet_id + "'"));
  ASSERT_EQ(by_id.status, 200u) << by_id.body;
  ASSERT_EQ(by_id.json()["value"].size(), 1u);
  EXPECT_EQ(by_id.json()["value"][0]["id"], overdue);
  const auto by_subject =
      get("/v1.0/users/" + mailbox + "/messages?$filter=" + core::url_encode("subject eq 'team UPDATE'"));
  ASSERT_EQ(by_subject.json()["value"].size(), 1u);
  EXPECT_EQ(by_subject.json()["value"][0]["subject"], "Team update");
  EXPECT_EQ(get("/v1.0/users/" + mailbox + "/messages?$filter=" + core::url_encode("subject eq Lunch")).status, 400u);
}

TEST_F(GraphFakeTest, AMailboxThatRefusesAccessAnswers403) {
  const auto id = fakes.graph().add_message(mailbox, message("phish", "bad@phish.example", 1));
  const auto denied =
      http(fakes.port(), "PUT", "/_sandbox/graph/mailboxes/" + mailbox + "/access", R"({"denied":true})");
  ASSERT_EQ(denied.status, 200u) << denied.body;
  EXPECT_EQ(denied.json()["denied"], true);
  const auto expect_denied = [](const HttpResponse& res) {
    EXPECT_EQ(res.status, 403u) << res.body;
    EXPECT_EQ(res.json()["error"]["code"], "ErrorAccessDenied");
    EXPECT_EQ(res.json()["error"]["message"], "Access is denied. Check credentials and try again.");
    EXPECT_TRUE(res.json()["error"]["innerError"].contains("request-id"));
  };
  const std::string base = "/v1.0/users/" + mailbox + "/messages";
  expect_denied(get(base + "?$search=" + core::url_encode("\"phish\"")));
  expect_denied(get(base + "/" + id));
  expect_denied(http(fakes.port(), "POST", base + "/" + id + "/move", R"({"destinationId":"deleteditems"})", auth()));
  expect_denied(http(fakes.port(), "DELETE", base + "/" + id, {}, auth()));
  // The token is checked first.
  EXPECT_EQ(http(fakes.port(), "GET", base).status, 401u);
  EXPECT_EQ(fakes.graph().stats()["mailboxes"][mailbox]["access_denied"], true);
  EXPECT_EQ(fakes.graph().messages(mailbox).size(), 1u);  // nothing moved or deleted

  fakes.graph().deny_access(mailbox, false);
  EXPECT_EQ(get(base).status, 200u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/mailboxes/" + mailbox + "/access", R"({"denied":"yes"})").status,
            400u);
}

TEST_F(GraphFakeTest, RemediationMovesToDeletedItemsAndDeletes) {
  const auto moved_id = fakes.graph().add_message(mailbox, message("phish one", "bad@phish.example", 1));
  const auto deleted_id = fakes.graph().add_message(mailbox, message("phish two", "bad@phish.example", 2));
  auto headers = auth();
  headers["Prefer"] = "IdType=\"ImmutableId\"";
  const std::string base = "/v1.0/users/" + mailbox;
  const auto moved = http(fakes.port(), "POST", base + "/messages/" + moved_id + "/move",
                          R"({"destinationId":"deleteditems"})", headers);
  ASSERT_EQ(moved.status, 201u) << moved.body;
  EXPECT_EQ(moved.json()["id"], moved_id);
  const auto folder = get(base + "/mailFolders/deleteditems");
  EXPECT_EQ(moved.json()["parentFolderId"], folder.json()["id"]);
  EXPECT_EQ(folder.json()["totalItemCount"], 1);
  // Recoverable: it is listed in Deleted Items, no longer in the inbox.
  const auto in_deleted = get(base + "/mailFolders/deleteditems/messages");
  ASSERT_EQ(in_deleted.json()["value"].size(), 1u);
  EXPECT_EQ(in_deleted.json()["value"][0]["id"], moved_id);
  const auto inbox = get(base + "/mailFolders/inbox/messages").json();
  for (const auto& m : inbox["value"]) EXPECT_NE(m["id"], moved_id);

  EXPECT_EQ(http(fakes.port(), "DELETE", base + "/messages/" + deleted_id, {}, headers).status, 204u);
  EXPECT_EQ(get(base + "/messages/" + deleted_id).json()["error"]["code"], "ErrorItemNotFound");
  ASSERT_EQ(fakes.graph().deleted(mailbox).size(), 1u);
  EXPECT_EQ(fakes.graph().deleted(mailbox)[0].id, deleted_id);
  EXPECT_EQ(fakes.graph().messages(mailbox).size(), 1u);
}

// --- sendMail (issue 21) ---

TEST_F(GraphFakeTest, SendMailAnswers202AndKeepsWhatWasSent) {
  fakes.graph().create_mailbox(mailbox);
  const json mail = {
      {"message",
       {{"subject", "Meet for lunch?"},
        {"body", {{"contentType", "Text"}, {"content", "The new cafeteria is open."}}},
        {"toRecipients", {{{"emailAddress", {{"address", "frannis@contoso.example"}}}}}},
        {"ccRecipients", {{{"emailAddress", {{"address", "danas@contoso.example"}, {"name", "Dana Swope"}}}}}}}}};
  const auto res = http(fakes.port(), "POST", "/v1.0/users/" + mailbox + "/sendMail", mail.dump(), auth());
  EXPECT_EQ(res.status, 202u) << res.body;
  EXPECT_EQ(res.body, "");
  const auto sent = http(fakes.port(), "GET", "/_sandbox/graph/sent").json()["sent"];
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["from"], mailbox);
  EXPECT_EQ(sent[0]["subject"], "Meet for lunch?");
  EXPECT_EQ(sent[0]["contentType"], "Text");
  EXPECT_EQ(sent[0]["body"], "The new cafeteria is open.");
  EXPECT_EQ(sent[0]["to"][0]["address"], "frannis@contoso.example");
  EXPECT_EQ(sent[0]["cc"][0]["name"], "Dana Swope");
  EXPECT_EQ(sent[0]["saveToSentItems"], true);
  // saveToSentItems (default true) files a copy in Sent Items; false does not.
  const auto copies = get("/v1.0/users/" + mailbox + "/mailFolders/sentitems/messages").json()["value"];
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0]["subject"], "Meet for lunch?");
  json quiet = mail;
  quiet["saveToSentItems"] = false;
  quiet["message"]["body"]["contentType"] = "html";
  EXPECT_EQ(http(fakes.port(), "POST", "/v1.0/users/" + mailbox + "/sendMail", quiet.dump(), auth()).status, 202u);
  EXPECT_EQ(get("/v1.0/users/" + mailbox + "/mailFolders/sentitems/messages").json()["value"].size(), 1u);
  ASSERT_EQ(fakes.graph().sent().size(), 2u);
  EXPECT_EQ(fakes.graph().sent()[1].content_type, "HTML");
  fakes.graph().reset();
  EXPECT_TRUE(fakes.graph().sent().empty());
}

TEST_F(GraphFakeTest, SendMailRefusesWhatGraphRefuses) {
  fakes.graph().create_mailbox(mailbox);
  const auto send = [&](const std::string& from, const json& body) {
    return http(fakes.port(), "POST", "/v1.0/users/" + from + "/sendMail", body.dump(), auth());
  };
  const auto to = [](const std::string& address) {
    return json{{"message", {{"subject", "s"}, {"toRecipients", {{{"emailAddress", {{"address", address}}}}}}}}};
  };
  EXPECT_EQ(http(fakes.port(), "POST", "/v1.0/users/" + mailbox + "/sendMail", to("a@b.example").dump()).status,
            401u);  // no token

  const auto nobody = send(mailbox, {{"message", {{"subject", "s"}, {"toRecipients", json::array()}}}});
  EXPECT_EQ(nobody.status, 400u);
  EXPECT_EQ(nobody.json()["error"]["code"], "ErrorInvalidRecipients");
  EXPECT_NE(nobody.json()["error"]["message"].get<std::string>().find("contains no recipients"), std::string::npos);
  const auto malformed = send(mailbox, to("tech@msp.example; lead@msp.example"));
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_EQ(malformed.json()["error"]["code"], "ErrorInvalidRecipients");
  EXPECT_NE(malformed.json()["error"]["message"].get<std::string>().find("Recipient 'tech@msp.example; lead"),
            std::string::npos);
  EXPECT_TRUE(malformed.json()["error"].contains("innerError"));
  EXPECT_EQ(send(mailbox, json::object()).json()["error"]["code"], "BadRequest");
  json markdown = to("a@b.example");
  markdown["message"]["body"] = {{"contentType", "markdown"}, {"content", "x"}};
  EXPECT_EQ(send(mailbox, markdown).status, 400u);

  const auto unknown = send("ghost@msp.example", to("a@b.example"));
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_EQ(unknown.json()["error"]["code"], "ErrorInvalidUser");

  // Without the Mail.Send application permission.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/permissions", R"({"Mail.Send": false})").status, 200u);
  const auto denied = send(mailbox, to("a@b.example"));
  EXPECT_EQ(denied.status, 403u);
  EXPECT_EQ(denied.json()["error"]["code"], "ErrorAccessDenied");
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/permissions", R"({"Mail.Send": "no"})").status, 400u);
  fakes.graph().grant_mail_send(true);

  // The failure switch: every sendMail that passes the checks answers it.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/faults",
                 R"({"send_fail": {"status": 429, "code": "ErrorExceededMessageLimit", "message": "Too many"}})")
                .status,
            204u);
  const auto failed = send(mailbox, to("a@b.example"));
  EXPECT_EQ(failed.status, 429u);
  EXPECT_EQ(failed.json()["error"]["code"], "ErrorExceededMessageLimit");
  EXPECT_EQ(failed.json()["error"]["message"], "Too many");
  EXPECT_EQ(send(mailbox, to("a@b.example")).status, 429u);  // until the faults are replaced
  EXPECT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/graph/faults", R"({"send_fail": {"status": 200, "code": "X"}})").status,
      400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/faults", R"({"send_fail": {"status": 500}})").status, 400u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/graph/faults", "{}").status, 204u);
  EXPECT_EQ(send(mailbox, to("a@b.example")).status, 202u);
  EXPECT_EQ(fakes.graph().sent().size(), 1u);
}
