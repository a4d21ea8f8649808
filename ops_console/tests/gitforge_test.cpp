// Source-control push intake, commit tracking and the agent instances it feeds (issue 18): the
// signature in GitHub's and Gitea's forms, ping and other events, redeliveries and commits seen
// twice, the signed copies to enabled instances (retried after a 503, never awaited by the
// forge's answer), the chat message, the agents' token and their read of the commits, and the
// admin routes of the instances.
#include "core/util/digest.hpp"
#include "core/util/standard_webhooks.hpp"
#include "ops_console/gitforge/dispatch.hpp"
#include "ops_console/tests/notify_fixture.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace {

using nlohmann::json;
using ops_console::testing::NotifyTest;

constexpr const char* kForgeSecret = "forge-secret-of-some-length";
constexpr const char* kInstances = "/api/admin/agent-instances";

struct CommitSpec {
  std::string id, message;
};

// A push as GitHub delivers it (vendors.md: ref, repository.full_name, pusher, commits, head_commit).
json push_payload(const std::string& repository, const std::string& branch, const std::vector<CommitSpec>& commits) {
  json list = json::array();
  for (const auto& c : commits)
    list.push_back({{"id", c.id},
                    {"tree_id", std::string(40, 'e')},
                    {"message", c.message},
                    {"timestamp", "2026-11-23T09:30:00+01:00"},
                    {"url", "https://github.com/" + repository + "/commit/" + c.id},
                    {"author", {{"name", "Alice Admin"}, {"email", "alice@msp.example"}, {"username", "alice"}}}});
  return {{"ref", "refs/heads/" + branch},
          {"before", std::string(40, '0')},
          {"after", commits.empty() ? std::string(40, '0') : commits.back().id},
          {"repository", {{"name", repository.substr(repository.find('/') + 1)}, {"full_name", repository}}},
          {"pusher", {{"name", "alice"}, {"email", "alice@msp.example"}}},
          {"commits", list},
          {"head_commit", list.empty() ? json(nullptr) : list.back()}};
}

std::string sha(char c, int n = 0) { return std::string(39, c) + std::to_string(n % 10); }

struct GitforgeTest : NotifyTest {
  std::map<std::string, std::string> env(bool with_secret = true) {
    auto e = sandbox_env();
    if (with_secret) e["GITFORGE_WEBHOOK_SECRET"] = kForgeSecret;
    return e;
  }
  // To the service on `port` (0: svc).
  core::testing::HttpResponse deliver(const std::string& body, std::map<std::string, std::string> headers,
                                      std::uint16_t port = 0) {
    headers.emplace("Content-Type", "application/json");
    return core::testing::http(port ? port : svc->port(), "POST", "/api/webhooks/gitforge", body, headers);
  }
  // GitHub's headers, signed with `secret` ("" for none).
  core::testing::HttpResponse github(const json& payload, const std::string& delivery,
                                     const std::string& secret = kForgeSecret, const std::string& event = "push",
                                     std::uint16_t port = 0) {
    const std::string body = payload.dump();
    std::map<std::string, std::string> h{{"X-GitHub-Event", event}, {"X-GitHub-Delivery", delivery}};
    if (!secret.empty()) h["X-Hub-Signature-256"] = "sha256=" + core::hmac_sha256_hex(secret, body);
    return deliver(body, h, port);
  }
  std::map<std::string, std::string> secrets;  // of the instances add_instance made, by name
  // Whether an arrival at the sandbox's receiver verifies, by core's rule, under `secret`.
  static bool verifies(const json& arrival, const std::string& secret) {
    namespace sw = core::standard_webhooks;
    return sw::verify(sw::signing_key(secret), arrival["webhook_id"].get<std::string>(),
                      std::to_string(arrival["timestamp"].get<std::int64_t>()), arrival["signature"].get<std::string>(),
                      arrival["raw_body"].get<std::string>(), sw::unix_now()) == sw::Verdict::ok;
  }
  std::string agent_url(const std::string& name) const { return fakes.url() + "/agent/" + name + "/events"; }
  // Registers an instance whose receiver in the sandbox checks its copies; answers the creation.
  json add_instance(const std::string& name, bool enabled = true) {
    const std::string secret = core::standard_webhooks::new_secret();
    fakes.gitforge().configure_receiver(name, secret);
    secrets[name] = secret;
    const auto res = call("POST", kInstances,
                          {{"name", name}, {"url", agent_url(name)}, {"enabled", enabled}, {"secret", secret}}, boss);
    EXPECT_EQ(res.status, 201u) << res.body;
    return res.json();
  }
  core::testing::HttpResponse commits(const std::string& query, const std::string& token) {
    std::map<std::string, std::string> h;
    if (!token.empty()) h["Authorization"] = "Bearer " + token;
    return core::testing::http(svc->port(), "GET", "/api/agent/repo-commits" + query, "", h);
  }
  bool settled() {
    return core::testing::eventually(
        [&] { return sql("SELECT count(*) FROM agent_deliveries WHERE status = 'pending'") == "0"; },
        std::chrono::seconds(30));
  }
};

}  // namespace

