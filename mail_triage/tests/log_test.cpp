// GET /api/v1/log and GET /api/v1/log/{entry_id} (spec: "Email log"; issue 3).
#include "mail_triage/api/log.hpp"
#include "mail_triage/tests/api_test.hpp"

#include "core/db/statement.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <thread>

using namespace core::testing;

namespace {

struct LogTest : mail_triage::testing::ApiTest {
  // A row received `minutes_ago` minutes ago.
  std::string add(const std::string& sender, const std::string& subject, int minutes_ago,
                  const std::string& status = "completed", const std::string& type = "unknown",
                  const std::string& label = "newsletter") {
    static int n = 0;
    return sql(
        "INSERT INTO email_log (mailbox, message_id, sender_address, subject, received_at, status, "
        "sender_type, llm_classification, llm_confidence) VALUES ('inbox@msp.example', 'm" +
        std::to_string(++n) + "', '" + sender + "', '" + subject + "', now() - interval '" +
        std::to_string(minutes_ago) + " minutes', '" + status + "', '" + type + "', '" + label +
        "', 0.9) RETURNING id");
  }

  nlohmann::json list(const std::string& query = "") {
    const auto res = call("GET", "/api/v1/log" + query);
    EXPECT_EQ(res.status, 200u) << query << ": " << res.body;
    return res.json();
  }

  std::vector<std::string> subjects(const std::string& query) {
    std::vector<std::string> out;
    const auto body = list(query);  // not a range-for over a temporary's member
    for (const auto& item : body["items"]) out.push_back(item["subject"]);
    return out;
  }

  void expect_400_naming(const std::string& query, const std::string& field) {
    const auto res = call("GET", "/api/v1/log" + query);
    EXPECT_EQ(res.status, 400u) << query;
    EXPECT_EQ(res.header("content-type"), "application/problem+json");
    ASSERT_TRUE(res.json().contains("errors")) << res.body;
    EXPECT_EQ(res.json()["errors"][0]["field"], field) << query;
  }
};

using Subjects = std::vector<std::string>;

}  // namespace

TEST_F(LogTest, EmptyLog) { EXPECT_EQ(list(), (nlohmann::json{{"total", 0}, {"items", nlohmann::json::array()}})); }

TEST_F(LogTest, NewestFirstWithTotalAndTheWholeEntry) {
  add("old@x.example", "old", 30);
  add("new@x.example", "new", 1);
  add("mid@x.example", "mid", 10);
  const auto body = list();
  EXPECT_EQ(body["total"], 3);
  EXPECT_EQ(subjects(""), (Subjects{"new", "mid", "old"}));
  const auto& first = body["items"][0];
  for (const char* field : {"id", "sender_address", "subject", "llm_classification", "llm_confidence", "final_action",
                            "status", "sender_type", "mailbox", "received_at"})
    EXPECT_TRUE(first.contains(field)) << field;
  EXPECT_TRUE(first["received_at"].get<std::string>().ends_with("+00:00")) << first["received_at"];
  EXPECT_DOUBLE_EQ(first["llm_confidence"].get<double>(), 0.9);
}

TEST_F(LogTest, FiltersAloneAndCombined) {
  add("a@customer.example", "invoice", 1, "completed", "customer", "billing");
  add("b@vendor.example", "renewal", 2, "failed", "vendor", "billing");
  add("c@else.example", "hello", 3, "skipped", "whitelist", "personal");
  add("d@customer.example", "outage", 4, "failed", "customer", "support");
  EXPECT_EQ(subjects("?status=failed"), (Subjects{"renewal", "outage"}));
  EXPECT_EQ(subjects("?sender_type=customer"), (Subjects{"invoice", "outage"}));
  EXPECT_EQ(subjects("?classification=billing"), (Subjects{"invoice", "renewal"}));
  EXPECT_EQ(subjects("?status=failed&sender_type=customer"), (Subjects{"outage"}));
  EXPECT_EQ(subjects("?classification=billing&status=completed&sender_type=customer"), (Subjects{"invoice"}));
  EXPECT_EQ(list("?status=failed&classification=personal")["total"], 0);
}

