// The gitforge fake: agent receivers that verify the console's signed deliveries (Standard
// Webhooks signature, replay window, repeated webhook ids, faults), and the push sender that plays GitHub or Gitea
// (payloads, headers, signatures over the bytes sent).
#include "core/http/server.hpp"
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <regex>
#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A Standard Webhooks secret (the specification's example); the other secrets in these tests are
// older plain ones, whose own bytes are the key.
constexpr const char* kAgentSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// One delivery as the console sends it, signed under `secret`.
HttpResponse deliver(std::uint16_t port, const std::string& receiver, const std::string& secret,
                     const std::string& body, const std::string& webhook_id, std::int64_t timestamp) {
  std::map<std::string, std::string> headers{{"Content-Type", "application/json"}};
  for (auto& [name, value] : sandbox::GitforgeFake::agent_headers(secret, webhook_id, timestamp, body))
    headers[name] = value;
  return http(port, "POST", "/agent/" + receiver + "/events", body, headers);
}

bool is_hex40(const json& v) {
  static const std::regex hex("^[0-9a-f]{40}$");
  return v.is_string() && std::regex_match(v.get<std::string>(), hex);
}

// The console's side of a forge webhook, for the sender: records every header and the raw body.
class Console {
 public:
  explicit Console(unsigned status = 200)
      : server_(io_.executor(), core::http::ServerOptions{}, {},
                [this](core::http::Request& req) { return handle(req); }),
        status_(status) {
    port_ = server_.start();
  }
  ~Console() { io_.run(server_.stop()); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hooks/gitforge"; }

  struct Arrival {
    std::map<std::string, std::string> headers;  // names lowercased
    std::string body;
  };
  std::vector<Arrival> received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  boost::asio::awaitable<core::http::Response> handle(core::http::Request& req) {
    Arrival a{.body = req.body};
    for (const auto& field : req.headers) a.headers[core::to_lower(field.name_string())] = std::string(field.value());
    {
      std::lock_guard lock(mutex_);
      received_.push_back(std::move(a));
    }
    co_return core::http::Response::json({{"queued", true}}, static_cast<core::http::Status>(status_));
  }

  core::testing::IoThreads io_{1};
  core::http::Server server_;
  unsigned status_;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  std::vector<Arrival> received_;
};

class GitforgeFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  // Sends through the route; the one arrival at `console`.
  std::pair<json, Console::Arrival> push(Console& console, json request) {
    request["url"] = console.url();
    const auto sent = http(fakes.port(), "POST", "/_sandbox/gitforge/push", request.dump());
    EXPECT_EQ(sent.status, 200u) << sent.body;
    const auto got = console.received();
    EXPECT_FALSE(got.empty());
    return {sent.json(), got.empty() ? Console::Arrival{} : got.back()};
  }
};

}  // namespace

