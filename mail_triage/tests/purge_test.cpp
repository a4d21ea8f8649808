// POST /api/v1/purge/execute end to end: the service against the Graph fake (in-process sandbox)
// and a real PostgreSQL database.
#include "core/util/strings.hpp"
#include "mail_triage/tests/sandbox_fixture.hpp"

#include <future>
#include <set>

namespace {

using core::testing::HttpResponse;
using mail_triage::testing::kMailbox;
using nlohmann::json;

struct PurgeTest : mail_triage::testing::SandboxTest {
  // A message `days_ago` days old (and an hour, so it is clearly past a threshold of that many days).
  std::string old(const std::string& from, const std::string& subject, int days_ago, std::string folder = "inbox",
                  const std::string& mailbox = kMailbox) {
    sandbox::FakeMessage m;
    m.subject = subject;
    m.from_address = from;
    m.folder = std::move(folder);
    m.is_read = true;
    m.received_at = core::now() - std::chrono::days(days_ago) - std::chrono::hours(1);
    return fakes.graph().add_message(mailbox, std::move(m));
  }
  HttpResponse purge(const json& body) { return post("/api/v1/purge/execute", body.dump()); }
  std::set<std::string> ids(const std::vector<sandbox::FakeMessage>& messages) {
    std::set<std::string> out;
    for (const auto& m : messages) out.insert(m.id);
    return out;
  }
  std::set<std::string> remaining() { return ids(fakes.graph().messages(kMailbox)); }
};

}  // namespace

TEST_F(PurgeTest, PreviewListsASendersOldMailInEveryFolderButDeletedItemsAndDeletesNothing) {
  fakes.graph().create_mailbox(kMailbox);
  old("news@example.com", "October news", 40);
  old("news@example.com", "September news", 70, "archive");
  old("News@Example.com", "August news", 100, "junkemail");
  old("news@example.com", "Already binned", 100, "deleteditems");  // Deleted Items is left alone
  old("news@example.com", "Recent news", 10);                      // newer than the threshold
  old("other@example.com", "Someone else", 100);                   // another sender
  const auto before = remaining();
  start();

  const auto res = purge({{"mode", "preview"}, {"sender", "News@Example.com"}, {"days", 30}});
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json(), json::parse(R"j({
    "mode": "preview", "total": 3,
    "rows": [{"address": "news@example.com", "label": "news@example.com (>30d)", "count": 3,
              "subjects": ["October news", "September news", "August news"]}]})j"));
  EXPECT_EQ(remaining(), before);
  EXPECT_TRUE(fakes.graph().deleted(kMailbox).empty());
  EXPECT_EQ(sql("SELECT count(*) FROM purge_deletions"), "0");
}

TEST_F(PurgeTest, ExecuteDeletesExactlyThePreviewedMessagesAndAuditsEachDeletion) {
  fakes.graph().create_mailbox(kMailbox);
  const std::set<std::string> expected = {old("promo@shop.example", "Black Friday", 400),
                                          old("promo@shop.example", "Summer sale", 200, "archive"),
                                          old("promo@shop.example", "Spring sale", 100)};
  old("promo@shop.example", "This week's offer", 3);
  old("ceo@contoso.example", "Board minutes", 400);
  start();

  const auto preview = purge({{"mode", "preview"}, {"sender", "promo@shop.example"}, {"days", 90}});
  ASSERT_EQ(preview.status, 200u) << preview.body;
  EXPECT_EQ(preview.json()["total"], 3);

  const auto executed = purge({{"mode", "execute"}, {"sender", "promo@shop.example"}, {"days", 90}});
  ASSERT_EQ(executed.status, 200u) << executed.body;
  EXPECT_EQ(executed.json()["mode"], "execute");
  EXPECT_EQ(executed.json()["total"], 3);
  EXPECT_EQ(executed.json()["rows"], preview.json()["rows"]);  // the same count, label and subjects
  EXPECT_EQ(ids(fakes.graph().deleted(kMailbox)), expected);
  EXPECT_EQ(remaining().size(), 2u);

  // one audit row per deletion, with the message's id, sender, subject and times
  EXPECT_EQ(sql("SELECT string_agg(concat_ws('|', mailbox, sender_address, subject, status, older_than_days, "
                "purge_rule_id IS NULL, deleted_at IS NOT NULL, received_at < now() - interval '90 days'), ',' "
                "ORDER BY received_at) FROM purge_deletions"),
            "inbox@msp.example|promo@shop.example|Black Friday|deleted|90|t|t|t,"
            "inbox@msp.example|promo@shop.example|Summer sale|deleted|90|t|t|t,"
            "inbox@msp.example|promo@shop.example|Spring sale|deleted|90|t|t|t");
  std::set<std::string> audited;
  const std::string audit = sql("SELECT string_agg(message_id, ' ') FROM purge_deletions");
  for (const auto id : core::split(audit, ' ')) audited.insert(std::string(id));
  EXPECT_EQ(audited, expected);
  EXPECT_EQ(sql("SELECT count(DISTINCT run_id) FROM purge_deletions"), "1");

  // nothing is left to purge
  EXPECT_EQ(purge({{"mode", "preview"}, {"sender", "promo@shop.example"}, {"days", 90}}).json()["total"], 0);
}

