// The mobile lists (issue 22): the ticket list and the analyzer feed, keyset-paged with an opaque
// cursor (edges: empty page, last page, cap, a tampered cursor), their filters, and the company
// scoping of the mobile display settings.
#include "core/util/digest.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct MobileTest : ConsoleTest {
  std::string token;

  void start_signed_in() {
    add_user("tech@msp.example", kPassword);
    start({{"DASHBOARD_NOW", "2026-11-23T10:30:00Z"}, {"ANALYZER_WORKERS", "0"}});
    token = sign_in("tech@msp.example", kPassword);
  }
  // Company 1 is shown; 2 has another category, 3 is excluded by id, 4 has a classification
  // outside the included list, 5 is out of scope.
  void seed_companies() {
    sql("INSERT INTO companies (id, company_name, company_category_id, classification_id) VALUES "
        "(1, 'Shown', 1, 10), (2, 'Other category', 2, 10), (3, 'Excluded', 1, 10), (4, 'Unclassified', 1, 11), "
        "(5, 'Out of scope', 1, 10)");
    sql("UPDATE display_settings SET value = '[3]' WHERE key = 'mobile_excluded_company_ids'");
    sql("UPDATE display_settings SET value = '[10]' WHERE key = 'mobile_included_classification_ids'");
    sql("INSERT INTO company_scope (company_id, in_scope, updated_by) VALUES (5, false, 'a')");
  }
  json page(const std::string& path, unsigned expected = 200) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, expected) << path << ": " << res.body;
    return res.json();
  }
  // Every page from the first, following nextCursor: the ids in order.
  std::vector<std::int64_t> walk(const std::string& path, std::size_t* pages = nullptr) {
    std::vector<std::int64_t> ids;
    std::string cursor;
    for (std::size_t n = 1;; ++n) {
      const json p =
          page(path + (path.find('?') == std::string::npos ? "?" : "&") + (cursor.empty() ? "" : "cursor=" + cursor));
      const json items = p["items"];
      for (const auto& item : items) ids.push_back(item["id"]);
      EXPECT_LE(items.size(), 25u);
      if (!p["hasMore"].get<bool>()) {
        EXPECT_TRUE(p["nextCursor"].is_null());
        if (pages) *pages = n;
        return ids;
      }
      EXPECT_EQ(items.size(), 25u);  // only the last page is short
      cursor = p["nextCursor"];
      if (n > 10) ADD_FAILURE() << "no end";
      if (n > 10) return ids;
    }
  }
};