TEST(GitforgeFake, SigningMatchesGithubsTestVector) {
  // docs.github.com, "Validating webhook deliveries".
  EXPECT_EQ(core::hmac_sha256_hex("It's a Secret to Everybody", "Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  // The agent contract is Standard Webhooks: the specification's example (core/util/standard_webhooks_test.cpp).
  const auto h = sandbox::GitforgeFake::agent_headers(kAgentSecret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                                                      R"({"test": 2432232314})");
  const std::map<std::string, std::string> got(h.begin(), h.end());
  EXPECT_EQ(got.at("webhook-id"), "msg_p5jXN8AQM9LWM0D4loKWxJek");
  EXPECT_EQ(got.at("webhook-timestamp"), "1614265330");
  EXPECT_EQ(got.at("webhook-signature"), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  EXPECT_EQ(got.at("X-Ops-Event"), "gitforge.push");
}

TEST_F(GitforgeFakeTest, ReceiverAcceptsACorrectlySignedDelivery) {
  fakes.gitforge().configure_receiver("agent-1", kAgentSecret);
  const std::string body = R"({"repository":"msp/ops-scripts","after":"abc"})";
  const auto now = unix_now();
  const auto ok = deliver(fakes.port(), "agent-1", kAgentSecret, body, "d-1", now);
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json(), json({{"accepted", true}, {"duplicate", false}}));
  const json got = fakes.gitforge().received("agent-1");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["receiver"], "agent-1");
  EXPECT_EQ(got[0]["webhook_id"], "d-1");
  EXPECT_EQ(got[0]["event"], "gitforge.push");
  EXPECT_EQ(got[0]["timestamp"], now);
  EXPECT_EQ(got[0]["raw_body"], body);
  EXPECT_TRUE(got[0]["signature"].get<std::string>().starts_with("v1,"));
  EXPECT_EQ(got[0]["verified"], true);
  EXPECT_EQ(got[0]["status"], 200);
  EXPECT_EQ(got[0]["duplicate"], false);
  EXPECT_EQ(got[0]["body"], json::parse(body));
}

TEST_F(GitforgeFakeTest, ReceiverRefusesWhatTheContractRefuses) {
  fakes.gitforge().configure_receiver("agent-1", kAgentSecret);
  const std::string body = R"({"event":"push"})";
  const auto now = unix_now();

  const auto wrong = deliver(fakes.port(), "agent-1", "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", body, "d-1", now);
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.json(), json({{"error", "bad signature"}}));

  const auto old = deliver(fakes.port(), "agent-1", kAgentSecret, body, "d-2", now - 1000);
  EXPECT_EQ(old.status, 401u);
  EXPECT_EQ(old.json(), json({{"error", "stale timestamp"}}));
  EXPECT_EQ(deliver(fakes.port(), "agent-1", kAgentSecret, body, "d-3", now + 1000).status, 401u);  // either side

  const auto unknown = deliver(fakes.port(), "nobody", kAgentSecret, body, "d-4", now);
  EXPECT_EQ(unknown.status, 404u);
  EXPECT_TRUE(unknown.json()["error"].is_string());

  // A missing header or a malformed timestamp is a 400.
  const auto good = sandbox::GitforgeFake::agent_headers(kAgentSecret, "d-5", now, body);
  const std::map<std::string, std::string> signed_headers(good.begin(), good.end());
  auto without_signature = signed_headers;
  without_signature.erase("webhook-signature");
  const auto missing = http(fakes.port(), "POST", "/agent/agent-1/events", body, without_signature);
  EXPECT_EQ(missing.status, 400u);
  EXPECT_NE(missing.body.find("webhook-signature"), std::string::npos) << missing.body;
  auto bad_timestamp = signed_headers;
  bad_timestamp["webhook-timestamp"] = "12a";
  EXPECT_EQ(http(fakes.port(), "POST", "/agent/agent-1/events", body, bad_timestamp).status, 400u);
  // The old scheme's form of the same MAC (v1=...) is no v1 entry: a bad signature. So is the
  // right signature over another body (tampered).
  auto old_form = signed_headers;
  old_form["webhook-signature"] = "v1=" + signed_headers.at("webhook-signature").substr(3);
  EXPECT_EQ(http(fakes.port(), "POST", "/agent/agent-1/events", body, old_form).status, 401u);
  EXPECT_EQ(http(fakes.port(), "POST", "/agent/agent-1/events", R"({"event":"push!"})", signed_headers).status, 401u);

  // Signed, fresh, but not a JSON object.
  const auto array = deliver(fakes.port(), "agent-1", kAgentSecret, "[1,2]", "d-9", now);
  EXPECT_EQ(array.status, 400u);
  const auto text = deliver(fakes.port(), "agent-1", kAgentSecret, "not json", "d-10", now);
  EXPECT_EQ(text.status, 400u);

  const json got = fakes.gitforge().received();
  ASSERT_EQ(got.size(), 9u);  // the unknown receiver's is not recorded
  EXPECT_EQ(got[0]["verified"], false);
  EXPECT_EQ(got[0]["status"], 401);
  EXPECT_EQ(got[1]["verified"], false);
  EXPECT_EQ(got[7]["verified"], true);  // the array: signature and timestamp were good
  EXPECT_EQ(got[7]["body"], json::array({1, 2}));
  EXPECT_EQ(got[8]["body"], "not json");  // the raw string
  EXPECT_EQ(got[8]["status"], 400);
  for (const auto& r : got) EXPECT_EQ(r["duplicate"], false);
}