TEST_F(GitforgeTest, OnlyASignedPushIsTakenInGitHubsFormOrGiteas) {
  start_with(env());
  const json payload = push_payload("msp/ops-scripts", "main", {{sha('a'), "Fix the backup script"}});
  const std::string body = payload.dump();

  EXPECT_EQ(github(payload, "d-1", "").status, 401u);                // missing
  EXPECT_EQ(github(payload, "d-1", "another secret").status, 401u);  // wrong
  EXPECT_EQ(deliver(body + " ", {{"X-GitHub-Event", "push"},
                                 {"X-Hub-Signature-256", "sha256=" + core::hmac_sha256_hex(kForgeSecret, body)}})
                .status,
            401u);  // not the body it signs
  EXPECT_EQ(sql("SELECT count(*) FROM gitforge_deliveries") + sql("SELECT count(*) FROM repo_commits"), "00");

  const auto taken = github(payload, "d-1");
  ASSERT_EQ(taken.status, 200u) << taken.body;
  EXPECT_EQ(taken.json()["status"], "stored");
  EXPECT_EQ(sql("SELECT repository || ' ' || branch || ' ' || commit_id || ' ' || message || ' ' || author_name || ' ' "
                "|| author_email || ' ' || committed_at AT TIME ZONE 'UTC' || ' ' || url || ' ' || delivery_id "
                "FROM repo_commits"),
            "msp/ops-scripts main " + sha('a') + " Fix the backup script Alice Admin alice@msp.example " +
                "2026-11-23 08:30:00 https://github.com/msp/ops-scripts/commit/" + sha('a') + " d-1");

  // Gitea: its own event and delivery headers, the signature as bare hex.
  const std::string gitea = push_payload("msp/infra", "dev", {{sha('b'), "Rotate keys"}}).dump();
  EXPECT_EQ(deliver(gitea, {{"X-Gitea-Event", "push"},
                            {"X-Gitea-Delivery", "g-1"},
                            {"X-Gitea-Signature", core::hmac_sha256_hex("wrong", gitea)}})
                .status,
            401u);
  const auto from_gitea = deliver(gitea, {{"X-Gitea-Event", "push"},
                                          {"X-Gitea-Delivery", "g-1"},
                                          {"X-Gitea-Signature", core::hmac_sha256_hex(kForgeSecret, gitea)}});
  ASSERT_EQ(from_gitea.status, 200u) << from_gitea.body;
  EXPECT_EQ(sql("SELECT forge || ' ' || repository || ' ' || ref FROM gitforge_deliveries WHERE delivery_id = 'g-1'"),
            "gitea msp/infra refs/heads/dev");
}

