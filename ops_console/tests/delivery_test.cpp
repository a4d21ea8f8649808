// Delivery (issue 7): notify() reaching each channel type in the sandbox with the vendor's body
// and our signature, the subscription matrix choosing the recipients, one retry on 429/5xx,
// timeouts, failures recorded with their reason, and the URL guard refusing private addresses.
#include "core/util/digest.hpp"
#include "core/util/standard_webhooks.hpp"
#include "ops_console/notify/notifier.hpp"
#include "ops_console/tests/notify_fixture.hpp"

namespace {

using nlohmann::json;
using namespace ops_console::notify;
using ops_console::testing::kBotToken;
using ops_console::testing::kSecret;
using ops_console::testing::NotifyTest;
using ops_console::testing::webhook_verifies;

struct DeliveryTest : NotifyTest {
  core::testing::IoThreads io{2};
  std::unique_ptr<core::db::Pool> pool;

  void SetUp() override {
    start_with(sandbox_env());
    pool = std::make_unique<core::db::Pool>(io.executor(), core::db::PoolOptions{.conninfo = database.url()});
  }
  void TearDown() override { pool.reset(); }

  // The settings the service reads from sandbox_env(), with changes.
  NotifySettings settings(bool allow_loopback = true) const {
    auto env = sandbox_env();
    env["NOTIFY_ALLOW_LOOPBACK"] = allow_loopback ? "true" : "false";
    core::config::Reader reader(core::config::Environment(env.begin(), env.end()));
    return read_notify_settings(reader);
  }
  std::vector<Delivery> notify(const std::string& key, Message message, NotifySettings s) {
    Notifier notifier(*pool, io.executor(), std::move(s));
    return io.run(notifier.notify(key, std::move(message)));
  }
  std::vector<Delivery> notify(const std::string& key, Message message = {.title = "T", .text = "body"}) {
    return notify(key, std::move(message), settings());
  }

  // A channel row written directly (as the routes would), returning its id.
  std::string channel(const std::string& type, const json& config, const std::string& owner = "NULL",
                      bool enabled = true) {
    return sql("INSERT INTO notification_channels (channel_type, owner_user_id, enabled, config) VALUES ('" + type +
               "', " + owner + ", " + (enabled ? "true" : "false") + ", '" + config.dump() + "') RETURNING id");
  }
  static std::map<std::string, bool> delivered(const std::vector<Delivery>& ds) {
    std::map<std::string, bool> out;
    for (const auto& d : ds) out[std::to_string(d.channel_id)] = d.delivered;
    return out;
  }
};

}  // namespace

