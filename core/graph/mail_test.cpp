// The Microsoft Graph client against the Graph fake: paging, the token cache and its renewal,
// the purge listing, errors.
#include "core/graph/mail.hpp"
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

using core::graph::GraphClient;
using core::graph::GraphError;
using core::graph::GraphSettings;
using namespace std::chrono_literals;

namespace {

constexpr const char* kMailbox = "inbox@msp.example";

core::Timestamp hours_ago(int h) { return core::now() - std::chrono::hours(h); }

struct GraphClientTest : ::testing::Test {
  sandbox::InProcess fakes;
  core::testing::IoThreads io{2};

  GraphSettings settings(std::string secret = "sandbox-secret") {
    GraphSettings s;
    s.login_url = s.base_url = fakes.url();
    s.tenant_id = "contoso-tenant";
    s.client_id = "sandbox-client";
    s.client_secret = std::move(secret);
    s.page_size = 2;
    s.http.base_backoff = 10ms;
    return s;
  }
  std::string add(std::string subject, std::string from, int age_hours, std::string folder = "inbox",
                  bool read = false) {
    sandbox::FakeMessage m;
    m.subject = std::move(subject);
    m.from_address = std::move(from);
    m.from_name = "Sender";
    m.body = "text of " + m.subject;
    m.received_at = hours_ago(age_hours);
    m.folder = std::move(folder);
    m.is_read = read;
    m.headers = {{"List-Unsubscribe", "<https://x.example/u>"}};
    return fakes.graph().add_message(kMailbox, std::move(m));
  }
  int tokens_issued() { return fakes.graph().stats()["tokens_issued"]; }
};

}  // namespace

TEST_F(GraphClientTest, UnreadInboxFollowsEveryPageAndCachesTheToken) {
  for (int i = 0; i < 5; ++i) add("unread " + std::to_string(i), "A@Contoso.example", i + 1);
  add("read", "a@contoso.example", 1, "inbox", true);
  add("archived", "a@contoso.example", 1, "archive");
  add("too old", "a@contoso.example", 24 * 20);
  GraphClient graph(io.executor(), settings());
  const auto unread = io.run(graph.unread_inbox(kMailbox, hours_ago(24 * 14)));
  ASSERT_EQ(unread.size(), 5u);  // three pages of two
  EXPECT_EQ(unread[0].subject, "unread 0");
  EXPECT_EQ(unread[0].from_address, "a@contoso.example");  // lowercased
  EXPECT_EQ(unread[0].body, "text of unread 0");           // the plain-text body
  EXPECT_EQ(unread[0].headers.at("list-unsubscribe"), "<https://x.example/u>");
  io.run(graph.unread_inbox(kMailbox, hours_ago(24 * 14)));
  EXPECT_EQ(tokens_issued(), 1);
}

TEST_F(GraphClientTest, ARevokedTokenIsRenewedOnce) {
  add("one", "a@contoso.example", 1);
  GraphClient graph(io.executor(), settings());
  io.run(graph.unread_inbox(kMailbox, hours_ago(24)));
  fakes.graph().revoke_tokens();
  EXPECT_EQ(io.run(graph.unread_inbox(kMailbox, hours_ago(24))).size(), 1u);
  EXPECT_EQ(tokens_issued(), 2);
}

TEST_F(GraphClientTest, FailuresAreGraphErrorsWithGraphsCode) {
  fakes.graph().create_mailbox(kMailbox);
  GraphClient wrong_secret(io.executor(), settings("wrong"));
  try {
    io.run(wrong_secret.unread_inbox(kMailbox, hours_ago(24)));
    ADD_FAILURE() << "no error";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code, "invalid_client");
    EXPECT_EQ(std::string(e.what()).find("wrong"), std::string::npos);  // the secret is never in a message
  }
  GraphClient graph(io.executor(), settings());
  try {
    io.run(graph.mark_read("ghost@msp.example", "AAMk-none"));
    ADD_FAILURE() << "no error";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.status, 404);
    EXPECT_EQ(e.code, "ErrorInvalidUser");
  }
}

TEST_F(GraphClientTest, PurgeListingSkipsDeletedItemsAndNewerMail) {
  const auto old_inbox = add("old inbox", "news@list.example", 24 * 40);
  const auto old_archive = add("old archive", "News@List.example", 24 * 40, "archive");
  add("old deleted", "news@list.example", 24 * 40, "deleteditems");
  add("new", "news@list.example", 24);
  add("someone else", "other@list.example", 24 * 40);
  GraphClient graph(io.executor(), settings());
  const auto found = io.run(graph.from_sender_before(kMailbox, "news@list.example", hours_ago(24 * 30)));
  std::set<std::string> ids;
  for (const auto& m : found) ids.insert(m.id);
  EXPECT_EQ(ids, (std::set<std::string>{old_inbox, old_archive}));
  io.run(graph.remove(kMailbox, old_inbox));
  ASSERT_EQ(fakes.graph().deleted(kMailbox).size(), 1u);
  EXPECT_EQ(fakes.graph().deleted(kMailbox)[0].id, old_inbox);
}

TEST_F(GraphClientTest, ActionsKeepTheMessageId) {
  const auto id = add("flag me", "a@contoso.example", 1);
  GraphClient graph(io.executor(), settings());
  io.run(graph.flag(kMailbox, id));
  io.run(graph.move(kMailbox, id, "archive"));  // ImmutableId: the id survives the move
  io.run(graph.mark_read(kMailbox, id));
  const auto m = fakes.graph().messages(kMailbox).front();
  EXPECT_EQ(m.id, id);
  EXPECT_EQ(m.flag, "flagged");
  EXPECT_EQ(m.folder, "archive");
  EXPECT_TRUE(m.is_read);
}