// The sandbox's forge builds its payloads and headers as GitHub and Gitea document them.
TEST_F(GitforgeTest, TheForgesOwnDeliveriesAreTaken) {
  start_with(env());
  for (const std::string forge : {"github", "gitea"}) {
    const json sent = json::parse(
        core::testing::http(fakes.port(), "POST", "/_sandbox/gitforge/push",
                            json{{"url", "http://127.0.0.1:" + std::to_string(svc->port()) + "/api/webhooks/gitforge"},
                                 {"secret", kForgeSecret},
                                 {"forge", forge},
                                 {"repository", "msp/" + forge},
                                 {"commits", 3}}
                                .dump())
            .body);
    EXPECT_EQ(sent["status"], 200) << sent.dump();
    EXPECT_EQ(sent["body"]["new_commits"], 3) << sent.dump();
    EXPECT_EQ(
        sql("SELECT forge || ' ' || commit_count FROM gitforge_deliveries WHERE repository = 'msp/" + forge + "'"),
        forge + " 3");
  }
  const json bad = json::parse(
      core::testing::http(fakes.port(), "POST", "/_sandbox/gitforge/push",
                          json{{"url", "http://127.0.0.1:" + std::to_string(svc->port()) + "/api/webhooks/gitforge"},
                               {"secret", kForgeSecret},
                               {"bad_signature", true}}
                              .dump())
          .body);
  EXPECT_EQ(bad["status"], 401);
}

TEST_F(GitforgeTest, WithoutASecretTheCheckIsSkippedAndTheServiceWarnsAtStart) {
  core::testing::CapturedLog captured;
  start_with(env(false));
  const std::string logged = captured.text();
  EXPECT_NE(logged.find("GITFORGE_WEBHOOK_SECRET is not set"), std::string::npos);
  const auto res = github(push_payload("msp/ops-scripts", "main", {{sha('a'), "x"}}), "d-1", "");
  EXPECT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(sql("SELECT count(*) FROM repo_commits"), "1");
}

TEST_F(GitforgeTest, APingIsAnsweredOtherEventsAreIgnoredAndNeitherIsStored) {
  start_with(env());
  const json ping{{"zen", "Keep it logically awesome."}, {"hook_id", 1}};
  const auto pong = github(ping, "p-1", kForgeSecret, "ping");
  EXPECT_EQ(pong.status, 200u) << pong.body;
  const auto issues = github({{"action", "opened"}}, "i-1", kForgeSecret, "issues");
  EXPECT_EQ(issues.status, 202u) << issues.body;
  EXPECT_EQ(issues.json()["status"], "ignored");
  const std::string body = push_payload("msp/a", "main", {}).dump();
  const auto no_event = deliver(body, {{"X-Hub-Signature-256", "sha256=" + core::hmac_sha256_hex(kForgeSecret, body)}});
  EXPECT_EQ(no_event.status, 400u);
  EXPECT_NE(no_event.body.find("X-GitHub-Event"), std::string::npos);
  EXPECT_EQ(sql("SELECT count(*) FROM gitforge_deliveries"), "0");
}

TEST_F(GitforgeTest, ARedeliveryIsANoOpAndACommitIsStoredOncePerBranch) {
  start_with(env());
  add_instance("builder");
  const json first = push_payload("msp/ops-scripts", "feature", {{sha('a', 1), "one"}, {sha('a', 2), "two"}});
  EXPECT_EQ(github(first, "d-1").json()["new_commits"], 2);
  const auto again = github(first, "d-1");  // the forge redelivers
  EXPECT_EQ(again.status, 200u);
  EXPECT_EQ(again.json()["status"], "duplicate");
  // A later push carrying one of them again (the same branch), and the branch merged into main.
  EXPECT_EQ(github(push_payload("msp/ops-scripts", "feature", {{sha('a', 2), "two"}, {sha('a', 3), "three"}}), "d-2")
                .json()["new_commits"],
            1);
  EXPECT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('a', 1), "one"}}), "d-3").json()["new_commits"], 1);
  EXPECT_EQ(sql("SELECT string_agg(branch || ':' || right(commit_id, 1), ',' ORDER BY branch, commit_id) "
                "FROM repo_commits"),
            "feature:1,feature:2,feature:3,main:1");
  EXPECT_EQ(sql("SELECT count(*) FROM agent_deliveries"), "3");  // one copy per push, none for the redelivery
}