TEST_F(DeliveryTest, EachChannelTypeGetsTheVendorsRequest) {
  const std::string chat = channel("chat_webhook", config_for("chat_webhook"));
  const std::string bot = channel("messenger_bot", config_for("messenger_bot"));
  const std::string push = channel("push_topic", config_for("push_topic"));
  const std::string hook = channel("webhook", config_for("webhook"));

  const auto ds = notify("ticket_escalated", {.title = "Ticket T1 escalated",
                                              .text = "Acme: printer <on fire> & smoking",
                                              .priority = "high",
                                              .tags = {"warning", "printer"}});
  ASSERT_EQ(ds.size(), 4u);
  for (const auto& d : ds) {
    EXPECT_TRUE(d.delivered) << d.channel_type << ": " << d.reason;
    EXPECT_EQ(d.http_status, 200) << d.channel_type;
    EXPECT_EQ(d.attempts, 1) << d.channel_type;
  }

  // Google Chat: {"text"} to the webhook URL as given, key and token included.
  const json chats = received("chat");
  ASSERT_EQ(chats.size(), 1u);
  EXPECT_EQ(chats[0]["path"], "/chat/v1/spaces/AAAA/messages?key=k&token=t");
  EXPECT_EQ(json::parse(chats[0]["body"].get<std::string>()),
            json({{"text", "*Ticket T1 escalated*\nAcme: printer <on fire> & smoking"}}));

  // Telegram: sendMessage with the token in the path, HTML escaped for parse_mode HTML.
  const json bots = received("telegram");
  ASSERT_EQ(bots.size(), 1u);
  EXPECT_EQ(bots[0]["path"], std::string("/telegram/bot") + kBotToken + "/sendMessage");
  EXPECT_EQ(json::parse(bots[0]["body"].get<std::string>()),
            json({{"chat_id", "-1001234567890"},
                  {"text", "<b>Ticket T1 escalated</b>\nAcme: printer &lt;on fire&gt; &amp; smoking"},
                  {"parse_mode", "HTML"}}));

  // ntfy: the message is the body; title, priority and tags are headers.
  const json pushes = received("ntfy");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0]["path"], "/ntfy/ops-alerts");
  EXPECT_EQ(pushes[0]["body"], "Acme: printer <on fire> & smoking");
  EXPECT_EQ(pushes[0]["headers"]["title"], "Ticket T1 escalated");
  EXPECT_EQ(pushes[0]["headers"]["priority"], "high");
  EXPECT_EQ(pushes[0]["headers"]["tags"], "warning,printer");

  // Webhook: our JSON, signed by Standard Webhooks under the channel's secret; the old header is gone.
  const json hooks = received("webhook");
  ASSERT_EQ(hooks.size(), 1u);
  const std::string raw = hooks[0]["body"];
  EXPECT_TRUE(hooks[0]["headers"]["webhook-id"].get<std::string>().starts_with("msg_")) << hooks[0].dump();
  EXPECT_TRUE(webhook_verifies(hooks[0], kSecret)) << hooks[0].dump();
  EXPECT_FALSE(webhook_verifies(hooks[0], "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));  // another secret
  EXPECT_FALSE(hooks[0]["headers"].contains("x-signature-256"));
  EXPECT_EQ(hooks[0]["headers"]["x-notify-event"], "ticket_escalated");
  EXPECT_EQ(hooks[0]["headers"]["content-type"], "application/json");
  const json payload = json::parse(raw);
  EXPECT_EQ(payload["event"], "ticket_escalated");
  EXPECT_EQ(payload["channel_id"], std::stol(hook));
  EXPECT_EQ(payload["title"], "Ticket T1 escalated");
  EXPECT_EQ(payload["text"], "Acme: printer <on fire> & smoking");
  EXPECT_EQ(payload["priority"], "high");
  EXPECT_EQ(payload["tags"], json({"warning", "printer"}));
  EXPECT_TRUE(payload["sent_at"].is_string());

  EXPECT_EQ(sql("SELECT string_agg(channel_type || ':' || delivered || ':' || event_key, ',' ORDER BY channel_id) "
                "FROM notification_deliveries"),
            "chat_webhook:true:ticket_escalated,messenger_bot:true:ticket_escalated,"
            "push_topic:true:ticket_escalated,webhook:true:ticket_escalated");
  (void)chat, (void)bot, (void)push;
}

TEST_F(DeliveryTest, NtfyTitlesOutsideAsciiAreEncodedWords) {
  channel("push_topic", config_for("push_topic"));
  notify("backup_failed", {.title = "Störung: Sicherung\r\nfehlgeschlagen", .text = "x"});
  const json pushes = received("ntfy");
  ASSERT_EQ(pushes.size(), 1u);
  // RFC 2047, which ntfy decodes; the line break is gone before encoding.
  EXPECT_EQ(pushes[0]["headers"]["title"], "=?UTF-8?B?" + core::base64("Störung: Sicherung  fehlgeschlagen") + "?=");
}

TEST_F(DeliveryTest, TheMatrixChoosesThePersonalChannels) {
  const std::string global = channel("webhook", config_for("webhook"));
  const std::string tech_push = channel("push_topic", {{"topic", "tech"}}, tech_id);
  const std::string tech_hook = channel("webhook", config_for("webhook"), tech_id);
  const std::string other_push = channel("push_topic", {{"topic", "other"}}, other_id);
  const std::string disabled = channel("push_topic", {{"topic", "off"}}, boss_id, false);

  // tech switches push_topic off for ticket_escalated only.
  ASSERT_EQ(call("PUT", "/api/me/notification-subscriptions",
                 {{"event_key", "ticket_escalated"}, {"channel_type", "push_topic"}, {"enabled", false}}, tech)
                .status,
            200u);

  EXPECT_EQ(delivered(notify("ticket_escalated")),
            (std::map<std::string, bool>{{global, true}, {tech_hook, true}, {other_push, true}}));
  EXPECT_EQ(delivered(notify("TICKET_ESCALATED")),  // keys ignore case
            (std::map<std::string, bool>{{global, true}, {tech_hook, true}, {other_push, true}}));
  EXPECT_EQ(delivered(notify("backup_failed")),  // no row: on
            (std::map<std::string, bool>{{global, true}, {tech_push, true}, {tech_hook, true}, {other_push, true}}));
  for (const auto& r : received("ntfy")) EXPECT_NE(r["path"], "/ntfy/off");

  // A known key that is inactive sends nothing; an active one sends as usual.
  ASSERT_EQ(call("POST", "/api/admin/notify-event-keys", {{"key", "backup_failed"}, {"is_active", false}}, boss).status,
            201u);
  const auto before = received("").size();
  EXPECT_TRUE(notify("backup_failed").empty());
  EXPECT_EQ(received("").size(), before);
}

TEST_F(DeliveryTest, OneRetryOn429And5xxThenTheReasonIsRecorded) {
  const std::string hook = channel("webhook", config_for("webhook"));

  fakes.notify().set_fault("webhook", {.status = 503, .count = 1});
  auto ds = notify("e1");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_TRUE(ds[0].delivered);
  EXPECT_EQ(ds[0].attempts, 2);
  // The retry is the same message: the same webhook-id, still verifying.
  const json tries = received("webhook");
  ASSERT_EQ(tries.size(), 2u);
  EXPECT_EQ(tries[0]["headers"]["webhook-id"], tries[1]["headers"]["webhook-id"]);
  EXPECT_TRUE(webhook_verifies(tries[1], kSecret)) << tries[1].dump();

  fakes.notify().set_fault("webhook", {.status = 429, .count = 1, .retry_after = 1});
  ds = notify("e2");
  EXPECT_TRUE(ds[0].delivered);
  EXPECT_EQ(ds[0].attempts, 2);

  fakes.notify().set_fault("webhook", {.status = 500, .count = 3});
  ds = notify("e3");
  EXPECT_FALSE(ds[0].delivered);
  EXPECT_EQ(ds[0].attempts, 2);  // one retry, not more
  EXPECT_EQ(ds[0].http_status, 500);
  EXPECT_EQ(ds[0].reason, "HTTP 500: receiver failed");

  fakes.notify().set_fault("webhook", {.status = 404, .count = 1});
  ds = notify("e4");
  EXPECT_FALSE(ds[0].delivered);
  EXPECT_EQ(ds[0].attempts, 1);  // a 4xx other than 429 is final

  EXPECT_EQ(
      sql("SELECT string_agg(event_key || ':' || delivered || ':' || attempts || ':' || coalesce(reason, '-'), ',' "
          "ORDER BY id) FROM notification_deliveries"),
      "e1:true:2:-,e2:true:2:-,e3:false:2:HTTP 500: receiver failed,e4:false:1:HTTP 404: receiver failed");
  EXPECT_EQ(received("webhook").size(), 2u + 2u + 2u + 1u);
  (void)hook;
}

TEST_F(DeliveryTest, TelegramRefusalsKeepTheBotApisWords) {
  channel("messenger_bot", config_for("messenger_bot"));
  fakes.notify().set_fault("telegram", {.status = 400, .count = 1});
  const auto ds = notify("e");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_FALSE(ds[0].delivered);
  EXPECT_EQ(ds[0].reason, "HTTP 400: Bad Request: chat not found");
}

TEST_F(DeliveryTest, ATimeoutIsRecordedNotThrown) {
  // Nothing answers on this port: accept the connection and never reply.
  boost::asio::io_context silent;
  boost::asio::ip::tcp::acceptor acceptor(silent, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const std::string url = "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/hook";
  const std::string hook = channel("webhook", {{"url", url}, {"secret", kSecret}});
  const auto ds = notify("e");  // NOTIFY_TIMEOUT_SECONDS=1
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_FALSE(ds[0].delivered);
  EXPECT_EQ(ds[0].attempts, 1);  // a POST that may have arrived is not sent twice
  EXPECT_NE(ds[0].reason.find("no response"), std::string::npos) << ds[0].reason;
  EXPECT_NE(ds[0].reason.find("imeout"), std::string::npos) << ds[0].reason;
  EXPECT_EQ(sql("SELECT delivered FROM notification_deliveries WHERE channel_id = " + hook), "f");
}

TEST_F(DeliveryTest, PrivateAndLoopbackAddressesAreRefusedAfterResolution) {
  // "localhost" is on the chat allowlist here and looks harmless; it resolves to loopback.
  const std::string by_name = channel("chat_webhook", {{"url", "https://localhost:" + std::to_string(fakes.port()) +
                                                                   "/chat/v1/spaces/A/messages?key=k&token=t"}});
  const std::string by_address = channel("webhook", {{"url", webhook_url()}, {"secret", kSecret}});
  auto s = settings(false);
  s.chat_webhook_hosts = HostAllowlist({"localhost"});
  const auto ds = notify("e", {.title = "T", .text = "x"}, s);
  ASSERT_EQ(ds.size(), 2u);
  for (const auto& d : ds) {
    EXPECT_FALSE(d.delivered);
    EXPECT_EQ(d.attempts, 0);
    EXPECT_FALSE(d.http_status.has_value());
  }
  EXPECT_EQ(ds[0].reason.rfind("refused: localhost resolves to ", 0), 0u) << ds[0].reason;
  EXPECT_NE(ds[0].reason.find("a loopback address"), std::string::npos) << ds[0].reason;
  EXPECT_EQ(ds[1].reason, "refused: must use https");  // and 127.0.0.1 would be refused next
  EXPECT_EQ(received("").size(), 0u);                  // nothing left the process
  EXPECT_EQ(sql("SELECT count(*) FROM notification_deliveries WHERE NOT delivered AND reason LIKE 'refused: %'"), "2");

  // With loopback allowed (the sandbox setting) both pass the guard: the plain-http one is
  // delivered; the https one reaches the sandbox's port, which speaks no TLS.
  s.allow_loopback = true;
  const auto allowed = notify("e", {.title = "T", .text = "x"}, s);
  ASSERT_EQ(allowed.size(), 2u);
  EXPECT_EQ(allowed[0].reason.find("refused"), std::string::npos) << allowed[0].reason;
  EXPECT_FALSE(allowed[0].delivered);
  EXPECT_TRUE(allowed[1].delivered) << allowed[1].reason;
  EXPECT_EQ(received("webhook").size(), 1u);
  (void)by_name, (void)by_address;
}

TEST_F(DeliveryTest, AnUnresolvableHostIsRecorded) {
  channel("webhook", {{"url", "https://hooks.invalid/ops"}, {"secret", kSecret}});
  const auto ds = notify("e");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_FALSE(ds[0].delivered);
  EXPECT_EQ(ds[0].reason.rfind("refused: cannot resolve hooks.invalid", 0), 0u) << ds[0].reason;
}

TEST_F(DeliveryTest, ADatabaseFaultIsLoggedNotThrown) {
  channel("webhook", config_for("webhook"));
  core::db::Pool dead(
      io.executor(),
      {.conninfo = "postgresql://postgres@127.0.0.1:" + std::to_string(core::testing::free_port()) + "/x",
       .connect_timeout = std::chrono::milliseconds(500),
       .acquire_timeout = std::chrono::milliseconds(500)});
  Notifier notifier(dead, io.executor(), settings());
  std::vector<Delivery> ds{Delivery{}};
  EXPECT_NO_THROW(ds = io.run(notifier.notify("e", {.title = "T", .text = "x"})));
  EXPECT_TRUE(ds.empty());
  EXPECT_EQ(received("").size(), 0u);
}