TEST_F(PurgeTest, WithoutASenderEveryActivePurgeRuleAppliesWithItsOwnThreshold) {
  const std::string second = "support@msp.example";
  fakes.graph().create_mailbox(kMailbox);
  fakes.graph().create_mailbox(second);
  sql("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('alerts@rmm.example', 7), "
      "('news@example.com', 30), ('gone@example.com', 1)");
  sql("UPDATE purge_rules SET is_active = false WHERE email_address = 'gone@example.com'");
  old("alerts@rmm.example", "Disk low", 10);
  old("alerts@rmm.example", "Disk low", 9, "inbox", second);
  old("alerts@rmm.example", "CPU high", 8);
  old("alerts@rmm.example", "Backup ok", 2);  // within 7 days
  old("news@example.com", "Newsletter", 20);  // within 30 days
  old("gone@example.com", "Inactive rule", 100);
  start({{"GRAPH_MAILBOX", std::string(kMailbox) + "," + second}});

  const auto res = purge({{"mode", "preview"}, {"sender", nullptr}, {"days", 1}});  // days is ignored
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json(), json::parse(R"j({
    "mode": "preview", "total": 3,
    "rows": [{"address": "alerts@rmm.example", "label": "alerts@rmm.example (>7d)", "count": 3,
              "subjects": ["CPU high", "Disk low"]},
             {"address": "news@example.com", "label": "news@example.com (>30d)", "count": 0, "subjects": []}]})j"));

  // sender may also be left out; execute then deletes in both mailboxes and records the rule
  const auto executed = purge({{"mode", "execute"}});
  ASSERT_EQ(executed.status, 200u) << executed.body;
  EXPECT_EQ(executed.json()["total"], 3);
  EXPECT_EQ(fakes.graph().deleted(kMailbox).size(), 2u);
  EXPECT_EQ(fakes.graph().deleted(second).size(), 1u);
  EXPECT_EQ(sql("SELECT count(*) FROM purge_deletions d JOIN purge_rules r ON r.id = d.purge_rule_id "
                "WHERE r.email_address = 'alerts@rmm.example' AND d.older_than_days = 7 AND d.status = 'deleted'"),
            "3");
}