TEST_F(GitforgeTest, AMalformedPushIsA400NamingTheFieldAndStoresNothing) {
  start_with(env());
  const auto expect_refused = [&](const json& payload, const std::string& field) {
    const auto res = github(payload, "bad-" + field);
    EXPECT_EQ(res.status, 400u) << field;
    EXPECT_NE(res.body.find(field), std::string::npos) << res.body;
  };
  json no_repository = push_payload("msp/a", "main", {});
  no_repository.erase("repository");
  expect_refused(no_repository, "repository.full_name");
  json no_ref = push_payload("msp/a", "main", {});
  no_ref["ref"] = 7;
  expect_refused(no_ref, "ref");
  expect_refused(push_payload("msp/a", "main", {{sha('a'), "fine"}, {"not-a-sha", "bad"}}), "commits[1].id");
  json commits_object = push_payload("msp/a", "main", {});
  commits_object["commits"] = json::object();
  expect_refused(commits_object, "commits");
  EXPECT_EQ(sql("SELECT count(*) FROM gitforge_deliveries") + sql("SELECT count(*) FROM repo_commits"), "00");
}

TEST_F(GitforgeTest, ASignedCopyGoesToEveryEnabledInstanceAndNotToADisabledOne) {
  start_with(env());
  add_instance("builder");
  add_instance("auditor");
  add_instance("retired", false);
  const auto res = github(push_payload("msp/ops-scripts", "main", {{sha('c'), "Add monitoring"}}), "d-9");
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["agent_copies"], 2);
  ASSERT_TRUE(settled());
  for (const std::string name : {"builder", "auditor"}) {
    const json got = fakes.gitforge().received(name);
    ASSERT_EQ(got.size(), 1u) << name;
    EXPECT_TRUE(got[0]["verified"].get<bool>()) << got[0].dump();   // signature and timestamp checked
    EXPECT_TRUE(verifies(got[0], secrets[name])) << got[0].dump();  // and by core's rule, here
    EXPECT_FALSE(verifies(got[0], secrets[name == "builder" ? "auditor" : "builder"]));
    EXPECT_TRUE(got[0]["webhook_id"].get<std::string>().starts_with("msg_")) << got[0].dump();
    EXPECT_EQ(got[0]["event"], "gitforge.push");
    EXPECT_EQ(got[0]["body"]["delivery_id"], "d-9");
    EXPECT_EQ(got[0]["body"]["type"], "gitforge.push");
    EXPECT_EQ(got[0]["body"]["repository"], "msp/ops-scripts");
    EXPECT_EQ(got[0]["body"]["commits"][0]["id"], sha('c'));
    EXPECT_EQ(got[0]["body"]["payload"]["ref"], "refs/heads/main");  // the forge's own body inside
  }
  EXPECT_EQ(fakes.gitforge().received("retired").size(), 0u);
  const json listed = call("GET", kInstances, nullptr, boss).json();
  for (const auto& instance : listed) {
    EXPECT_FALSE(instance.contains("secret"));
    EXPECT_FALSE(instance.contains("token"));
    EXPECT_EQ(instance["deliveries"]["delivered"], instance["enabled"].get<bool>() ? 1 : 0) << instance.dump();
  }
}

TEST_F(GitforgeTest, AReceiverFailingWith503IsTriedAgainUntilItTakesTheCopy) {
  start_with(env());
  add_instance("builder");
  fakes.gitforge().set_receiver_fault("builder", {.status = 503, .count = 1});
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('d'), "Retry me"}}), "d-1").status, 200u);
  ASSERT_TRUE(settled());
  EXPECT_EQ(sql("SELECT status || ' ' || attempts || ' ' || last_status FROM agent_deliveries"), "delivered 2 200");
  const json got = fakes.gitforge().received("builder");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["status"], 503);
  EXPECT_EQ(got[1]["status"], 200);
  EXPECT_EQ(got[0]["webhook_id"], got[1]["webhook_id"]);  // one copy, two attempts: one message id
  EXPECT_EQ(got[0]["webhook_id"], sql("SELECT webhook_id FROM agent_deliveries"));
  EXPECT_TRUE(verifies(got[1], secrets["builder"]));
}

