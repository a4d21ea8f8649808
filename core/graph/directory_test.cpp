// The Graph directory client against the Graph fake: photos (bytes, type, none, by object id, the
// size cap, faults), the e-mail activity report (the 302 and its download without the token, a day
// not processed yet, a day too old), one token for mail and directory calls; the report's CSV
// parser and the user-id rule.
#include "core/graph/directory.hpp"
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

using core::graph::DirectoryClient;
using core::graph::GraphClient;
using core::graph::GraphError;
using core::graph::GraphSettings;
using namespace std::chrono_literals;

namespace {

std::string day_before(int days) {
  return core::format_rfc3339(core::now() - std::chrono::hours(24 * days)).substr(0, 10);
}

struct DirectoryTest : ::testing::Test {
  sandbox::InProcess fakes;
  core::testing::IoThreads io{2};
  std::shared_ptr<GraphClient> graph;
  std::unique_ptr<DirectoryClient> directory;

  void SetUp() override {
    GraphSettings s;
    s.login_url = s.base_url = fakes.url();
    s.tenant_id = "contoso-tenant";
    s.client_id = "sandbox-client";
    s.client_secret = "sandbox-secret";
    s.http.base_backoff = 5ms;
    graph = std::make_shared<GraphClient>(io.executor(), s);
    directory = std::make_unique<DirectoryClient>(graph);
  }
  int stat(const char* name) { return fakes.graph().stats()[name]; }
};

}  // namespace

TEST_F(DirectoryTest, PhotosComeWithTheirTypeOrNotAtAll) {
  const std::string png("\x89PNG\r\n\x1a\n\0\0binary", 16);
  const std::string id = fakes.graph().set_photo("Adele.Vance@contoso.example", "image/png", png);
  fakes.graph().add_directory_user("lee.gu@contoso.example");  // no photo

  const auto photo = io.run(directory->photo("adele.vance@contoso.example", 1024));
  ASSERT_TRUE(photo);
  EXPECT_EQ(photo->bytes, png);
  EXPECT_EQ(photo->content_type, "image/png");
  EXPECT_EQ(io.run(directory->photo(id, 1024))->bytes, png);               // by object id
  EXPECT_FALSE(io.run(directory->photo("lee.gu@contoso.example", 1024)));  // ImageNotFound
  EXPECT_FALSE(io.run(directory->photo("nobody@contoso.example", 1024)));  // no such user

  try {  // the cap
    io.run(directory->photo("adele.vance@contoso.example", png.size() - 1));
    ADD_FAILURE() << "a photo over the cap was returned";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.code, "PhotoTooLarge");
  }
  fakes.graph().set_faults({.server_errors = 1, .status = 500});
  try {
    io.run(directory->photo("adele.vance@contoso.example", 1024));
    ADD_FAILURE() << "a 500 was not an error";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.status, 500);
  }
  // 503s are retried: two of them and the third call answers.
  fakes.graph().set_faults({.server_errors = 2, .status = 503});
  EXPECT_TRUE(io.run(directory->photo("adele.vance@contoso.example", 1024)));

  // The mail client and the directory share one token.
  fakes.graph().create_mailbox("inbox@contoso.example");
  io.run(graph->unread_inbox("inbox@contoso.example", core::now() - 1h));
  EXPECT_EQ(stat("tokens_issued"), 1);
}

TEST_F(DirectoryTest, TheActivityReportIsFollowedToItsDownloadWithoutTheToken) {
  const std::string day = day_before(3), recent = day_before(1);
  fakes.graph().add_usage(
      day,
      {.user = "Adele.Vance@contoso.example", .display_name = "Vance, Adele", .send = 12, .receive = 40, .read = 33});
  fakes.graph().add_usage(day, {.user = "lee.gu@contoso.example", .display_name = "Lee Gu", .send = 0, .receive = 7});
  fakes.graph().add_usage(recent, {.user = "lee.gu@contoso.example", .send = 5});

  const auto report = io.run(directory->email_activity(day));
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].user_principal_name, "adele.vance@contoso.example");  // lowercased
  EXPECT_EQ(report.rows[0].display_name, "Vance, Adele");                        // quoted in the CSV
  EXPECT_EQ(report.rows[0].send, 12);
  EXPECT_EQ(report.rows[0].receive, 40);
  EXPECT_EQ(report.rows[0].read, 33);
  EXPECT_EQ(report.rows[0].last_activity_date, day);
  EXPECT_EQ(report.report_refresh_date, day_before(2));  // the fake lags two days
  EXPECT_EQ(report.rows[1].receive, 7);
  EXPECT_EQ(stat("downloads"), 1);
  EXPECT_EQ(stat("downloads_with_token"), 0);  // the token never goes to the download URL

  // The period form sums each user's days up to the refresh date.
  const auto week = io.run(directory->email_activity_period(7));
  ASSERT_EQ(week.rows.size(), 2u);
  EXPECT_EQ(week.rows[1].user_principal_name, "lee.gu@contoso.example");
  EXPECT_EQ(week.rows[1].receive, 7);  // not yesterday's, which is not processed yet
  EXPECT_EQ(week.rows[1].send, 0);

  // Yesterday is not processed yet: a header without rows.
  const auto pending = io.run(directory->email_activity(recent));
  EXPECT_TRUE(pending.rows.empty());
  EXPECT_TRUE(pending.report_refresh_date.empty());
  // Graph keeps 28 days.
  try {
    io.run(directory->email_activity(day_before(40)));
    ADD_FAILURE() << "a day past 28 days was answered";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code, "InvalidArgument");
  }
}