// Totals without `q` come from counts kept by triggers (migration 0009): after inserts, status
// moves, reclassification, deletes and a truncate, every filter's total still equals count(*).
TEST_F(LogTest, TotalsFollowEveryKindOfWrite) {
  add("a@customer.example", "one", 1, "pending", "customer", "billing");
  add("b@vendor.example", "two", 2, "pending", "vendor", "billing");
  add("c@vendor.example", "three", 3, "completed", "vendor", "support");
  sql("UPDATE email_log SET llm_classification = NULL WHERE subject = 'three'");
  auto expect_totals_match = [&](const std::string& when) {
    for (const std::string status : {"", "pending", "processing", "completed", "failed"})
      for (const std::string type : {"", "customer", "vendor"})
        for (const std::string label : {"", "billing", "support"}) {
          std::string query = "?limit=1", where = "true";
          if (!status.empty()) query += "&status=" + status, where += " AND status = '" + status + "'";
          if (!type.empty()) query += "&sender_type=" + type, where += " AND sender_type = '" + type + "'";
          if (!label.empty()) query += "&classification=" + label, where += " AND llm_classification = '" + label + "'";
          EXPECT_EQ(std::to_string(list(query)["total"].get<int>()),
                    sql("SELECT count(*) FROM email_log WHERE " + where))
              << when << " " << query;
        }
  };
  expect_totals_match("after inserts");
  sql("UPDATE email_log SET status = 'processing' WHERE status = 'pending'");
  sql("UPDATE email_log SET status = 'completed', llm_classification = 'support' WHERE subject = 'one'");
  sql("UPDATE email_log SET sender_type = 'customer' WHERE subject = 'two'");
  expect_totals_match("after updates");
  sql("DELETE FROM email_log WHERE subject = 'two'");
  expect_totals_match("after a delete");
  sql("TRUNCATE email_log");
  expect_totals_match("after a truncate");
  EXPECT_EQ(list()["total"], 0);
}

TEST_F(LogTest, QCombinesWithTheOtherFilters) {
  add("alerts@monitoring.example", "Disk full", 1, "completed", "vendor", "notification");
  add("alerts@monitoring.example", "Disk fine", 2, "skipped", "vendor", "notification");
  add("bob@client.example", "Disk full again", 3, "completed", "customer", "support");
  EXPECT_EQ(subjects("?q=disk&status=completed"), (Subjects{"Disk full", "Disk full again"}));
  EXPECT_EQ(subjects("?q=alerts&status=completed&sender_type=vendor&classification=notification"),
            (Subjects{"Disk full"}));
  EXPECT_EQ(list("?q=disk&status=completed&limit=1")["total"], 2);
}

TEST_F(LogTest, QSearchesAddressAndSubjectCaseInsensitively) {
  add("alerts@monitoring.example", "Disk full", 1);
  add("bob@client.example", "Re: ALERTS config", 2);
  add("carol@client.example", "lunch", 3);
  EXPECT_EQ(subjects("?q=ALERTS"), (Subjects{"Disk full", "Re: ALERTS config"}));
  EXPECT_EQ(subjects("?q=Client.Example"), (Subjects{"Re: ALERTS config", "lunch"}));
  EXPECT_EQ(subjects("?q=disk%20FULL"), (Subjects{"Disk full"}));
  EXPECT_EQ(list("?q=nothing-like-this")["total"], 0);
}

TEST_F(LogTest, QMatchesLikeMetacharactersLiterally) {
  add("x@y.example", "100% done", 1);
  add("x@y.example", "1000 done", 2);
  add("x@y.example", "a_b", 3);
  add("x@y.example", "axb", 4);
  add("x@y.example", "back\\slash", 5);
  add("x@y.example", "backslash", 6);
  EXPECT_EQ(subjects("?q=100%25"), (Subjects{"100% done"}));
  EXPECT_EQ(subjects("?q=a_b"), (Subjects{"a_b"}));
  EXPECT_EQ(subjects("?q=k%5Cs"), (Subjects{"back\\slash"}));
  EXPECT_EQ(core::db::substring_pattern("5%_\\"), "%5\\%\\_\\\\%");
}