// A secret stored before Standard Webhooks (not whsec_) keeps working: its own bytes are the key,
// on both ends (README, "Copies to agent instances").
TEST_F(GitforgeTest, AnInstanceWithAnOlderSecretStillGetsCopiesItCanVerify) {
  start_with(env());
  add_instance("elder");
  const std::string older = "an-older-secret-0123456789";
  sql("UPDATE agent_instances SET signing_secret = '" + older + "'");
  fakes.gitforge().configure_receiver("elder", older);
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('f'), "Old key"}}), "d-1").status, 200u);
  ASSERT_TRUE(settled());
  const json got = fakes.gitforge().received("elder");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["status"], 200) << got[0].dump();
  EXPECT_TRUE(verifies(got[0], older));
}

TEST_F(GitforgeTest, AnAnswerThatIsNoFaultOfTheMomentFailsTheCopyAtOnceAndIsShown) {
  start_with(env());
  add_instance("builder");
  fakes.gitforge().set_receiver_fault("builder", {.status = 400, .count = 1});
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('d'), "Refused"}}), "d-1").status, 200u);
  ASSERT_TRUE(settled());
  EXPECT_EQ(sql("SELECT status || ' ' || attempts || ' ' || last_error FROM agent_deliveries"), "failed 1 HTTP 400");
  const json listed = call("GET", kInstances, nullptr, boss).json();
  EXPECT_EQ(listed[0]["deliveries"]["failed"], 1);
  EXPECT_EQ(listed[0]["deliveries"]["last_error"], "HTTP 400");
}

// A copy whose sender died (its lease ran out, unfinished) is sent again; the receiver knows the
// delivery id and acknowledges it as a duplicate.
TEST_F(GitforgeTest, ACopyWhoseSenderDiedIsSentAgainWhenItsLeaseEnds) {
  start_with(env());
  add_instance("builder");
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('d'), "Again"}}), "d-1").status, 200u);
  ASSERT_TRUE(settled());
  sql("UPDATE agent_deliveries SET status = 'pending', finished_at = NULL, leased_until = now() - interval '1 second'");
  ASSERT_TRUE(settled());
  EXPECT_EQ(sql("SELECT status || ' ' || attempts FROM agent_deliveries"), "delivered 2");
  const json got = fakes.gitforge().received("builder");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1]["duplicate"], true);
}

// Kill -9 of the service mid-copy (README, "Reliability under kill -9"): the agent takes the copy,
// and its answer is lost with the service. Another instance sends the copy again once its lease has
// run out, with the same webhook-id, and the agent acknowledges the repeat without taking it twice:
// at least once, deduplicated by the webhook-id.
TEST_F(GitforgeTest, ACopyHeldByAKilledServiceGoesAgainWithTheSameWebhookId) {
  start_with(env());
  add_instance("builder");
  svc.reset();
  fakes.gitforge().set_receiver_latency("builder", std::chrono::seconds(2));
  auto e = env();
  e["NOTIFY_TIMEOUT_SECONDS"] = "3";
  e["AGENT_COPY_LEASE_SECONDS"] = "4";
  ASSERT_NO_FATAL_FAILURE(kill_mid_item(
      e, [&] { return fakes.gitforge().in_flight("builder") == 1; },
      [&](std::uint16_t port) {
        const auto res =
            github(push_payload("msp/ops-scripts", "main", {{sha('b'), "Killed"}}), "d-1", kForgeSecret, "push", port);
        EXPECT_EQ(res.status, 200u) << res.body;
      }));
  EXPECT_EQ(sql("SELECT status || ' ' || attempts FROM agent_deliveries"), "pending 1");
  fakes.gitforge().set_receiver_latency("builder", {});

  start(e);
  ASSERT_TRUE(settled());
  EXPECT_EQ(sql("SELECT status || ' ' || attempts FROM agent_deliveries"), "delivered 2");
  json got;
  ASSERT_TRUE(core::testing::eventually([&] { return (got = fakes.gitforge().received("builder")).size() == 2; }));
  const std::string id = sql("SELECT webhook_id FROM agent_deliveries");
  int repeats = 0;
  for (const auto& arrival : got) {
    EXPECT_EQ(arrival["webhook_id"], id);  // one copy, one id, on both attempts
    EXPECT_EQ(arrival["status"], 200);
    EXPECT_TRUE(verifies(arrival, secrets["builder"]));
    repeats += arrival["duplicate"].get<bool>();
  }
  EXPECT_EQ(repeats, 1);  // taken once, acknowledged once as a repeat
}