TEST_F(PurgeTest, WhitelistedSendersAreNeverPurged) {
  fakes.graph().create_mailbox(kMailbox);
  sql("INSERT INTO whitelist (email_address) VALUES ('boss@contoso.example')");
  sql("INSERT INTO whitelist (domain) VALUES ('partner.example')");
  sql("INSERT INTO whitelist (email_address, expires_at) VALUES ('was@friend.example', now() - interval '1 day')");
  sql("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('news@partner.example', 30), "
      "('was@friend.example', 30)");
  const auto boss = old("boss@contoso.example", "Quarterly plan", 400);
  const auto partner = old("news@partner.example", "Partner news", 400);
  const auto expired = old("was@friend.example", "Old friend", 400);  // the whitelist entry has expired
  start();

  const auto one = purge({{"mode", "execute"}, {"sender", "boss@contoso.example"}, {"days", 30}});
  ASSERT_EQ(one.status, 200u) << one.body;
  EXPECT_EQ(one.json(), json::parse(R"j({"mode": "execute", "total": 0, "rows": [],
    "excluded": [{"address": "boss@contoso.example", "reason": "whitelisted"}]})j"));

  const auto rules = purge({{"mode", "execute"}, {"sender", nullptr}});
  ASSERT_EQ(rules.status, 200u) << rules.body;
  EXPECT_EQ(rules.json()["total"], 1);
  EXPECT_EQ(rules.json()["rows"][0]["address"], "was@friend.example");
  EXPECT_EQ(rules.json()["excluded"], json::parse(R"([{"address": "news@partner.example", "reason": "whitelisted"}])"));
  EXPECT_EQ(ids(fakes.graph().deleted(kMailbox)), std::set<std::string>{expired});
  EXPECT_TRUE(remaining().contains(boss));
  EXPECT_TRUE(remaining().contains(partner));
}

TEST_F(PurgeTest, AtMostTenDistinctSubjectsPerRowNewestFirst) {
  fakes.graph().create_mailbox(kMailbox);
  for (int i = 1; i <= 12; ++i) old("digest@example.com", "Digest #" + std::to_string(i), 100 - i);
  old("digest@example.com", "Digest #12", 30);  // a repeated subject is listed once
  start();
  const auto res = purge({{"mode", "preview"}, {"sender", "digest@example.com"}, {"days", 20}});
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto row = res.json()["rows"][0];
  EXPECT_EQ(row["count"], 13);
  ASSERT_EQ(row["subjects"].size(), 10u);
  EXPECT_EQ(row["subjects"][0], "Digest #12");
  EXPECT_EQ(row["subjects"][9], "Digest #3");
}

TEST_F(PurgeTest, BadRequestsAreRefusedNamingTheFieldAndDeleteNothing) {
  fakes.graph().create_mailbox(kMailbox);
  sql("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('news@example.com', 30)");
  old("news@example.com", "October news", 400);
  start();
  const auto field_of = [](const HttpResponse& r) { return r.json()["errors"][0]["field"].get<std::string>(); };
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"sender", nullptr}}, "mode"},
      {{{"mode", "delete"}, {"sender", nullptr}}, "mode"},
      {{{"mode", "EXECUTE"}, {"sender", nullptr}}, "mode"},
      {{{"mode", 1}, {"sender", nullptr}}, "mode"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}}, "days"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}, {"days", nullptr}}, "days"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}, {"days", 0}}, "days"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}, {"days", 3651}}, "days"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}, {"days", "30"}}, "days"},
      {{{"mode", "execute"}, {"sender", "news@example.com"}, {"days", 30.5}}, "days"},
      {{{"mode", "execute"}, {"sender", "not an address"}, {"days", 30}}, "sender"},
      {{{"mode", "execute"}, {"sender", 42}, {"days", 30}}, "sender"},
  };
  for (const auto& [body, field] : cases) {
    const auto res = purge(body);
    EXPECT_EQ(res.status, 400u) << body.dump() << " → " << res.body;
    EXPECT_EQ(res.header("content-type"), "application/problem+json") << body.dump();
    EXPECT_EQ(field_of(res), field) << body.dump() << " → " << res.body;
  }
  const auto not_json = post("/api/v1/purge/execute", "{mode: execute");
  EXPECT_EQ(not_json.status, 400u);
  const auto not_object = post("/api/v1/purge/execute", "[]");
  EXPECT_EQ(not_object.status, 400u);
  EXPECT_TRUE(fakes.graph().deleted(kMailbox).empty());
  EXPECT_EQ(sql("SELECT count(*) FROM purge_deletions"), "0");

  // the limits themselves are accepted
  EXPECT_EQ(purge({{"mode", "preview"}, {"sender", "news@example.com"}, {"days", 1}}).status, 200u);
  EXPECT_EQ(purge({{"mode", "preview"}, {"sender", "news@example.com"}, {"days", 3650}}).status, 200u);
}