TEST_F(MobileTest, TicketListPagesByActivityWithinTheMobileCompanies) {
  seed_companies();
  // 60 tickets of company 1: status 1, 8, 7 in turn, activity one minute apart; ten without any
  // activity (they sort last); ties on the activity instant between 41 and 42; one ticket of each
  // hidden company; complete and deleted tickets.
  sql("INSERT INTO tickets (id, ticket_number, title, status, priority, queue_id, company_id, last_activity_date) "
      "SELECT n, 'T' || n, 'Ticket ' || n, (ARRAY[1, 8, 7])[n % 3 + 1], n % 2 + 1, 8, 1, "
      "CASE WHEN n > 50 THEN NULL ELSE '2026-11-23T10:00Z'::timestamptz - make_interval(mins => n) END "
      "FROM generate_series(1, 60) n");
  sql("UPDATE tickets SET last_activity_date = '2026-11-23T09:18Z' WHERE id IN (41, 42)");
  sql("INSERT INTO tickets (id, title, status, company_id, last_activity_date) VALUES "
      "(102, 'hidden', 1, 2, now()), (103, 'hidden', 1, 3, now()), (104, 'hidden', 1, 4, now()), "
      "(105, 'hidden', 1, 5, now()), (106, 'no company', 1, NULL, now()), (107, 'Done 50% off', 5, 1, now())");
  sql("INSERT INTO tickets (id, title, status, company_id, last_activity_date, deleted_at) VALUES "
      "(108, 'deleted', 1, 1, now(), now())");
  start_signed_in();

  std::size_t pages = 0;
  const auto ids = walk("/api/mobile/tickets", &pages);
  EXPECT_EQ(pages, 3u);
  ASSERT_EQ(ids.size(), 60u);  // the default 1, 8, 7: no complete, deleted or hidden ticket
  std::vector<std::int64_t> expected;
  for (std::int64_t n = 1; n <= 50; ++n) expected.push_back(n);
  std::swap(expected[40], expected[41]);                         // the tie: the larger id first
  for (std::int64_t n = 60; n > 50; --n) expected.push_back(n);  // no activity: last, by id descending
  EXPECT_EQ(ids, expected);

  const json first = page("/api/mobile/tickets?limit=100");  // the cap
  EXPECT_EQ(first["limit"], 25);
  EXPECT_EQ(first["items"].size(), 25u);
  EXPECT_EQ(first["items"][0]["companyName"], "Shown");
  EXPECT_EQ(first["items"][0]["id"], 1);
  EXPECT_EQ(page("/api/mobile/tickets?limit=10")["items"].size(), 10u);
  EXPECT_EQ(page("/api/mobile/tickets?limit=0", 400)["errors"][0]["field"], "limit");

  // Exactly a page's worth: hasMore false, no cursor (one row beyond is read to know).
  const json exact = page("/api/mobile/tickets?status=7&limit=20");
  EXPECT_EQ(exact["items"].size(), 20u);
  EXPECT_FALSE(exact["hasMore"]);
  EXPECT_TRUE(exact["nextCursor"].is_null());
  // Repeated filters: "Ticket 1" and "Ticket 10"-"19" in status 1 or 8, either priority.
  std::vector<std::int64_t> found;
  const json repeated = page("/api/mobile/tickets?status=1&status=8&priority=1&priority=2&search=Ticket%201")["items"];
  for (const auto& t : repeated) found.push_back(t["id"]);
  EXPECT_EQ(found, (std::vector<std::int64_t>{1, 10, 12, 13, 15, 16, 18, 19}));
  const json empty = page("/api/mobile/tickets?queue=9");
  EXPECT_EQ(empty["items"], json::array());
  EXPECT_FALSE(empty["hasMore"]);
  EXPECT_TRUE(empty["nextCursor"].is_null());

  // Filters: complete only; a literal % in the search; the priorities; mine.
  const json done = page("/api/mobile/tickets?status=5&search=50%25");
  ASSERT_EQ(done["items"].size(), 1u);
  EXPECT_EQ(done["items"][0]["id"], 107);
  EXPECT_EQ(walk("/api/mobile/tickets?priority=1").size(), 30u);
  EXPECT_EQ(walk("/api/mobile/tickets?status=7").size(), 20u);
  EXPECT_EQ(page("/api/mobile/tickets?mine=true")["items"].size(), 0u);  // no PSA resource of theirs yet
  sql("INSERT INTO resources (id, email) VALUES (7, 'Tech@MSP.example')");
  sql("UPDATE tickets SET assigned_resource_id = 7 WHERE id IN (3, 4, 105)");
  const json mine = page("/api/mobile/tickets?mine=true");
  ASSERT_EQ(mine["items"].size(), 2u);
  EXPECT_EQ(mine["items"][0]["id"], 3);

  // Bad filters and tampered cursors: 400 naming the field, never a 500.
  EXPECT_EQ(page("/api/mobile/tickets?status=open", 400)["errors"][0]["field"], "status");
  EXPECT_EQ(page("/api/mobile/tickets?priority=-1", 400)["errors"][0]["field"], "priority");
  EXPECT_EQ(page("/api/mobile/tickets?mine=maybe", 400)["errors"][0]["field"], "mine");
  const std::string cursor = page("/api/mobile/tickets")["nextCursor"];
  const std::vector<std::string> tampered{cursor.substr(0, cursor.size() - 1),
                                          cursor + "A",
                                          "!!",
                                          core::base64url(R"({"at":null,"id":"x"})"),
                                          core::base64url(R"({"at":"soon","id":1})"),
                                          std::string(300, 'A')};
  for (const auto& bad : tampered) {
    const json problem = page("/api/mobile/tickets?cursor=" + bad, 400);
    EXPECT_EQ(problem["errors"][0]["field"], "cursor") << bad;
  }
}

TEST_F(MobileTest, AnalyzerFeedHasEachTicketsLatestAnalysisInTwelveFields) {
  seed_companies();
  sql("INSERT INTO tickets (id, ticket_number, title, status, company_id) SELECT n, 'T' || n, 'Ticket ' || n, 1, 1 "
      "FROM generate_series(1, 30) n");
  sql("INSERT INTO tickets (id, title, status, company_id) VALUES (31, 'hidden', 1, 2), (32, 'gone', 1, 1)");
  sql("UPDATE tickets SET deleted_at = now() WHERE id = 32");
  // Each ticket an older analysis and a newer one; ticket 30's newer one has no completion time,
  // so its completed one is its latest; ticket 29's two tie on the instant (the larger id wins).
  sql("INSERT INTO analyses (ticket_id, status, summary, completed_at, review_reasons, traces) "
      "SELECT n, 'succeeded', 'old ' || n, '2026-11-01T00:00Z'::timestamptz + make_interval(hours => n), "
      "'[\"secret reason\"]', '[\"trace\"]' FROM generate_series(1, 32) n");
  sql("INSERT INTO analyses (ticket_id, status, summary, completed_at) SELECT n, 'succeeded', 'new ' || n, "
      "CASE WHEN n = 30 THEN NULL WHEN n = 29 THEN '2026-11-01T00:00Z'::timestamptz + make_interval(hours => n) "
      "ELSE '2026-11-20T00:00Z'::timestamptz + make_interval(hours => n) END FROM generate_series(1, 32) n");
  start_signed_in();

  const json first = page("/api/mobile/analyzer/feed");
  const json items = first["items"];
  ASSERT_EQ(items.size(), 25u);
  EXPECT_TRUE(first["hasMore"]);
  const json row = items[0];
  std::set<std::string> keys;
  for (const auto& [k, v] : row.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"id", "ticketId", "ticketNumber", "ticketTitle", "companyId", "companyName",
                                         "status", "category", "urgency", "summary", "needsReview", "completedAt"}));
  EXPECT_EQ(row["ticketId"], 28);  // the newest completion
  EXPECT_EQ(row["summary"], "new 28");
  EXPECT_EQ(first.dump().find("secret reason"), std::string::npos);

  std::vector<std::int64_t> tickets;
  std::string cursor;
  for (int n = 0; n < 5; ++n) {
    const json p = page("/api/mobile/analyzer/feed" + (cursor.empty() ? "" : "?cursor=" + cursor));
    const json rows = p["items"];
    for (const auto& r : rows) tickets.push_back(r["ticketId"]);
    if (!p["hasMore"].get<bool>()) break;
    cursor = p["nextCursor"];
  }
  ASSERT_EQ(tickets.size(), 30u);  // one per shown ticket: not 31 (hidden) nor 32 (deleted)
  std::vector<std::int64_t> expected;
  for (std::int64_t n = 28; n >= 1; --n) expected.push_back(n);
  expected.insert(expected.end(), {30, 29});  // their latest: 2 November 06:00 and 05:00
  EXPECT_EQ(tickets, expected);
  EXPECT_EQ(page("/api/mobile/analyzer/feed?limit=26")["items"].size(), 25u);
  EXPECT_EQ(page("/api/mobile/analyzer/feed?cursor=e30", 400)["errors"][0]["field"], "cursor");  // "{}"
}

}  // namespace