// The forge's answer does not wait for an agent: here the agent never answers (a socket that
// listens and never accepts), and the push is answered while its copy is still being sent.
TEST_F(GitforgeTest, TheForgesAnswerNeverWaitsForAnAgent) {
  auto e = env();
  e["NOTIFY_TIMEOUT_SECONDS"] = "20";
  start_with(e);
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const auto url = "http://127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + "/events";
  ASSERT_EQ(call("POST", kInstances, {{"name", "silent"}, {"url", url}}, boss).status, 201u);
  const auto res = github(push_payload("msp/ops-scripts", "main", {{sha('e'), "Hang"}}), "d-1");
  EXPECT_EQ(res.status, 200u) << res.body;
  ASSERT_TRUE(core::testing::eventually(
      [&] { return sql("SELECT count(*) FROM agent_deliveries WHERE attempts = 1 AND leased_until > now()") == "1"; },
      std::chrono::seconds(10)));
  EXPECT_EQ(sql("SELECT status || ' ' || (finished_at IS NULL) FROM agent_deliveries"), "pending true");
  silent.close();  // the copy's connection is reset: the service stops without waiting for it
}

TEST_F(GitforgeTest, AChatMessageSaysWhatWasPushed) {
  start_with(env());
  ASSERT_EQ(call("POST", "/api/notification-channels",
                 {{"channel_type", "chat_webhook"}, {"name", "ops"}, {"config", config_for("chat_webhook")}}, boss)
                .status,
            201u);
  std::vector<CommitSpec> seven;
  for (int i = 0; i < 7; ++i) seven.push_back({sha('f', i), "Change " + std::to_string(i) + "\n\nwith a body"});
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "release", seven), "d-1").status, 200u);
  const auto pushed = [&] {  // the push's message, not the channel's test message
    for (const auto& m : received("chat"))
      if (m["body"].get<std::string>().find("msp/ops-scripts") != std::string::npos) return m;
    return json(nullptr);
  };
  ASSERT_TRUE(core::testing::eventually([&] { return !pushed().is_null(); }, std::chrono::seconds(10)));
  const std::string text = json::parse(pushed()["body"].get<std::string>())["text"];
  for (const std::string part : {"msp/ops-scripts", "release", "alice", "7 commits", "Change 0", "Change 4", "2 more"})
    EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
  EXPECT_EQ(text.find("Change 5"), std::string::npos);  // five first lines at most
  EXPECT_EQ(text.find("with a body"), std::string::npos);
  // Recorded once the receiver has answered, so a moment after the message arrives.
  EXPECT_TRUE(core::testing::eventually([&] {
    return sql("SELECT count(*) FROM notification_deliveries WHERE event_key = 'gitforge_push' AND delivered") == "1";
  }));
}