TEST_F(GitforgeFakeTest, ARepeatedDeliveryIsAcknowledgedNotProcessedTwice) {
  fakes.gitforge().configure_receiver("agent-1", kAgentSecret);
  const auto now = unix_now();
  ASSERT_EQ(deliver(fakes.port(), "agent-1", kAgentSecret, R"({"n":1})", "d-1", now).status, 200u);
  const auto again = deliver(fakes.port(), "agent-1", kAgentSecret, R"({"n":1})", "d-1", now + 1);
  ASSERT_EQ(again.status, 200u);
  EXPECT_EQ(again.json(), json({{"accepted", true}, {"duplicate", true}}));
  EXPECT_EQ(fakes.gitforge().received("agent-1")[1]["duplicate"], true);

  // Webhook ids are per receiver.
  fakes.gitforge().configure_receiver("agent-2", "other");
  EXPECT_EQ(deliver(fakes.port(), "agent-2", "other", R"({"n":1})", "d-1", now).json()["duplicate"], false);

  // A refused repeat is not acknowledged: the signature is checked first.
  EXPECT_EQ(deliver(fakes.port(), "agent-1", "wrong", R"({"n":1})", "d-1", now).status, 401u);

  // clear() forgets the ids (and arrivals), not the receivers.
  fakes.gitforge().clear();
  EXPECT_EQ(fakes.gitforge().received(), json::array());
  EXPECT_EQ(deliver(fakes.port(), "agent-1", kAgentSecret, R"({"n":1})", "d-1", now).json()["duplicate"], false);
}

TEST_F(GitforgeFakeTest, AnArmedFaultIsAnsweredThenTheRetrySucceeds) {
  fakes.gitforge().configure_receiver("agent-1", kAgentSecret);
  fakes.gitforge().set_receiver_fault("agent-1", {.status = 503, .count = 1, .retry_after = 7});
  const auto now = unix_now();
  const auto refused = deliver(fakes.port(), "agent-1", kAgentSecret, R"({"n":1})", "d-1", now);
  EXPECT_EQ(refused.status, 503u);
  EXPECT_EQ(refused.header("retry-after"), "7");
  // The retry repeats the delivery id: not a duplicate, since the first was never accepted.
  const auto retry = deliver(fakes.port(), "agent-1", kAgentSecret, R"({"n":1})", "d-1", now);
  ASSERT_EQ(retry.status, 200u);
  EXPECT_EQ(retry.json()["duplicate"], false);
  const json got = fakes.gitforge().received("agent-1");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["status"], 503);
  EXPECT_EQ(got[0]["verified"], true);
  EXPECT_EQ(got[1]["status"], 200);

  // The same through the control route; without retry_after, no Retry-After.
  EXPECT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/agent/faults", R"({"receiver":"agent-1","status":500,"count":2})").status,
      204u);
  const auto first = deliver(fakes.port(), "agent-1", kAgentSecret, "{}", "d-2", now);
  EXPECT_EQ(first.status, 500u);
  EXPECT_EQ(first.header("retry-after"), "");
  EXPECT_EQ(deliver(fakes.port(), "agent-1", kAgentSecret, "{}", "d-2", now).status, 500u);
  EXPECT_EQ(deliver(fakes.port(), "agent-1", kAgentSecret, "{}", "d-2", now).status, 200u);
}

// A receiver's latency holds each delivery, counted in flight, before it is taken and answered (what
// the console's kill -9 test needs: a copy in flight); the control route sets it.
TEST_F(GitforgeFakeTest, ALatencyHoldsEachDeliveryInFlight) {
  fakes.gitforge().configure_receiver("agent-1", kAgentSecret);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/latency", R"({"receiver":"agent-1","latency_ms":-1})").status,
            400u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/latency", R"({"receiver":"agent-1","latency_ms":500})").status,
            204u);
  auto answer = std::async(std::launch::async,
                           [&] { return deliver(fakes.port(), "agent-1", kAgentSecret, "{}", "d-1", unix_now()); });
  EXPECT_TRUE(core::testing::eventually([&] { return fakes.gitforge().in_flight("agent-1") == 1; }));
  EXPECT_EQ(answer.get().status, 200u);
  EXPECT_EQ(fakes.gitforge().in_flight("agent-1"), 0);
  ASSERT_EQ(fakes.gitforge().received("agent-1").size(), 1u);
  EXPECT_EQ(fakes.gitforge().received("agent-1")[0]["duplicate"], false);
}