TEST(UsageReportCsv, ReadsGraphsFileAndSkipsWhatItCannotRead) {
  using core::graph::parse_email_activity_csv;
  const std::string csv =
      "\xEF\xBB\xBF"
      "Report Refresh Date,User Principal Name,Display Name,Is Deleted,Deleted Date,Last Activity Date,Send Count,"
      "Receive Count,Read Count,Meeting Created Count,Meeting Interacted Count,Assigned Products,Report Period\r\n"
      "2026-11-20,Megan@Contoso.example,\"Bowen, \"\"Meg\"\"\",False,,2026-11-20,3,10,9,0,1,\"A+B\",1\r\n"
      "2026-11-20,nestor@contoso.example,\"Nestor\r\nWilke\",True,2026-11-19,,,,,,,,1\n"
      "2026-11-20,A25BD01A4B5F6482758A0C00162A1298,F55C24F4,False,,2026-11-20,1,1,1,0,0,X,1\r\n"
      "2026-11-20,bad@contoso.example,Bad,False,,2026-11-20,-1,1,1,0,0,X,1\r\n"
      "2026-11-20,short@contoso.example\r\n"
      "\r\n";
  const auto report = parse_email_activity_csv(csv);
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].user_principal_name, "megan@contoso.example");
  EXPECT_EQ(report.rows[0].display_name, "Bowen, \"Meg\"");
  EXPECT_EQ(report.rows[0].send, 3);
  EXPECT_EQ(report.rows[0].receive, 10);
  EXPECT_EQ(report.rows[0].read, 9);
  EXPECT_EQ(report.rows[1].display_name, "Nestor\r\nWilke");  // a line break inside quotes
  EXPECT_TRUE(report.rows[1].is_deleted);
  EXPECT_EQ(report.rows[1].send, 0);  // empty counts are no activity
  EXPECT_EQ(report.concealed, 1u);    // a hashed user name
  EXPECT_EQ(report.skipped, 2u);      // a negative count, a short line
  EXPECT_EQ(report.report_refresh_date, "2026-11-20");

  // Columns are found by name, in any order.
  const auto reordered = parse_email_activity_csv(
      "Send Count,Receive Count,User Principal Name,Report Refresh Date\na,1,x@y.example,"
      "2026-01-01\n2,1,x@y.example,2026-01-01\n");
  ASSERT_EQ(reordered.rows.size(), 1u);
  EXPECT_EQ(reordered.rows[0].send, 2);
  EXPECT_EQ(reordered.skipped, 1u);
  EXPECT_THROW(parse_email_activity_csv(""), core::graph::UsageReportError);
  EXPECT_THROW(parse_email_activity_csv("Report Refresh Date,Display Name\n"), core::graph::UsageReportError);
}

TEST(DirectoryUserId, TakesAGuidOrAnAddressAndNothingElse) {
  using core::graph::directory_user_id;
  EXPECT_EQ(directory_user_id("Adele.Vance@Contoso.example"), "adele.vance@contoso.example");
  EXPECT_EQ(directory_user_id("o'brien+tag@contoso.example"), "o'brien+tag@contoso.example");
  EXPECT_EQ(directory_user_id("6E2C6B8A-1D4B-4C4B-9A55-2B8C2C1F7A10"), "6e2c6b8a-1d4b-4c4b-9a55-2b8c2c1f7a10");
  for (const std::string& bad : std::vector<std::string>{
           "", "adele", "a/b@contoso.example", "a..b@contoso.example", ".a@contoso.example", "a.@contoso.example",
           "a@b@contoso.example", "a b@contoso.example", std::string("a\x01@contoso.example"), "a@contoso..example",
           "a@contoso.example/../x", "..", "a%2F@contoso.example", "a@" + std::string(250, 'x') + ".example",
           "6e2c6b8a-1d4b-4c4b-9a55-2b8c2c1f7a1"})
    EXPECT_FALSE(directory_user_id(bad)) << bad;
}