TEST_F(GitforgeTest, AnAgentReadsCommitsWithItsOwnTokenOnly) {
  start_with(env());
  const json builder = add_instance("builder");
  const std::string token = builder["token"];
  ASSERT_EQ(github(push_payload("msp/ops-scripts", "main", {{sha('a'), "one"}}), "d-1").status, 200u);

  EXPECT_EQ(commits("", "").status, 401u);
  EXPECT_EQ(commits("", "agt_wrong").status, 401u);
  EXPECT_EQ(call("GET", "/api/agent/repo-commits", nullptr, boss).status, 401u);  // a session is no agent
  const auto ok = commits("", token);
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["items"].size(), 1u);

  const std::string id = std::to_string(builder["id"].get<long>());
  EXPECT_EQ(call("PATCH", std::string(kInstances) + "/" + id, {{"enabled", false}}, boss).status, 200u);
  EXPECT_EQ(commits("", token).status, 403u);
  const auto rotated =
      call("PATCH", std::string(kInstances) + "/" + id, {{"enabled", true}, {"rotate_token", true}}, boss);
  ASSERT_EQ(rotated.status, 200u);
  EXPECT_EQ(commits("", token).status, 401u);  // the old token is gone
  const std::string fresh = rotated.json()["token"];
  EXPECT_EQ(commits("", fresh).status, 200u);
  EXPECT_EQ(sql("SELECT count(*) FROM agent_instances WHERE token_hash = '" + fresh + "'"), "0");  // kept hashed
  EXPECT_EQ(sql("SELECT count(*) FROM agent_instances WHERE token_hash = '" + core::sha256_hex(fresh) + "'"), "1");
  EXPECT_EQ(call("DELETE", std::string(kInstances) + "/" + id, nullptr, boss).status, 204u);
  EXPECT_EQ(commits("", fresh).status, 401u);  // revoked with its instance
}

TEST_F(GitforgeTest, TheCommitsQueryFiltersLimitsAndNamesEveryBadParameter) {
  start_with(env());
  const std::string token = add_instance("reader")["token"];
  ASSERT_EQ(github(push_payload("msp/a", "main", {{sha('a', 1), "a1"}, {sha('a', 2), "a2"}}), "d-1").status, 200u);
  ASSERT_EQ(github(push_payload("msp/a", "dev", {{sha('a', 3), "a3"}}), "d-2").status, 200u);
  ASSERT_EQ(github(push_payload("msp/b", "main", {{sha('b', 1), "b1"}}), "d-3").status, 200u);
  sql("UPDATE repo_commits SET received_at = now() - interval '2 days' WHERE delivery_id = 'd-1'");

  const auto messages = [&](const std::string& query) {
    const auto res = commits(query, token);
    EXPECT_EQ(res.status, 200u) << query << ": " << res.body;
    const json page = res.json();
    std::string out;
    for (const auto& c : page["items"]) out += c["message"].get<std::string>() + ",";
    return out;
  };
  EXPECT_EQ(messages(""), "b1,a3,a2,a1,");  // newest first
  EXPECT_EQ(messages("?repo=msp/a"), "a3,a2,a1,");
  EXPECT_EQ(messages("?repo=msp/a&branch=main"), "a2,a1,");
  EXPECT_EQ(messages("?branch=main"), "b1,a2,a1,");
  EXPECT_EQ(messages("?limit=2"), "b1,a3,");
  const std::string yesterday = core::format_rfc3339(core::now() - std::chrono::hours(24));
  EXPECT_EQ(messages("?since=" + yesterday), "b1,a3,");

  const auto bad = commits("?since=yesterday&limit=501&repo=" + std::string(300, 'x'), token);
  EXPECT_EQ(bad.status, 400u);
  const json errors = bad.json()["errors"];
  std::set<std::string> fields;
  for (const auto& e : errors) fields.insert(e["field"].get<std::string>());
  EXPECT_EQ(fields, (std::set<std::string>{"since", "limit", "repo"}));
  EXPECT_EQ(commits("?limit=0", token).status, 400u);
}