TEST_F(PurgeTest, ADeletionThePlatformRefusesIsAFailedAuditRowAndTheRestGoOn) {
  fakes.graph().create_mailbox(kMailbox);
  for (int i = 0; i < 4; ++i) old("promo@shop.example", "Offer " + std::to_string(i), 100 + i);
  start();
  fakes.graph().set_faults({.server_errors = 1, .status = 500, .method = "DELETE"});
  const auto res = purge({{"mode", "execute"}, {"sender", "promo@shop.example"}, {"days", 30}});
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["total"], 3);
  ASSERT_EQ(res.json()["errors"].size(), 1u);
  const auto error = res.json()["errors"][0];
  EXPECT_EQ(error["address"], "promo@shop.example");
  EXPECT_NE(error["error"].get<std::string>().find("500"), std::string::npos);
  EXPECT_EQ(fakes.graph().deleted(kMailbox).size(), 3u);
  EXPECT_EQ(sql("SELECT string_agg(status, ',' ORDER BY status) FROM purge_deletions"),
            "deleted,deleted,deleted,failed");
  EXPECT_EQ(sql("SELECT message_id FROM purge_deletions WHERE status = 'failed'"),
            error["message_id"].get<std::string>());
  EXPECT_EQ(sql("SELECT error IS NOT NULL AND deleted_at IS NULL FROM purge_deletions WHERE status = 'failed'"), "t");

  // the one that stayed is found again by the next purge
  EXPECT_EQ(purge({{"mode", "execute"}, {"sender", "promo@shop.example"}, {"days", 30}}).json()["total"], 1);
  EXPECT_EQ(fakes.graph().deleted(kMailbox).size(), 4u);
}

TEST_F(PurgeTest, ConcurrentExecutesGetOne409) {
  fakes.graph().create_mailbox(kMailbox);
  old("promo@shop.example", "Offer", 100);
  start();
  fakes.graph().set_faults({.latency = std::chrono::milliseconds(400)});
  const json body = {{"mode", "execute"}, {"sender", "promo@shop.example"}, {"days", 30}};
  auto first = std::async(std::launch::async, [&] { return purge(body); });
  auto second = std::async(std::launch::async, [&] { return purge(body); });
  const std::multiset<unsigned> statuses = {first.get().status, second.get().status};
  EXPECT_EQ(statuses, (std::multiset<unsigned>{200u, 409u}));
  EXPECT_EQ(fakes.graph().deleted(kMailbox).size(), 1u);
  // previews take no lock
  auto a = std::async(std::launch::async, [&] { return purge({{"mode", "preview"}, {"sender", nullptr}}); });
  auto b = std::async(std::launch::async, [&] { return purge({{"mode", "preview"}, {"sender", nullptr}}); });
  EXPECT_EQ(a.get().status, 200u);
  EXPECT_EQ(b.get().status, 200u);
}

TEST_F(PurgeTest, AnUnreachableMailboxIsA502AndNoConfigurationA503) {
  // kMailbox does not exist in the fake: Graph answers 404 ErrorInvalidUser for every listing
  start();
  const auto res = purge({{"mode", "preview"}, {"sender", "news@example.com"}, {"days", 30}});
  EXPECT_EQ(res.status, 502u) << res.body;
  EXPECT_NE(res.json()["detail"].get<std::string>().find("ErrorInvalidUser"), std::string::npos);

  core::testing::RunningService bare(mail_triage::definition(), database.url(), {{"API_KEYS", "k"}});
  const auto unconfigured = core::testing::http(bare.port(), "POST", "/api/v1/purge/execute",
                                                R"({"mode":"preview","sender":null})", {{"Authorization", "Bearer k"}});
  EXPECT_EQ(unconfigured.status, 503u) << unconfigured.body;
}
