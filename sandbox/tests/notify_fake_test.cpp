// The notification receivers: each vendor's request rules and answer shapes, the record that
// tests read, and armed faults.
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <future>

using core::testing::http;
using nlohmann::json;

namespace {

constexpr const char* kBot = "/telegram/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ/sendMessage";

}  // namespace

TEST(NotifyFake, GoogleChatNeedsKeyTokenAndText) {
  sandbox::InProcess fakes;
  const auto ok = http(fakes.port(), "POST", "/chat/v1/spaces/AAA/messages?key=k&token=t", R"({"text":"hi"})");
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["text"], "hi");
  EXPECT_EQ(ok.json()["name"].get<std::string>().rfind("spaces/AAA/messages/", 0), 0u);
  EXPECT_EQ(http(fakes.port(), "POST", "/chat/v1/spaces/AAA/messages?key=k", R"({"text":"hi"})").status, 401u);
  const auto empty = http(fakes.port(), "POST", "/chat/v1/spaces/AAA/messages?key=k&token=t", R"({"text":""})");
  EXPECT_EQ(empty.status, 400u);
  EXPECT_EQ(empty.json()["error"]["status"], "INVALID_ARGUMENT");
  EXPECT_EQ(fakes.notify().received("chat").size(), 3u);  // every arrival is recorded
}

TEST(NotifyFake, TelegramAnswersLikeTheBotApi) {
  sandbox::InProcess fakes;
  const auto ok = http(fakes.port(), "POST", kBot, R"({"chat_id":"-100","text":"<b>x</b>","parse_mode":"HTML"})");
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["ok"], true);
  EXPECT_TRUE(ok.json()["result"]["message_id"].is_number());
  EXPECT_EQ(ok.json()["result"]["chat"]["id"], "-100");
  const auto no_chat = http(fakes.port(), "POST", kBot, R"({"text":"x"})");
  EXPECT_EQ(no_chat.status, 400u);
  EXPECT_EQ(no_chat.json(),
            json({{"ok", false}, {"error_code", 400}, {"description", "Bad Request: chat_id is empty"}}));
  EXPECT_EQ(http(fakes.port(), "POST", "/telegram/botnope/sendMessage", R"({"chat_id":1,"text":"x"})").status, 404u);

  fakes.notify().set_fault("telegram", {.status = 429, .count = 1, .retry_after = 3});
  const auto limited = http(fakes.port(), "POST", kBot, R"({"chat_id":1,"text":"x"})");
  EXPECT_EQ(limited.status, 429u);
  EXPECT_EQ(limited.header("retry-after"), "3");
  EXPECT_EQ(limited.json()["parameters"]["retry_after"], 3);
  EXPECT_EQ(limited.json()["description"], "Too Many Requests: retry after 3");
  EXPECT_EQ(http(fakes.port(), "POST", kBot, R"({"chat_id":1,"text":"x"})").status, 200u);  // the fault is spent
}

TEST(NotifyFake, NtfyTurnsHeadersIntoTheMessage) {
  sandbox::InProcess fakes;
  const auto ok = http(fakes.port(), "POST", "/ntfy/ops-alerts", "disk full",
                       {{"Title", "Backup"}, {"Priority", "high"}, {"Tags", "warning, disk"}});
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["topic"], "ops-alerts");
  EXPECT_EQ(ok.json()["message"], "disk full");
  EXPECT_EQ(ok.json()["title"], "Backup");
  EXPECT_EQ(ok.json()["priority"], 4);
  EXPECT_EQ(ok.json()["tags"], json({"warning", "disk"}));
  EXPECT_EQ(ok.json()["event"], "message");
  const json got = fakes.notify().received("ntfy");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["headers"]["title"], "Backup");
  EXPECT_EQ(got[0]["body"], "disk full");
}

TEST(NotifyFake, ControlRoutesReadClearAndArmFaults) {
  sandbox::InProcess fakes;
  http(fakes.port(), "POST", "/webhook/a", R"({"event":"x"})", {{"X-Signature-256", "sha256=ab"}});
  const auto list = http(fakes.port(), "GET", "/_sandbox/notify/received?receiver=webhook");
  ASSERT_EQ(list.json().size(), 1u);
  EXPECT_EQ(list.json()[0]["headers"]["x-signature-256"], "sha256=ab");
  EXPECT_EQ(list.json()[0]["path"], "/webhook/a");
  EXPECT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/notify/faults", R"({"receiver":"webhook","status":502,"count":1})").status,
      204u);
  EXPECT_EQ(http(fakes.port(), "POST", "/webhook/a", "{}").status, 502u);
  EXPECT_EQ(http(fakes.port(), "POST", "/webhook/a", "{}").status, 200u);
  EXPECT_EQ(http(fakes.port(), "DELETE", "/_sandbox/notify/received").status, 204u);
  EXPECT_EQ(http(fakes.port(), "GET", "/_sandbox/notify/received").json(), json::array());
}

// A receiver's latency delays the answer, not the record: a sender killed while it waits has sent
// the message (what the console's kill -9 test of the morning summary needs).
TEST(NotifyFake, ALatencyDelaysTheAnswerNotTheRecord) {
  sandbox::InProcess fakes;
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/notify/latency", R"({"receiver":"chat"})").status, 400u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/notify/latency", R"({"receiver":"chat","latency_ms":500})").status,
            204u);
  auto answer = std::async(std::launch::async, [&] {
    return http(fakes.port(), "POST", "/chat/v1/spaces/AAA/messages?key=k&token=t", R"({"text":"hi"})");
  });
  EXPECT_TRUE(core::testing::eventually([&] { return fakes.notify().received("chat").size() == 1; }));
  EXPECT_EQ(answer.get().status, 200u);
  EXPECT_EQ(fakes.notify().received("chat").size(), 1u);
}