TEST_F(GitforgeTest, InstancesAreManagedByAdministratorsWithSecretsShownOnce) {
  start_with(env());
  EXPECT_EQ(call("POST", kInstances, {{"name", "x"}, {"url", agent_url("x")}}, tech).status, 403u);
  EXPECT_EQ(call("GET", kInstances, nullptr, tech).status, 403u);
  EXPECT_EQ(call("GET", kInstances).status, 401u);

  const auto created = call("POST", kInstances, {{"name", "builder"}, {"url", agent_url("builder")}}, boss);
  ASSERT_EQ(created.status, 201u) << created.body;
  const json made = created.json();
  EXPECT_TRUE(made["token"].get<std::string>().starts_with("agt_"));
  // Generated, so shown this once: a Standard Webhooks secret of 32 random bytes.
  ASSERT_TRUE(core::standard_webhooks::decode_secret(made["secret"].get<std::string>())) << made.dump();
  EXPECT_EQ(core::standard_webhooks::decode_secret(made["secret"].get<std::string>())->size(), 32u);
  EXPECT_EQ(made["enabled"], true);
  EXPECT_EQ(sql("SELECT signing_secret FROM agent_instances"), made["secret"].get<std::string>());
  EXPECT_EQ(sql("SELECT token_hash FROM agent_instances"), core::sha256_hex(made["token"].get<std::string>()));

  EXPECT_EQ(call("POST", kInstances, {{"name", "builder"}, {"url", agent_url("other")}}, boss).status, 409u);
  for (const auto& [body, field] : std::vector<std::pair<json, std::string>>{
           {{{"name", "p"}, {"url", "https://10.0.0.7/hook"}}, "url"},
           {{{"name", "q"}, {"url", "ftp://agents.example/hook"}}, "url"},
           {{{"name", ""}, {"url", agent_url("q")}}, "name"},
           {{{"name", "r"}, {"url", agent_url("r")}, {"secret", "short"}}, "secret"},
           // A secret an admin gives must be whsec_ and base64 of 24..64 bytes (README).
           {{{"name", "s"}, {"url", agent_url("s")}, {"secret", "an-older-secret-0123456789"}}, "secret"},
           {{{"name", "t"}, {"url", agent_url("t")}, {"secret", "whsec_c2hvcnQ="}}, "secret"}}) {
    const auto res = call("POST", kInstances, body, boss);
    EXPECT_EQ(res.status, 400u) << body.dump();
    EXPECT_NE(res.body.find("\"" + field + "\""), std::string::npos) << res.body;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM agent_instances"), "1");

  const std::string at = std::string(kInstances) + "/" + std::to_string(made["id"].get<long>());
  const std::string given = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const auto renamed = call("PATCH", at, {{"name", "builder-2"}, {"secret", given}}, boss);
  ASSERT_EQ(renamed.status, 200u) << renamed.body;
  EXPECT_EQ(renamed.json()["name"], "builder-2");
  EXPECT_FALSE(renamed.json().contains("token"));
  EXPECT_FALSE(renamed.json().contains("secret"));  // given, so not shown
  EXPECT_EQ(sql("SELECT signing_secret FROM agent_instances"), given);
  EXPECT_EQ(call("PATCH", at, {{"secret", "an-older-secret-0123456789"}}, boss).status, 400u);
  // Rotation makes a new one and shows it this once; asking for both is a 400.
  EXPECT_EQ(call("PATCH", at, {{"secret", given}, {"rotate_secret", true}}, boss).status, 400u);
  const auto rotated = call("PATCH", at, {{"rotate_secret", true}}, boss);
  ASSERT_EQ(rotated.status, 200u) << rotated.body;
  const std::string fresh = rotated.json()["secret"].get<std::string>();
  EXPECT_TRUE(core::standard_webhooks::decode_secret(fresh)) << fresh;
  EXPECT_NE(fresh, given);
  EXPECT_EQ(sql("SELECT signing_secret FROM agent_instances"), fresh);
  EXPECT_FALSE(call("GET", kInstances, nullptr, boss).json()[0].contains("secret"));
  EXPECT_EQ(call("PATCH", at, {{"url", "https://192.168.1.5/x"}}, boss).status, 400u);
  EXPECT_EQ(call("PATCH", std::string(kInstances) + "/999", {{"enabled", false}}, boss).status, 404u);
  EXPECT_EQ(call("DELETE", at, nullptr, boss).status, 204u);
  EXPECT_EQ(call("DELETE", at, nullptr, boss).status, 404u);
}