TEST_F(LogTest, PagingAndItsEdges) {
  for (int i = 0; i < 5; ++i) add("p@x.example", "s" + std::to_string(i), i);
  EXPECT_EQ(subjects("?limit=2"), (Subjects{"s0", "s1"}));
  EXPECT_EQ(subjects("?limit=2&offset=2"), (Subjects{"s2", "s3"}));
  const auto past = list("?offset=10");
  EXPECT_EQ(past["total"], 5);
  EXPECT_TRUE(past["items"].empty());
  EXPECT_EQ(list("?limit=200")["items"].size(), 5u);
  EXPECT_EQ(list()["items"].size(), 5u);  // default 50
}

TEST_F(LogTest, DefaultPageIsFifty) {
  sql("INSERT INTO email_log (mailbox, message_id, sender_address, received_at) "
      "SELECT 'inbox@msp.example', 'bulk' || g, 's@x.example', now() - g * interval '1 second' "
      "FROM generate_series(1, 60) g");
  const auto body = list();
  EXPECT_EQ(body["total"], 60);
  EXPECT_EQ(body["items"].size(), 50u);
}

TEST_F(LogTest, InvalidFiltersAre400NamingTheParameter) {
  expect_400_naming("?status=done", "status");
  expect_400_naming("?sender_type=partner", "sender_type");
  expect_400_naming("?limit=0", "limit");
  expect_400_naming("?limit=201", "limit");
  expect_400_naming("?limit=ten", "limit");
  expect_400_naming("?offset=-1", "offset");
  expect_400_naming("?offset=1.5", "offset");
  expect_400_naming("?q=", "q");
  const auto both = call("GET", "/api/v1/log?limit=0&status=x");
  EXPECT_EQ(both.json()["errors"].size(), 2u);
}

TEST_F(LogTest, OneEntry) {
  const auto id = add("one@x.example", "the one", 1, "failed");
  const auto res = call("GET", "/api/v1/log/" + id);
  ASSERT_EQ(res.status, 200u);
  EXPECT_EQ(res.json()["id"], id);
  EXPECT_EQ(res.json()["subject"], "the one");
  EXPECT_EQ(res.json()["status"], "failed");

  const auto malformed = call("GET", "/api/v1/log/not-a-uuid");
  EXPECT_EQ(malformed.status, 400u);
  EXPECT_EQ(malformed.json()["errors"][0]["field"], "entry_id");

  const auto unknown = call("GET", "/api/v1/log/123e4567-e89b-12d3-a456-426614174000");
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_EQ(unknown.header("content-type"), "application/problem+json");

  // A UUID is the same in capitals (the lookup matches ids as the database writes them).
  std::string upper = id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto capitals = call("GET", "/api/v1/log/" + upper);
  ASSERT_EQ(capitals.status, 200u) << capitals.body;
  EXPECT_EQ(capitals.json()["id"], id);
}

// Concurrent reads share statements (core/async/batcher.hpp): each still gets its own entry,
// or its 404, whichever batch it rode in.
TEST_F(LogTest, ConcurrentReadsEachGetTheirOwnEntry) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(add("s" + std::to_string(i) + "@x.example", "subject " + std::to_string(i), i));
  ids.push_back("123e4567-e89b-12d3-a456-426614174000");  // no such entry
  std::vector<std::thread> readers;
  std::atomic<int> wrong = 0, read = 0;
  for (int t = 0; t < 8; ++t)
    readers.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        const std::size_t which = (t + i) % ids.size();
        const auto res = call("GET", "/api/v1/log/" + ids[which]);
        const bool right = which + 1 == ids.size() ? res.status == 404u
                                                   : res.status == 200u && res.json()["id"] == ids[which] &&
                                                         res.json()["subject"] == "subject " + std::to_string(which);
        if (!right) ++wrong;
        ++read;
      }
    });
  for (auto& r : readers) r.join();
  EXPECT_EQ(read, 240);
  EXPECT_EQ(wrong, 0);
}