TEST_F(GitforgeFakeTest, ControlRoutesConfigureReadAndClear) {
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/receivers/agent-9", R"({"secret":""})").status, 400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/receivers/agent-9", R"({})").status, 400u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/receivers/agent-9", R"({"secret":"one"})").status, 204u);
  const auto now = unix_now();
  EXPECT_EQ(deliver(fakes.port(), "agent-9", "one", "{}", "d-1", now).status, 200u);
  // Reconfiguring changes the secret.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/agent/receivers/agent-9", R"({"secret":"two"})").status, 204u);
  EXPECT_EQ(deliver(fakes.port(), "agent-9", "one", "{}", "d-2", now).status, 401u);
  EXPECT_EQ(deliver(fakes.port(), "agent-9", "two", "{}", "d-2", now).status, 200u);

  fakes.gitforge().configure_receiver("agent-8", "x");
  EXPECT_EQ(deliver(fakes.port(), "agent-8", "x", "{}", "d-1", now).status, 200u);
  const auto list = http(fakes.port(), "GET", "/_sandbox/agent/received?receiver=agent-9");
  ASSERT_EQ(list.status, 200u);
  ASSERT_EQ(list.json().size(), 3u);
  EXPECT_EQ(list.json()[0]["webhook_id"], "d-1");
  EXPECT_EQ(list.json()[1]["status"], 401);
  EXPECT_EQ(http(fakes.port(), "GET", "/_sandbox/agent/received").json().size(), 4u);
  EXPECT_EQ(http(fakes.port(), "DELETE", "/_sandbox/agent/received").status, 204u);
  EXPECT_EQ(http(fakes.port(), "GET", "/_sandbox/agent/received").json(), json::array());
  EXPECT_EQ(deliver(fakes.port(), "agent-9", "two", "{}", "d-2", now).json()["duplicate"], false);

  const auto index = http(fakes.port(), "GET", "/_sandbox").json();
  bool listed = false;
  for (const auto& f : index["fakes"]) listed = listed || f["name"] == "gitforge";
  EXPECT_TRUE(listed);
}

TEST_F(GitforgeFakeTest, GithubPushCarriesGithubsHeadersAndSignatures) {
  Console console;
  const auto [answer, got] = push(console, {{"secret", "It's a Secret to Everybody"},
                                            {"repository", "acme/rmm-scripts"},
                                            {"branch", "release"},
                                            {"commits", 2}});
  EXPECT_EQ(answer["status"], 200);
  EXPECT_EQ(answer["body"], json({{"queued", true}}));
  EXPECT_TRUE(core::is_uuid(answer["delivery"].get<std::string>()));
  EXPECT_EQ(json::parse(got.body), answer["payload"]);
  EXPECT_EQ(got.body.find('\n'), std::string::npos);  // compact, as GitHub posts it

  const auto& h = got.headers;
  EXPECT_EQ(h.at("content-type"), "application/json");
  EXPECT_EQ(h.at("x-github-event"), "push");
  EXPECT_EQ(h.at("x-github-delivery"), answer["delivery"].get<std::string>());
  EXPECT_TRUE(std::regex_match(h.at("x-github-hook-id"), std::regex("^[0-9]+$")));
  EXPECT_EQ(h.at("x-github-hook-installation-target-type"), "repository");
  EXPECT_EQ(h.at("x-github-hook-installation-target-id"),
            std::to_string(answer["payload"]["repository"]["id"].get<std::int64_t>()));
  EXPECT_EQ(h.at("user-agent").rfind("GitHub-Hookshot/", 0), 0u);
  EXPECT_EQ(h.at("x-hub-signature-256"), "sha256=" + core::hmac_sha256_hex("It's a Secret to Everybody", got.body));
  EXPECT_EQ(h.at("x-hub-signature"), "sha1=" + core::hmac_sha1_hex("It's a Secret to Everybody", got.body));
  EXPECT_EQ(h.count("x-gitea-event"), 0u);
  EXPECT_EQ(h.count("x-gitea-signature"), 0u);

  const json& p = answer["payload"];
  EXPECT_EQ(p["ref"], "refs/heads/release");
  EXPECT_EQ(p["repository"]["full_name"], "acme/rmm-scripts");
  EXPECT_EQ(p["repository"]["html_url"], "https://github.com/acme/rmm-scripts");
  ASSERT_EQ(p["commits"].size(), 2u);
  EXPECT_EQ(p["after"], p["commits"][1]["id"]);
  EXPECT_EQ(p["head_commit"], p["commits"][1]);
}

