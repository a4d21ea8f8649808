// GET /api/v1/analysis/senders (spec: "Analysis", "Sender statistic", "Limits"; issue 3).
#include "mail_triage/tests/api_test.hpp"

using namespace core::testing;
using nlohmann::json;

namespace {

struct AnalysisTest : mail_triage::testing::ApiTest {
  // `count` messages from `sender`, received at `first`, first + 1 day, ... (SQL timestamps).
  void add(const std::string& sender, int count, const std::string& first = "2026-01-10 08:00:00+00") {
    static int batch = 0;
    ++batch;
    sql("INSERT INTO email_log (mailbox, message_id, sender_address, received_at) "
        "SELECT 'inbox@msp.example', 'b" +
        std::to_string(batch) + "-' || g, '" + sender +
        "', "
        "timestamptz '" +
        first + "' + (g - 1) * interval '1 day' FROM generate_series(1, " + std::to_string(count) + ") g");
  }
  json items() {
    const auto res = call("GET", "/api/v1/analysis/senders");
    EXPECT_EQ(res.status, 200u) << res.body;
    return res.json()["items"];
  }
  std::vector<std::string> order() {
    std::vector<std::string> out;
    const auto list = items();
    for (const auto& s : list)
      out.push_back(s["sender_address"].get<std::string>() + ":" + std::to_string(s["count"].get<int>()));
    return out;
  }
};

using Order = std::vector<std::string>;

}  // namespace

TEST_F(AnalysisTest, EmptyLogGivesNoSenders) { EXPECT_EQ(items(), json::array()); }

TEST_F(AnalysisTest, CountsFirstAndLastSeenPerSender) {
  add("news@shop.example", 3, "2026-03-01 09:15:00+00");
  add("ceo@client.example", 1, "2026-02-01 12:00:00+02");
  const auto list = items();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], (json{{"sender_address", "news@shop.example"},
                           {"count", 3},
                           {"first_seen", "2026-03-01T09:15:00+00:00"},
                           {"last_seen", "2026-03-03T09:15:00+00:00"}}));
  EXPECT_EQ(list[1]["first_seen"], "2026-02-01T10:00:00+00:00");  // ISO 8601 with UTC offset
  EXPECT_EQ(list[1]["last_seen"], list[1]["first_seen"]);
}

TEST_F(AnalysisTest, HighestVolumeFirstTiesByAddress) {
  add("b@x.example", 2);
  add("c@x.example", 5);
  add("a@x.example", 2);
  add("d@x.example", 1);
  EXPECT_EQ(order(), (Order{"c@x.example:5", "a@x.example:2", "b@x.example:2", "d@x.example:1"}));
}

TEST_F(AnalysisTest, OnlyThe200HighestVolumeSendersAreReturned) {
  // 250 senders: s000 sends 250 messages, s001 249, ... s249 one; plus a tie at the cut.
  sql("INSERT INTO email_log (mailbox, message_id, sender_address, received_at) "
      "SELECT 'inbox@msp.example', 'm' || s || '-' || g, 's' || lpad(s::text, 3, '0') || '@x.example', "
      "now() - g * interval '1 minute' FROM generate_series(0, 249) s, generate_series(1, 250 - s) g");
  add("r199@x.example", 51);  // ties with s199 (51 messages): the address decides
  const auto list = items();
  ASSERT_EQ(list.size(), 200u);
  EXPECT_EQ(list[0]["sender_address"], "s000@x.example");
  EXPECT_EQ(list[0]["count"], 250);
  EXPECT_EQ(list[198]["sender_address"], "s198@x.example");
  EXPECT_EQ(list[199]["sender_address"], "r199@x.example");  // "r" < "s": s199 falls off
  EXPECT_EQ(list[199]["count"], 51);
}

TEST_F(AnalysisTest, StatisticsFollowDeletesAndMovedMessages) {
  add("a@x.example", 3, "2026-01-01 00:00:00+00");  // Jan 1, 2, 3
  add("b@x.example", 1, "2026-05-01 00:00:00+00");
  sql("DELETE FROM email_log WHERE sender_address = 'a@x.example' AND received_at = '2026-01-01 00:00:00+00'");
  auto list = items();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["count"], 2);
  EXPECT_EQ(list[0]["first_seen"], "2026-01-02T00:00:00+00:00");

  sql("UPDATE email_log SET received_at = '2026-06-01 00:00:00+00' WHERE sender_address = 'b@x.example'");
  sql("UPDATE email_log SET sender_address = 'b@x.example' WHERE received_at = '2026-01-03 00:00:00+00'");
  EXPECT_EQ(order(), (Order{"b@x.example:2", "a@x.example:1"}));
  list = items();
  EXPECT_EQ(list[0]["first_seen"], "2026-01-03T00:00:00+00:00");
  EXPECT_EQ(list[0]["last_seen"], "2026-06-01T00:00:00+00:00");
  EXPECT_EQ(list[1]["last_seen"], "2026-01-02T00:00:00+00:00");

  sql("DELETE FROM email_log WHERE sender_address = 'a@x.example'");
  EXPECT_EQ(order(), (Order{"b@x.example:2"}));
  // The maintained statistics equal a full recomputation.
  EXPECT_EQ(sql("SELECT count(*) FROM (SELECT sender_address, count(*), min(received_at), max(received_at) "
                "FROM email_log GROUP BY 1 EXCEPT SELECT * FROM sender_stats) d"),
            "0");
}

TEST_F(AnalysisTest, NeedsTheBearerKey) { EXPECT_EQ(http(svc.port(), "GET", "/api/v1/analysis/senders").status, 401u); }