// email_log_json() (migration 0013) renders a row of a type of its own, built field by field in
// order: every column of the entry, each value under its own name (a field out of order in the
// type or the row would show a value under a neighbour's name). Every field here holds a value no
// other holds. The entry shows every column of email_log; one added but not shown fails here.
TEST_F(LogTest, OneEntryShowsEveryFieldUnderItsOwnName) {
  const auto id =
      sql("INSERT INTO email_log (mailbox, message_id, internet_message_id, sender_address, sender_name, sender_type, "
          "subject, received_at, status, llm_classification, llm_confidence, llm_reasoning, llm_model, "
          "llm_prompt_tokens, llm_completion_tokens, final_action, dry_run, error, run_id, processed_at, created_at, "
          "updated_at) VALUES ('box@msp.example', 'graph-id', '<imid@x.example>', 'who@x.example', 'Who', 'vendor', "
          "'the subject', now() - interval '5 minutes', 'completed', 'billing', 0.25, 'because', 'model-x', 11, 7, "
          "'archive', true, 'an error', gen_random_uuid(), now() - interval '4 minutes', now() - interval '3 minutes', "
          "now() - interval '2 minutes') RETURNING id");
  const auto res = call("GET", "/api/v1/log/" + id);
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto row = nlohmann::json::parse(sql("SELECT to_jsonb(e)::text FROM email_log e WHERE e.id = '" + id + "'"));
  EXPECT_EQ(res.json(), row);
  EXPECT_EQ(list()["items"][0], row) << "the list renders the entry the same way";
}

// Reads that queue behind one the database does not answer keep their own bound
// (docs/guarantees.md: a 503 within DB_REQUEST_TIMEOUT_MS and its grace): each is answered when
// its own time has run out, not after the batch before it has used up its time and then its own
// batch another. Four reads at once while the database hangs: one leads, the others queue. (The
// rule itself is core::async::Batcher's, and its tests'.) Without pipelines, the lead's statement
// fails only once its cancel's grace has passed too, by when the others' bound has surely passed:
// in a pipeline it would fail at the sweep after its bound, and a read that came a few
// milliseconds after it could still have that much left, and send a statement of its own.
TEST(LogReads, ReadsQueuedBehindAHungOneAnswerWithinTheirOwnBound) {
  core::testing::TempCluster cluster;
  core::testing::sql(cluster.url(), "CREATE DATABASE svc");
  core::testing::RunningService svc(mail_triage::definition(), cluster.url("svc"),
                                    {{"API_KEYS", "k"}, {"DB_REQUEST_TIMEOUT_MS", "1000"}, {"DB_PIPELINES", "0"}});
  const std::string target = "/api/v1/log/123e4567-e89b-12d3-a456-426614174000";
  const auto read = [&] { return core::testing::http(svc.port(), "GET", target, {}, {{"Authorization", "Bearer k"}}); };
  ASSERT_EQ(read().status, 404u);

  const auto statements_before = svc.service().db().stats().acquires;
  cluster.freeze();
  const auto reads = core::testing::at_once(4, [&](int) { return read(); });
  const auto statements = svc.service().db().stats().acquires - statements_before;
  cluster.thaw();
  // The reads that queued had no time left once the batch before them failed: no statement of
  // their own (without that rule, a second one ran and took its own bound again).
  EXPECT_EQ(statements, 1u);
  for (std::size_t i = 0; i < reads.size(); ++i) {
    EXPECT_EQ(reads[i].response.status, 503u) << i;
    // 1 s bound + 1 s grace + the sweeper's 0.1 s, as the service contract's hung read; a read
    // that waited for the batch before it and then ran its own took 4 s and more.
    EXPECT_LT(reads[i].took, std::chrono::milliseconds(3500)) << i;
  }
  EXPECT_EQ(read().status, 404u) << "once the database answers, so do the reads";
}