// The kiosk wall (GET /api/kiosk/wall): the kiosk display settings' companies only, today in the
// user's zone; a wall display's account reads it and /api/auth/me, and is refused everything else.
TEST_F(MobileTest, TheKioskWallCountsTheKioskCompaniesAndAWallAccountReadsNothingElse) {
  seed_companies();
  sql("UPDATE display_settings SET value = '[3]' WHERE key = 'kiosk_excluded_company_ids'");
  sql("UPDATE display_settings SET value = '[10]' WHERE key = 'kiosk_included_classification_ids'");
  // company 1 (shown): an overdue open ticket, an open one not due, one resolved today, one opened
  // today; every other company an overdue open ticket, which the wall leaves out
  sql("INSERT INTO tickets (id, ticket_number, title, status, priority, company_id, create_date, due_date_time, "
      "completed_date) VALUES "
      "(1, 'T1', 'Overdue', 1, 2, 1, '2026-11-20T09:00Z', '2026-11-22T09:00Z', NULL), "
      "(2, 'T2', 'Not due', 1, 3, 1, '2026-11-21T09:00Z', '2026-11-30T09:00Z', NULL), "
      "(3, 'T3', 'Resolved today', 5, 3, 1, '2026-11-22T09:00Z', NULL, '2026-11-23T09:00Z'), "
      "(4, 'T4', 'Opened today', 8, 3, 1, '2026-11-23T08:00Z', NULL, NULL)");
  for (int c = 2; c <= 5; ++c)
    sql("INSERT INTO tickets (id, title, status, company_id, create_date, due_date_time) VALUES (" +
        std::to_string(10 + c) + ", 'Elsewhere', 1, " + std::to_string(c) +
        ", '2026-11-20T09:00Z', '2026-11-22T09:00Z')");
  add_user("wall@msp.example", kPassword);
  sql("UPDATE users SET kiosk = true WHERE email = 'wall@msp.example'");
  start_signed_in();

  const json wall = page("/api/kiosk/wall");
  EXPECT_EQ(wall["date"], "2026-11-23");
  EXPECT_EQ(wall["companies"], 1);
  EXPECT_EQ(wall["kpis"], json({{"openTickets", 3}, {"slaBreaches", 1}, {"openedToday", 1}, {"resolvedToday", 1}}));
  ASSERT_EQ(wall["needsAttention"].size(), 1u);
  EXPECT_EQ(wall["needsAttention"][0]["ticketNumber"], "T1");
  EXPECT_EQ(wall["needsAttention"][0]["companyName"], "Shown");
  EXPECT_EQ(wall["workers"].size(), 3u);
  EXPECT_FALSE(wall["workers"][0].contains("activity24h"));

  const std::string wall_token = sign_in("wall@msp.example", kPassword);
  const auto seen = call("GET", "/api/kiosk/wall", nullptr, wall_token);
  ASSERT_EQ(seen.status, 200u) << seen.body;
  EXPECT_EQ(seen.json()["kpis"], wall["kpis"]);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, wall_token).json()["kiosk"], true);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, token).json()["kiosk"], false);
  for (const std::string path : {"/api/mobile/dashboard", "/api/dashboard/overview", "/api/mobile/tickets"}) {
    const auto refused = call("GET", path, nullptr, wall_token);
    EXPECT_EQ(refused.status, 403u) << path;
    EXPECT_NE(refused.body.find("kiosk view only"), std::string::npos) << refused.body;
  }
  EXPECT_EQ(call("GET", "/api/kiosk/wall").status, 401u);
}