TEST_F(GitforgeFakeTest, GiteaPushCarriesGiteasHeadersAndSignsTheBytesSent) {
  Console console;
  const auto [answer, got] =
      push(console, {{"forge", "gitea"},
                     {"secret", "gitea-secret"},
                     {"delivery", "5d2f7c1e-0000-4000-8000-000000000001"},
                     {"commits", json::array({{{"message", "Fix <b> & co\u2028"}, {"author_name", "Bob"}}})}});
  EXPECT_EQ(answer["status"], 200);
  EXPECT_EQ(answer["delivery"], "5d2f7c1e-0000-4000-8000-000000000001");
  const auto& h = got.headers;
  const std::string sha256 = core::hmac_sha256_hex("gitea-secret", got.body);
  EXPECT_EQ(h.at("x-gitea-signature"), sha256);  // bare hex
  EXPECT_EQ(h.at("x-gogs-signature"), sha256);
  EXPECT_EQ(h.at("x-hub-signature-256"), "sha256=" + sha256);
  EXPECT_EQ(h.at("x-hub-signature"), "sha1=" + core::hmac_sha1_hex("gitea-secret", got.body));
  for (const char* name : {"x-gitea-delivery", "x-gogs-delivery", "x-github-delivery"})
    EXPECT_EQ(h.at(name), "5d2f7c1e-0000-4000-8000-000000000001") << name;
  for (const char* name : {"x-gitea-event", "x-gitea-event-type", "x-gogs-event", "x-gogs-event-type", "x-github-event",
                           "x-github-event-type"})
    EXPECT_EQ(h.at(name), "push") << name;
  EXPECT_EQ(h.at("x-gitea-hook-installation-target-type"), "repository");
  EXPECT_EQ(h.at("user-agent"), "Go-http-client/1.1");
  EXPECT_EQ(h.at("content-type"), "application/json");
  EXPECT_EQ(h.count("x-github-hook-id"), 0u);

  // Indented and HTML-escaped as Go writes it; the signature covers exactly that.
  EXPECT_NE(got.body.find("\n  \"ref\": \"refs/heads/main\""), std::string::npos) << got.body;
  EXPECT_NE(got.body.find(R"(Fix \u003cb\u003e \u0026 co\u2028")"), std::string::npos) << got.body;
  const json p = json::parse(got.body);
  EXPECT_EQ(p, answer["payload"]);
  EXPECT_EQ(p["commits"][0]["message"], "Fix <b> & co\u2028");
  EXPECT_EQ(p["commits"][0]["author"]["name"], "Bob");
  EXPECT_EQ(p["commits"][0]["author"]["email"], "Bob@msp.example");
  EXPECT_EQ(p["total_commits"], 1);
  EXPECT_TRUE(p.contains("compare_url"));
  EXPECT_FALSE(p.contains("compare"));
  EXPECT_EQ(p["pusher"]["login"], "alice");
  EXPECT_EQ(p["pusher"]["username"], "alice");
  EXPECT_EQ(p["repository"]["owner"]["login"], "msp");
  EXPECT_EQ(p["commits"][0]["timestamp"].get<std::string>().back(), 'Z');  // Go's RFC 3339 in UTC
  EXPECT_TRUE(core::parse_rfc3339(p["commits"][0]["timestamp"].get<std::string>()).has_value());
}

TEST_F(GitforgeFakeTest, SignaturesOnlyWithASecretAndWrongOnRequest) {
  Console console;
  const auto [unsigned_answer, plain] = push(console, {{"forge", "gitea"}});
  for (const char* name : {"x-hub-signature", "x-hub-signature-256", "x-gitea-signature", "x-gogs-signature"})
    EXPECT_EQ(plain.headers.count(name), 0u) << name;
  const auto [empty_answer, empty] = push(console, {{"secret", ""}});
  EXPECT_EQ(empty.headers.count("x-hub-signature-256"), 0u);

  const auto [bad_answer, bad] = push(console, {{"secret", "right"}, {"bad_signature", true}});
  EXPECT_NE(bad.headers.at("x-hub-signature-256"), "sha256=" + core::hmac_sha256_hex("right", bad.body));
  EXPECT_EQ(bad.headers.at("x-hub-signature-256"), "sha256=" + core::hmac_sha256_hex("not-right", bad.body));
}

TEST_F(GitforgeFakeTest, PingIsEachForgesOwn) {
  Console console;
  const auto [github, github_got] = push(console, {{"event", "ping"}, {"secret", "k"}});
  EXPECT_EQ(github_got.headers.at("x-github-event"), "ping");
  const json& p = github["payload"];
  EXPECT_TRUE(p["zen"].is_string());
  EXPECT_EQ(p["hook"]["config"]["url"], console.url());
  EXPECT_EQ(p["hook"]["config"]["content_type"], "json");
  EXPECT_EQ(p["hook"]["type"], "Repository");
  EXPECT_EQ(std::to_string(p["hook_id"].get<std::int64_t>()), github_got.headers.at("x-github-hook-id"));
  EXPECT_EQ(p["repository"]["full_name"], "msp/ops-scripts");
  EXPECT_EQ(p["sender"]["login"], "alice");
  EXPECT_FALSE(p.contains("commits"));

  // Gitea has no ping: its Test Delivery is a push of one fake commit.
  const auto [gitea, gitea_got] = push(console, {{"event", "ping"}, {"forge", "gitea"}});
  EXPECT_EQ(gitea_got.headers.at("x-gitea-event"), "push");
  const json& q = gitea["payload"];
  ASSERT_EQ(q["commits"].size(), 1u);
  EXPECT_EQ(q["commits"][0]["id"], std::string(40, '0'));
  EXPECT_EQ(q["commits"][0]["message"], "This is a fake commit");
  EXPECT_EQ(q["before"], q["after"]);
  EXPECT_EQ(q["total_commits"], 1);

  // Any other event is sent under its own name with a small body.
  const auto [other, other_got] = push(console, {{"event", "release"}});
  EXPECT_EQ(other_got.headers.at("x-github-event"), "release");
  EXPECT_TRUE(other["payload"]["zen"].is_string());
}

TEST(GitforgeFake, PushPayloadDefaultsAndCommitIds) {
  const json p = sandbox::GitforgeFake::push_payload({});
  EXPECT_EQ(p, sandbox::GitforgeFake::push_payload({}));  // pure
  EXPECT_EQ(p["ref"], "refs/heads/main");
  EXPECT_EQ(p["repository"]["full_name"], "msp/ops-scripts");
  EXPECT_EQ(p["repository"]["name"], "ops-scripts");
  EXPECT_EQ(p["repository"]["owner"]["login"], "msp");
  EXPECT_EQ(p["repository"]["private"], true);
  EXPECT_EQ(p["pusher"], json({{"name", "alice"}, {"email", "alice@msp.example"}}));
  EXPECT_EQ(p["sender"]["login"], "alice");
  EXPECT_EQ(p["created"], false);
  EXPECT_EQ(p["deleted"], false);
  EXPECT_EQ(p["forced"], false);
  ASSERT_EQ(p["commits"].size(), 1u);
  const json& c = p["commits"][0];
  EXPECT_TRUE(is_hex40(c["id"]));
  EXPECT_TRUE(is_hex40(c["tree_id"]));
  EXPECT_TRUE(is_hex40(p["before"]));
  EXPECT_NE(p["before"], p["after"]);
  EXPECT_EQ(p["after"], c["id"]);
  EXPECT_EQ(p["head_commit"], c);
  EXPECT_EQ(c["distinct"], true);
  EXPECT_EQ(c["timestamp"], "2026-11-23T10:00:00+00:00");
  EXPECT_EQ(c["url"], "https://github.com/msp/ops-scripts/commit/" + c["id"].get<std::string>());
  EXPECT_EQ(c["author"], json({{"name", "alice"}, {"email", "alice@msp.example"}, {"username", "alice"}}));
  EXPECT_EQ(c["modified"], json::array({"README.md"}));
  EXPECT_EQ(p["compare"], "https://github.com/msp/ops-scripts/compare/" + p["before"].get<std::string>().substr(0, 12) +
                              "..." + c["id"].get<std::string>().substr(0, 12));

  // Fifty commits: distinct ids, a minute apart, the last at the push.
  const json many = sandbox::GitforgeFake::push_payload({.commits = 50});
  std::set<std::string> ids;
  for (const auto& commit : many["commits"]) {
    EXPECT_TRUE(is_hex40(commit["id"]));
    ids.insert(commit["id"].get<std::string>());
  }
  EXPECT_EQ(ids.size(), 50u);
  EXPECT_EQ(many["commits"][49]["timestamp"], "2026-11-23T10:00:00+00:00");
  EXPECT_EQ(many["commits"][48]["timestamp"], "2026-11-23T09:59:00+00:00");
  EXPECT_EQ(many["commits"][0]["id"], p["after"]);  // same repository, branch, message and index: same id

  // None: no head commit, after = before.
  const json none = sandbox::GitforgeFake::push_payload({.commits = 0});
  EXPECT_EQ(none["commits"], json::array());
  EXPECT_TRUE(none["head_commit"].is_null());
  EXPECT_EQ(none["after"], none["before"]);

  // Given commits: the id as given (lowercased), otherwise derived from repository, branch and message.
  const std::string given(40, 'A');
  const json listed = sandbox::GitforgeFake::push_payload(
      {.commits = std::vector<sandbox::PushCommit>{{.id = given, .message = "one"}, {.message = "two"}}});
  EXPECT_EQ(listed["commits"][0]["id"], std::string(40, 'a'));
  EXPECT_TRUE(is_hex40(listed["commits"][1]["id"]));
  const json other_branch = sandbox::GitforgeFake::push_payload(
      {.branch = "dev",
       .commits = std::vector<sandbox::PushCommit>{{.id = given, .message = "one"}, {.message = "two"}}});
  EXPECT_NE(other_branch["commits"][1]["id"], listed["commits"][1]["id"]);

  // Gitea's shape.
  const json gitea = sandbox::GitforgeFake::push_payload({.forge = "gitea"});
  for (const char* key : {"ref", "before", "after", "compare_url", "commits", "total_commits", "head_commit",
                          "repository", "pusher", "sender"})
    EXPECT_TRUE(gitea.contains(key)) << key;
  EXPECT_EQ(gitea["commits"][0]["timestamp"], "2026-11-23T10:00:00Z");
  EXPECT_TRUE(gitea["commits"][0]["verification"].is_null());
  EXPECT_EQ(gitea["repository"]["html_url"], "https://gitea.msp.example/msp/ops-scripts");
}

TEST_F(GitforgeFakeTest, SendPushInProcessAndItsRefusals) {
  Console console;
  core::testing::IoThreads io(1);
  const json answer = io.run(fakes.gitforge().send_push({.url = console.url(), .secret = "k", .commits = 3}));
  EXPECT_EQ(answer["status"], 200);
  EXPECT_EQ(answer["payload"]["commits"].size(), 3u);
  ASSERT_EQ(console.received().size(), 1u);
  EXPECT_EQ(console.received()[0].headers.at("x-github-delivery"), answer["delivery"].get<std::string>());

  // The console's status is reported as it came.
  Console failing(500);
  const json refused = io.run(fakes.gitforge().send_push({.url = failing.url()}));
  EXPECT_EQ(refused["status"], 500);

  // Unreachable: 502 from the route.
  const std::string nowhere = "http://127.0.0.1:" + std::to_string(core::testing::free_port()) + "/hooks";
  const auto down = http(fakes.port(), "POST", "/_sandbox/gitforge/push", json({{"url", nowhere}}).dump());
  EXPECT_EQ(down.status, 502u);
  EXPECT_TRUE(down.json()["error"].is_string());
  EXPECT_TRUE(down.json().contains("payload"));

  // Bad requests.
  for (const json& bad : {json({{"secret", "k"}}), json({{"url", nowhere}, {"commits", 51}}),
                          json({{"url", nowhere}, {"forge", "gitlab"}}), json({{"url", nowhere}, {"repository", "x"}}),
                          json({{"url", nowhere}, {"commits", json::array({{{"id", "xyz"}, {"message", "m"}}})}}),
                          json({{"url", nowhere}, {"commits", json::array({json::object()})}}),
                          json({{"url", nowhere}, {"commits", json::array({{{"id", 7}, {"message", "m"}}})}})}) {
    const auto res = http(fakes.port(), "POST", "/_sandbox/gitforge/push", bad.dump());
    EXPECT_EQ(res.status, 400u) << bad.dump();
    EXPECT_TRUE(res.json()["error"].is_string());
  }
}