TEST_F(GraphClientTest, SearchCoversEveryFolderAndStopsAtTheLimit) {
  for (int i = 0; i < 5; ++i) add("Invoice overdue " + std::to_string(i), "billing@phish.example", i + 1);
  add("Invoice in the archive", "billing@phish.example", 2, "archive");
  add("Lunch", "colleague@msp.example", 1);
  GraphClient graph(io.executor(), settings());
  const auto found = io.run(graph.search(kMailbox, "from:billing@phish.example", 100));
  EXPECT_EQ(found.size(), 6u);  // the archived one too
  for (const auto& m : found) EXPECT_EQ(m.from_address, "billing@phish.example");
  EXPECT_EQ(io.run(graph.search(kMailbox, "from:billing@phish.example", 3)).size(), 3u);
  EXPECT_EQ(io.run(graph.search(kMailbox, "subject:lunch", 100)).size(), 1u);

  fakes.graph().deny_access(kMailbox);
  try {
    io.run(graph.search(kMailbox, "lunch", 10));
    ADD_FAILURE() << "a refused mailbox answered";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.status, 403);
    EXPECT_EQ(e.code, "ErrorAccessDenied");
  }
}

TEST_F(GraphClientTest, SendMailIsAcceptedAndListedByTheFake) {
  fakes.graph().create_mailbox("helpdesk@msp.example");
  GraphClient graph(io.executor(), settings());
  io.run(graph.send_mail("helpdesk@msp.example", {.subject = "Ticket T20240101.0001 analysed",
                                                  .content_type = "HTML",
                                                  .body = "<p>Check the VPN tunnel.</p>",
                                                  .to = {"tech@msp.example", "lead@msp.example"}}));
  const auto sent = fakes.graph().sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].from, "helpdesk@msp.example");
  EXPECT_EQ(sent[0].subject, "Ticket T20240101.0001 analysed");
  EXPECT_EQ(sent[0].content_type, "HTML");
  EXPECT_EQ(sent[0].body, "<p>Check the VPN tunnel.</p>");
  ASSERT_EQ(sent[0].to.size(), 2u);
  EXPECT_EQ(sent[0].to[1].address, "lead@msp.example");
  EXPECT_FALSE(sent[0].save_to_sent_items);
  EXPECT_TRUE(fakes.graph().messages("helpdesk@msp.example").empty());  // no copy in Sent Items
  // The control route lists it for tests in other processes.
  const auto listed = core::testing::http(fakes.port(), "GET", "/_sandbox/graph/sent").json();
  ASSERT_EQ(listed["sent"].size(), 1u);
  EXPECT_EQ(listed["sent"][0]["to"][0]["address"], "tech@msp.example");
  EXPECT_EQ(listed["sent"][0]["contentType"], "HTML");
}

TEST_F(GraphClientTest, SendMailFailuresAreGraphErrorsWithoutTheToken) {
  fakes.graph().create_mailbox("helpdesk@msp.example");
  GraphClient graph(io.executor(), settings());
  const auto expect_error = [&](const std::string& from, core::graph::OutgoingMail mail, int status,
                                const std::string& code) {
    try {
      io.run(graph.send_mail(from, std::move(mail)));
      ADD_FAILURE() << "no error for " << code;
    } catch (const GraphError& e) {
      EXPECT_EQ(e.status, status);
      EXPECT_EQ(e.code, code);
      const std::string what = e.what();
      if (status != 0) EXPECT_NE(what.find(code), std::string::npos) << what;  // Graph's code in the message
      EXPECT_EQ(what.find("Bearer"), std::string::npos) << what;
      EXPECT_EQ(what.find("eyJ0eXAi"), std::string::npos) << what;  // the fake's tokens start so
    }
  };
  const core::graph::OutgoingMail mail{.subject = "s", .body = "b", .to = {"tech@msp.example"}};

  // The failure switch, set through the control route as a test in another process would.
  ASSERT_EQ(core::testing::http(fakes.port(), "PUT", "/_sandbox/graph/faults",
                                R"({"send_fail": {"status": 403, "code": "ErrorSendAsDenied"}})")
                .status,
            204u);
  expect_error("helpdesk@msp.example", mail, 403, "ErrorSendAsDenied");
  fakes.graph().set_faults({});

  expect_error("ghost@msp.example", mail, 404, "ErrorInvalidUser");  // an unknown mailbox
  expect_error("helpdesk@msp.example", {.subject = "s", .to = {"not an address"}}, 400, "ErrorInvalidRecipients");
  expect_error("helpdesk@msp.example", {.subject = "s"}, 400, "ErrorInvalidRecipients");  // nobody
  fakes.graph().grant_mail_send(false);
  expect_error("helpdesk@msp.example", mail, 403, "ErrorAccessDenied");
  fakes.graph().grant_mail_send(true);
  expect_error("helpdesk@msp.example", {.content_type = "Markdown", .to = {"tech@msp.example"}}, 0, "InvalidRequest");
  EXPECT_TRUE(fakes.graph().sent().empty());
  io.run(graph.send_mail("helpdesk@msp.example", mail));
  EXPECT_EQ(fakes.graph().sent().size(), 1u);
}
