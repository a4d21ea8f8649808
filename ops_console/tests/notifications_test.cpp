// Notification channels and the subscription matrix (issue 7): every route of the spec, the
// access rules for global and personal channels, the validators, and the personal channels'
// test sends reaching the sandbox.
#include "ops_console/tests/notify_fixture.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::kBotToken;
using ops_console::testing::kPassword;
using ops_console::testing::NotifyTest;

constexpr const char* kChannels = "/api/notification-channels";
constexpr const char* kMatrix = "/api/me/notification-subscriptions";

struct ChannelsTest : NotifyTest {
  void SetUp() override { start_with(sandbox_env()); }

  // Creates a channel as the administrator; returns its id.
  std::string create(const std::string& type, const json& owner = nullptr, const std::string& name = "") {
    json body{{"channel_type", type}, {"config", config_for(type)}, {"name", name}};
    if (!owner.is_null()) body["owner_user_id"] = owner;
    const auto res = call("POST", kChannels, body, boss);
    EXPECT_EQ(res.status, 201u) << res.body;
    return std::to_string(res.json()["id"].get<long>());
  }
  std::string at(const std::string& id) const { return std::string(kChannels) + "/" + id; }
  // Each body is a 400 naming its field, and `table` gains no row.
  void expect_refused(const std::string& method, const std::string& path,
                      const std::vector<std::pair<json, std::string>>& bad, const std::string& token,
                      const std::string& table) {
    const std::string before = sql("SELECT count(*) FROM " + table);
    for (const auto& [body, field] : bad) {
      const auto res = call(method, path, body, token);
      EXPECT_EQ(res.status, 400u) << body;
      if (res.status == 400u) {
        EXPECT_EQ(res.json()["errors"][0]["field"], field) << res.body;
      }
    }
    EXPECT_EQ(sql("SELECT count(*) FROM " + table), before);
  }
  std::vector<std::string> ids(const std::string& query, const std::string& token) {
    const auto res = call("GET", std::string(kChannels) + query, nullptr, token);
    EXPECT_EQ(res.status, 200u) << res.body;
    std::vector<std::string> out;
    const json list = res.json();
    for (const auto& c : list) out.push_back(std::to_string(c["id"].get<long>()));
    return out;
  }
};

// The validators, without loopback allowed: what production sees.
struct ValidatorsTest : NotifyTest {
  void SetUp() override { start_with({}); }
  unsigned post(const std::string& type, const json& config, std::string* field = nullptr) {
    const auto res = call("POST", kChannels, {{"channel_type", type}, {"config", config}}, boss);
    if (field && res.status == 400) *field = res.json()["errors"][0]["field"];
    return res.status;
  }
};

}  // namespace

TEST_F(ChannelsTest, EveryRouteNeedsASessionAndTheAdminRoutesAnAdministrator) {
  const auto before = database_work();
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"GET", kChannels},
                                                        {"POST", kChannels},
                                                        {"GET", at("1")},
                                                        {"PATCH", at("1")},
                                                        {"DELETE", at("1")},
                                                        {"POST", at("1") + "/test"},
                                                        {"POST", at("1") + "/rotate-secret"},
                                                        {"GET", "/api/me/channels"},
                                                        {"PUT", "/api/me/channels/push_topic"},
                                                        {"DELETE", "/api/me/channels/push_topic"},
                                                        {"POST", "/api/me/channels/push_topic/test"},
                                                        {"POST", "/api/me/channels/webhook/rotate-secret"},
                                                        {"GET", kMatrix},
                                                        {"PUT", kMatrix}})
    EXPECT_EQ(call(method, path, json::object()).status, 401u) << method << " " << path;
  EXPECT_EQ(database_work(), before);
  EXPECT_EQ(
      call("POST", kChannels, {{"channel_type", "push_topic"}, {"config", config_for("push_topic")}}, tech).status,
      403u);
  EXPECT_EQ(sql("SELECT count(*) FROM notification_channels"), "0");
}

TEST_F(ChannelsTest, AdminsCreateEveryTypeAndSeeAllRowsWithOwnerEmail) {
  const auto created =
      call("POST", kChannels,
           {{"channel_type", "messenger_bot"}, {"name", "NOC group"}, {"config", config_for("messenger_bot")}}, boss);
  ASSERT_EQ(created.status, 201u) << created.body;
  const json bot = created.json();
  EXPECT_EQ(bot["channel_type"], "messenger_bot");
  EXPECT_TRUE(bot["owner_user_id"].is_null());
  EXPECT_EQ(bot["name"], "NOC group");
  EXPECT_EQ(bot["enabled"], true);
  EXPECT_EQ(bot["config"], json({{"chat_id", "-1001234567890"}}));  // the token is write-only ...
  EXPECT_EQ(bot["secrets_set"], json::array({"bot_token"}));        // ... and known to be set
  EXPECT_EQ(created.body.find(kBotToken), std::string::npos);

  const std::string global_chat = create("chat_webhook");
  const std::string global_push = create("push_topic");
  const std::string global_hook = create("webhook");
  const std::string techs = create("push_topic", std::stol(tech_id));
  const std::string bot_id = std::to_string(bot["id"].get<long>());

  EXPECT_EQ(ids("", boss), (std::vector<std::string>{bot_id, global_chat, global_push, global_hook, techs}));
  EXPECT_EQ(ids("?owner=all", boss), ids("", boss));
  EXPECT_EQ(ids("?owner=global", boss), (std::vector<std::string>{bot_id, global_chat, global_push, global_hook}));
  EXPECT_EQ(ids("?owner=personal", boss), std::vector<std::string>{techs});
  const json personal = call("GET", std::string(kChannels) + "?owner=personal", nullptr, boss).json();
  EXPECT_EQ(personal[0]["owner_email"], "tech@msp.example");
  EXPECT_EQ(personal[0]["owner_user_id"], std::stol(tech_id));

  // Everyone else sees the global channels only, and not where they post.
  EXPECT_EQ(ids("", tech), (std::vector<std::string>{bot_id, global_chat, global_push, global_hook}));
  EXPECT_EQ(ids("?owner=personal", tech), std::vector<std::string>{});
  const json seen = call("GET", kChannels, nullptr, other).json();
  for (const auto& c : seen) {
    EXPECT_FALSE(c.contains("config")) << c;
    EXPECT_FALSE(c.contains("owner_email")) << c;
  }

  const auto bad = call("GET", std::string(kChannels) + "?owner=mine", nullptr, boss);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(bad.json()["errors"][0]["field"], "owner");
}

TEST_F(ChannelsTest, CreateRefusesBadBodiesAndASecondPersonalChannelOfAType) {
  create("push_topic", std::stol(tech_id));
  const auto twice = call(
      "POST", kChannels,
      {{"channel_type", "push_topic"}, {"owner_user_id", std::stol(tech_id)}, {"config", config_for("push_topic")}},
      boss);
  EXPECT_EQ(twice.status, 409u) << twice.body;
  // Global channels of one type may be many.
  create("push_topic");
  create("push_topic");

  const std::vector<std::pair<json, std::string>> bad = {
      {{{"channel_type", "pager"}, {"config", json::object()}}, "channel_type"},
      {{{"channel_type", "push_topic"}}, "config"},
      {{{"channel_type", "push_topic"}, {"config", "ops-alerts"}}, "config"},
      {{{"channel_type", "push_topic"}, {"config", config_for("push_topic")}, {"owner_user_id", 999999}},
       "owner_user_id"},
      {{{"channel_type", "push_topic"}, {"config", config_for("push_topic")}, {"owner_user_id", "me"}},
       "owner_user_id"},
      {{{"channel_type", "push_topic"}, {"config", config_for("push_topic")}, {"enabled", "yes"}}, "enabled"},
      {{{"channel_type", "push_topic"}, {"config", config_for("push_topic")}, {"name", std::string(201, 'n')}}, "name"},
  };
  expect_refused("POST", kChannels, bad, boss, "notification_channels");
}

TEST_F(ChannelsTest, PerIdRoutesBelongToAdminsAndTheOwner) {
  const std::string global = create("webhook");
  const std::string techs = create("messenger_bot", std::stol(tech_id), "my phone");

  // A global channel: administrators only.
  EXPECT_EQ(call("GET", at(global), nullptr, boss).status, 200u);
  for (const auto& token : {tech, other}) {
    EXPECT_EQ(call("GET", at(global), nullptr, token).status, 403u);
    EXPECT_EQ(call("PATCH", at(global), {{"name", "mine now"}}, token).status, 403u);
    EXPECT_EQ(call("DELETE", at(global), nullptr, token).status, 403u);
    EXPECT_EQ(call("POST", at(global) + "/test", nullptr, token).status, 403u);
  }
  // A personal channel: its owner and administrators, not another user.
  EXPECT_EQ(call("GET", at(techs), nullptr, tech).json()["name"], "my phone");
  EXPECT_EQ(call("GET", at(techs), nullptr, boss).json()["owner_email"], "tech@msp.example");
  EXPECT_EQ(call("GET", at(techs), nullptr, other).status, 403u);
  EXPECT_EQ(call("PATCH", at(techs), {{"name", "mine"}}, other).status, 403u);
  EXPECT_EQ(call("DELETE", at(techs), nullptr, other).status, 403u);
  EXPECT_EQ(call("POST", at(techs) + "/test", nullptr, other).status, 403u);
  EXPECT_EQ(sql("SELECT name FROM notification_channels WHERE id = " + techs), "my phone");
  EXPECT_EQ(received("telegram").size(), 0u);

  // PATCH: partial; a config merges over the stored one, so the write-only token stays.
  const auto patched = call("PATCH", at(techs), {{"enabled", false}, {"config", {{"chat_id", 42}}}}, tech);
  ASSERT_EQ(patched.status, 200u) << patched.body;
  EXPECT_EQ(patched.json()["name"], "my phone");
  EXPECT_EQ(patched.json()["enabled"], false);
  EXPECT_EQ(patched.json()["config"]["chat_id"], "42");
  const auto tested = call("POST", at(techs) + "/test", nullptr, tech);
  ASSERT_EQ(tested.status, 200u) << tested.body;
  EXPECT_EQ(tested.json()["delivered"], true) << tested.body;
  EXPECT_EQ(tested.json()["channel_id"], std::stol(techs));
  const json sent = received("telegram");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["path"], std::string("/telegram/bot") + kBotToken + "/sendMessage");
  EXPECT_EQ(json::parse(sent[0]["body"].get<std::string>())["chat_id"], "42");

  // What PATCH refuses changes nothing.
  EXPECT_EQ(call("PATCH", at(techs), {{"channel_type", "webhook"}}, tech).status, 400u);
  EXPECT_EQ(call("PATCH", at(techs), {{"owner_user_id", std::stol(other_id)}}, boss).status, 400u);
  EXPECT_EQ(call("PATCH", at(techs), {{"config", {{"chat_id", "not a chat"}}}}, tech).status, 400u);
  EXPECT_EQ(call("PATCH", at(techs), {{"name", nullptr}}, tech).status, 400u);
  EXPECT_EQ(sql("SELECT config->>'chat_id' || ' ' || channel_type FROM notification_channels WHERE id = " + techs),
            "42 messenger_bot");

  EXPECT_EQ(call("GET", at("999999"), nullptr, boss).status, 404u);
  EXPECT_EQ(call("PATCH", at("999999"), {{"name", "x"}}, boss).status, 404u);
  EXPECT_EQ(call("GET", at("abc"), nullptr, boss).status, 400u);
  EXPECT_EQ(call("DELETE", at(techs), nullptr, tech).status, 204u);
  EXPECT_EQ(call("GET", at(techs), nullptr, tech).status, 404u);
  EXPECT_EQ(call("DELETE", at(global), nullptr, boss).status, 204u);
  EXPECT_EQ(sql("SELECT count(*) FROM notification_channels"), "0");
}

// A webhook secret saved before Standard Webhooks (not whsec_) survives updates that leave it
// alone, and still signs (its own bytes are the key); a new one must be whsec_ (README).
TEST_F(ChannelsTest, AnOlderWebhookSecretIsKeptButANewOneMustBeStandard) {
  const std::string global = create("webhook");
  const std::string older = "an-older-secret-0123456789";
  sql("UPDATE notification_channels SET config = jsonb_set(config, '{secret}', '\"" + older +
      "\"') WHERE id = " + global);
  const auto renamed = call("PATCH", at(global), {{"name", "renamed"}}, boss);
  ASSERT_EQ(renamed.status, 200u) << renamed.body;
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE id = " + global), older);
  const auto res = call("PATCH", at(global), {{"config", {{"secret", "another-older-secret-0123"}}}}, boss);
  EXPECT_EQ(res.status, 400u) << res.body;
  EXPECT_NE(res.body.find("config.secret"), std::string::npos) << res.body;
  EXPECT_EQ(call("PATCH", at(global), {{"config", {{"secret", ops_console::testing::kSecret}}}}, boss).status, 200u);
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE id = " + global),
            ops_console::testing::kSecret);

  // A personal webhook with an older secret: PUT again without it keeps it.
  ASSERT_EQ(call("PUT", "/api/me/channels/webhook", {{"config", config_for("webhook")}}, tech).status, 201u);
  sql("UPDATE notification_channels SET config = jsonb_set(config, '{secret}', '\"" + older +
      "\"') WHERE channel_type = 'webhook' AND owner_user_id = " + tech_id);
  const auto again = call("PUT", "/api/me/channels/webhook", {{"config", {{"url", webhook_url()}}}}, tech);
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE owner_user_id = " + tech_id), older);
}

// A webhook channel created without a secret gets a Standard Webhooks one (issue 31, part 5), shown
// in the creating answer only: the channel's GET and the lists say that a secret is set, never
// which. The receiver verifies the test message with it. A secret given is kept, and not shown
// back; a bad one is a 400 naming config.secret, and saves nothing.
TEST_F(ChannelsTest, AWebhookSecretIsGeneratedWhenNoneIsGivenAndShownOnce) {
  namespace sw = core::standard_webhooks;
  const auto created =
      call("POST", kChannels, {{"channel_type", "webhook"}, {"config", {{"url", webhook_url("made")}}}}, boss);
  ASSERT_EQ(created.status, 201u) << created.body;
  const std::string secret = created.json().value("secret", "");
  ASSERT_TRUE(sw::decode_secret(secret)) << created.body;
  EXPECT_EQ(sw::decode_secret(secret)->size(), sw::kKeyBytes);
  EXPECT_EQ(created.json()["secrets_set"], json::array({"secret"}));
  EXPECT_FALSE(created.json()["config"].contains("secret"));
  const std::string id = std::to_string(created.json()["id"].get<long>());
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE id = " + id), secret);

  const auto later = call("GET", at(id), nullptr, boss);
  ASSERT_EQ(later.status, 200u) << later.body;
  EXPECT_EQ(later.json()["secrets_set"], json::array({"secret"}));  // set, and no more than that
  EXPECT_FALSE(later.json().contains("secret")) << later.body;
  EXPECT_EQ(later.body.find(secret.substr(6)), std::string::npos);
  EXPECT_EQ(call("GET", kChannels, nullptr, boss).body.find(secret.substr(6)), std::string::npos);
  ASSERT_EQ(call("POST", at(id) + "/test", nullptr, boss).json()["delivered"], true);
  EXPECT_TRUE(ops_console::testing::webhook_verifies(received("webhook").back(), secret));

  // A personal one: the secret is in the PUT's channel, and the test message verifies with it.
  const auto mine = call("PUT", "/api/me/channels/webhook", {{"config", {{"url", webhook_url("mine")}}}}, tech);
  ASSERT_EQ(mine.status, 201u) << mine.body;
  const std::string personal = mine.json()["channel"].value("secret", "");
  ASSERT_TRUE(sw::decode_secret(personal)) << mine.body;
  EXPECT_NE(personal, secret);
  EXPECT_EQ(mine.json()["test"]["delivered"], true) << mine.body;
  EXPECT_TRUE(ops_console::testing::webhook_verifies(received("webhook").back(), personal));
  // Saved again without it: kept, and not shown.
  const auto again = call("PUT", "/api/me/channels/webhook", {{"config", {{"url", webhook_url("mine")}}}}, tech);
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_FALSE(again.json()["channel"].contains("secret")) << again.body;
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE owner_user_id = " + tech_id), personal);
  EXPECT_EQ(call("GET", "/api/me/channels", nullptr, tech).body.find(personal.substr(6)), std::string::npos);

  // One's own: kept as given, not shown back.
  const auto given = call("POST", kChannels, {{"channel_type", "webhook"}, {"config", config_for("webhook")}}, boss);
  ASSERT_EQ(given.status, 201u) << given.body;
  EXPECT_FALSE(given.json().contains("secret")) << given.body;
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE id = " +
                std::to_string(given.json()["id"].get<long>())),
            ops_console::testing::kSecret);

  // A bad one: a 400 naming it, whichever route.
  const json bad{{"url", webhook_url()}, {"secret", "whsec_c2hvcnQ="}};
  expect_refused("POST", kChannels, {{{{"channel_type", "webhook"}, {"config", bad}}, "config.secret"}}, boss,
                 "notification_channels");
  expect_refused("PUT", "/api/me/channels/webhook", {{{{"config", bad}}, "config.secret"}}, other,
                 "notification_channels");
  expect_refused("PATCH", at(id), {{{{"config", {{"secret", ""}}}}, "config.secret"}}, boss, "notification_channels");
  EXPECT_EQ(sql("SELECT config->>'secret' FROM notification_channels WHERE id = " + id), secret);
}

// Rotation (issue 31, part 5): a new secret, shown in that answer only; the next message is signed
// with it, so a receiver holding the old one no longer verifies. An administrator rotates any
// webhook channel, its owner a personal one (by id or by type); others get 403, other types none.
TEST_F(ChannelsTest, RotatingAWebhookSecretChangesTheSignatureTheReceiverSees) {
  namespace sw = core::standard_webhooks;
  using ops_console::testing::kSecret;
  using ops_console::testing::webhook_verifies;
  const std::string global = create("webhook");  // with kSecret
  ASSERT_EQ(call("POST", at(global) + "/test", nullptr, boss).json()["delivered"], true);
  EXPECT_TRUE(webhook_verifies(received("webhook").back(), kSecret));

  const auto rotated = call("POST", at(global) + "/rotate-secret", nullptr, boss);
  ASSERT_EQ(rotated.status, 200u) << rotated.body;
  const std::string fresh = rotated.json().value("secret", "");
  ASSERT_TRUE(sw::decode_secret(fresh)) << rotated.body;
  EXPECT_NE(fresh, kSecret);
  EXPECT_EQ(rotated.json()["id"], std::stol(global));
  EXPECT_EQ(rotated.json()["secrets_set"], json::array({"secret"}));
  EXPECT_FALSE(call("GET", at(global), nullptr, boss).json().contains("secret"));
  ASSERT_EQ(call("POST", at(global) + "/test", nullptr, boss).json()["delivered"], true);
  EXPECT_TRUE(webhook_verifies(received("webhook").back(), fresh));
  EXPECT_FALSE(webhook_verifies(received("webhook").back(), kSecret));
  const auto twice = call("POST", at(global) + "/rotate-secret", nullptr, boss);
  EXPECT_NE(twice.json().value("secret", ""), fresh);

  // The owner of a personal one, by type and by id; nobody else.
  ASSERT_EQ(call("PUT", "/api/me/channels/webhook", {{"config", config_for("webhook")}}, tech).status, 201u);
  const std::string personal = sql("SELECT id FROM notification_channels WHERE owner_user_id = " + tech_id);
  const auto by_type = call("POST", "/api/me/channels/webhook/rotate-secret", nullptr, tech);
  ASSERT_EQ(by_type.status, 200u) << by_type.body;
  const std::string mine = by_type.json().value("secret", "");
  ASSERT_TRUE(sw::decode_secret(mine)) << by_type.body;
  ASSERT_EQ(call("POST", "/api/me/channels/webhook/test", nullptr, tech).json()["delivered"], true);
  EXPECT_TRUE(webhook_verifies(received("webhook").back(), mine));
  EXPECT_FALSE(webhook_verifies(received("webhook").back(), kSecret));
  const auto by_id = call("POST", at(personal) + "/rotate-secret", nullptr, tech);
  ASSERT_EQ(by_id.status, 200u) << by_id.body;
  EXPECT_NE(by_id.json().value("secret", ""), mine);
  EXPECT_EQ(call("POST", at(personal) + "/rotate-secret", nullptr, other).status, 403u);
  EXPECT_EQ(call("POST", at(global) + "/rotate-secret", nullptr, tech).status, 403u);
  EXPECT_EQ(call("POST", "/api/me/channels/webhook/rotate-secret", nullptr, other).status, 404u);

  // Other types have no secret to rotate; an unknown channel is a 404.
  const std::string push = create("push_topic");
  EXPECT_EQ(call("POST", at(push) + "/rotate-secret", nullptr, boss).status, 409u);
  const auto not_webhook = call("POST", "/api/me/channels/push_topic/rotate-secret", nullptr, tech);
  EXPECT_EQ(not_webhook.status, 400u);
  EXPECT_EQ(not_webhook.json()["errors"][0]["field"], "type");
  EXPECT_EQ(call("POST", at("999999") + "/rotate-secret", nullptr, boss).status, 404u);
  EXPECT_EQ(sql("SELECT config->>'topic' FROM notification_channels WHERE id = " + push), "ops-alerts");
}

TEST_F(ChannelsTest, PersonalChannelsUpsertTestAndDelete) {
  // Created: 201, with the test message delivered.
  const auto first = call("PUT", "/api/me/channels/push_topic", {{"config", {{"mint_topic", true}}}}, tech);
  ASSERT_EQ(first.status, 201u) << first.body;
  const json channel = first.json()["channel"];
  const std::string topic = channel["config"]["topic"];
  EXPECT_EQ(topic.rfind("ops-", 0), 0u) << topic;
  EXPECT_EQ(topic.size(), 4u + 43u);  // 32 random bytes, base64url
  EXPECT_EQ(channel["owner_user_id"], std::stol(tech_id));
  EXPECT_EQ(first.json()["test"]["delivered"], true) << first.body;
  EXPECT_TRUE(first.json()["test"]["reason"].is_null());
  ASSERT_EQ(received("ntfy").size(), 1u);
  EXPECT_EQ(received("ntfy")[0]["path"], "/ntfy/" + topic);

  // Saved again: the same row, 200; another user's channel of that type is their own.
  const auto second =
      call("PUT", "/api/me/channels/push_topic", {{"name", "phone"}, {"config", {{"topic", "tech-phone"}}}}, tech);
  ASSERT_EQ(second.status, 200u) << second.body;
  EXPECT_EQ(second.json()["channel"]["id"], channel["id"]);
  EXPECT_EQ(second.json()["channel"]["config"]["topic"], "tech-phone");
  EXPECT_EQ(call("PUT", "/api/me/channels/push_topic", {{"config", {{"topic", "other-phone"}}}}, other).status, 201u);
  EXPECT_EQ(sql("SELECT count(*) FROM notification_channels WHERE channel_type = 'push_topic'"), "2");
  // The partial unique index holds even against a direct insert.
  EXPECT_ANY_THROW(
      sql("INSERT INTO notification_channels (channel_type, owner_user_id, config) VALUES ('push_topic', " + tech_id +
          ", '{\"topic\": \"x\"}')"));

  const json mine = call("GET", "/api/me/channels", nullptr, tech).json();
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0]["name"], "phone");

  const auto again = call("POST", "/api/me/channels/push_topic/test", nullptr, tech);
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(again.json()["delivered"], true);
  EXPECT_EQ(received("ntfy").back()["path"], "/ntfy/tech-phone");
  EXPECT_EQ(sql("SELECT count(*) FROM notification_deliveries WHERE delivered AND event_key IS NULL"), "4");

  EXPECT_EQ(call("DELETE", "/api/me/channels/push_topic", nullptr, tech).status, 204u);
  EXPECT_EQ(call("DELETE", "/api/me/channels/push_topic", nullptr, tech).status, 404u);
  EXPECT_EQ(call("POST", "/api/me/channels/push_topic/test", nullptr, tech).status, 404u);
  EXPECT_EQ(call("POST", "/api/me/channels/webhook/test", nullptr, tech).status, 404u);
  EXPECT_EQ(call("GET", "/api/me/channels", nullptr, tech).json(), json::array());
  EXPECT_EQ(call("GET", "/api/me/channels", nullptr, other).json().size(), 1u);  // untouched

  // A mint_topic that is not a boolean is a 400 naming it, not a server error.
  const auto not_boolean = call("PUT", "/api/me/channels/push_topic", {{"config", {{"mint_topic", "yes"}}}}, tech);
  EXPECT_EQ(not_boolean.status, 400u) << not_boolean.body;
  EXPECT_EQ(not_boolean.json()["errors"][0]["field"], "config.mint_topic");

  const auto unknown = call("PUT", "/api/me/channels/pager", {{"config", json::object()}}, tech);
  EXPECT_EQ(unknown.status, 400u);
  EXPECT_EQ(unknown.json()["errors"][0]["field"], "type");
  EXPECT_EQ(call("DELETE", "/api/me/channels/pager", nullptr, tech).status, 400u);
}

TEST_F(ChannelsTest, AFailingTestSendDoesNotFailTheSave) {
  fakes.notify().set_fault("telegram", {.status = 401, .count = 1});
  const auto saved = call("PUT", "/api/me/channels/messenger_bot", {{"config", config_for("messenger_bot")}}, tech);
  ASSERT_EQ(saved.status, 201u) << saved.body;
  const json test = saved.json()["test"];
  EXPECT_EQ(test["delivered"], false);
  EXPECT_EQ(test["http_status"], 401);
  EXPECT_EQ(test["reason"], "HTTP 401: Unauthorized");  // the Bot API's own words
  EXPECT_EQ(test["attempts"], 1);                       // a 401 is not retried
  EXPECT_EQ(sql("SELECT count(*) FROM notification_channels WHERE owner_user_id = " + tech_id), "1");
  EXPECT_EQ(sql("SELECT delivered::text || ' ' || reason FROM notification_deliveries"),
            "false HTTP 401: Unauthorized");

  // Saved again without the token: the stored one is kept (it is never shown to be re-sent).
  const auto resaved = call("PUT", "/api/me/channels/messenger_bot", {{"config", {{"chat_id", "@msp_noc"}}}}, tech);
  ASSERT_EQ(resaved.status, 200u) << resaved.body;
  EXPECT_EQ(resaved.json()["test"]["delivered"], true) << resaved.body;
  EXPECT_EQ(received("telegram").back()["path"], std::string("/telegram/bot") + kBotToken + "/sendMessage");

  // A webhook receiver that is down: saved, not delivered, the reason says why.
  fakes.notify().set_fault("webhook", {.status = 503, .count = 5});
  const auto hook = call("PUT", "/api/me/channels/webhook", {{"config", config_for("webhook")}}, tech);
  ASSERT_EQ(hook.status, 201u) << hook.body;
  EXPECT_EQ(hook.json()["test"]["delivered"], false);
  EXPECT_EQ(hook.json()["test"]["attempts"], 2);  // one retry
  EXPECT_EQ(hook.json()["test"]["reason"], "HTTP 503: receiver failed");
}

// The secret fields are named once, by notification_secret_fields(): name another there and the
// renderer hides it and an update keeps it, with no change to the service.
TEST_F(ChannelsTest, SecretFieldsAreThoseTheDatabaseNames) {
  sql("CREATE OR REPLACE FUNCTION notification_secret_fields() RETURNS text[] LANGUAGE sql IMMUTABLE "
      "AS $$ SELECT '{bot_token,secret,chat_id}'::text[] $$");
  const auto saved = call("PUT", "/api/me/channels/messenger_bot", {{"config", config_for("messenger_bot")}}, tech);
  ASSERT_EQ(saved.status, 201u) << saved.body;
  EXPECT_EQ(saved.json()["channel"]["config"], json::object());
  EXPECT_EQ(saved.json()["channel"]["secrets_set"], json({"bot_token", "chat_id"}));

  // Saved again with a new token only: the stored chat id is kept, as a secret is.
  const auto resaved = call("PUT", "/api/me/channels/messenger_bot",
                            {{"config", {{"bot_token", "42:AnotherTokenOfTwentyChars"}}}}, tech);
  ASSERT_EQ(resaved.status, 200u) << resaved.body;
  EXPECT_EQ(sql("SELECT config->>'chat_id' || ' ' || (config->>'bot_token') FROM notification_channels"),
            "-1001234567890 42:AnotherTokenOfTwentyChars");
}

TEST_F(ChannelsTest, SubscriptionMatrixDefaultsToTrueAndUpserts) {
  for (const auto& [key, order] :
       std::vector<std::pair<std::string, int>>{{"ticket_created", 20}, {"backup_failed", 10}, {"sla_breach", 30}})
    ASSERT_EQ(call("POST", "/api/admin/notify-event-keys", {{"key", key}, {"sort_order", order}}, boss).status, 201u);
  ASSERT_EQ(call("POST", "/api/admin/notify-event-keys", {{"key", "retired"}, {"is_active", false}}, boss).status,
            201u);

  const json fresh = call("GET", kMatrix, nullptr, tech).json();
  // gitforge_push is seeded by its migration (0011), after these by its sort order of 100.
  EXPECT_EQ(fresh["eventKeys"], json({"backup_failed", "ticket_created", "sla_breach", "gitforge_push"}));
  EXPECT_EQ(fresh["channelTypes"], json({"chat_webhook", "messenger_bot", "push_topic", "webhook"}));
  for (const auto& key : fresh["eventKeys"])
    for (const auto& type : fresh["channelTypes"])
      EXPECT_EQ(fresh["matrix"][key.get<std::string>()][type.get<std::string>()], true);

  const auto off =
      call("PUT", kMatrix, {{"event_key", "Ticket_Created"}, {"channel_type", "push_topic"}, {"enabled", false}}, tech);
  ASSERT_EQ(off.status, 200u) << off.body;
  EXPECT_EQ(off.json(), json({{"event_key", "ticket_created"}, {"channel_type", "push_topic"}, {"enabled", false}}));
  const json after = call("GET", kMatrix, nullptr, tech).json();
  EXPECT_EQ(after["matrix"]["ticket_created"]["push_topic"], false);
  EXPECT_EQ(after["matrix"]["ticket_created"]["webhook"], true);
  EXPECT_EQ(after["matrix"]["backup_failed"]["push_topic"], true);
  EXPECT_EQ(call("GET", kMatrix, nullptr, other).json()["matrix"]["ticket_created"]["push_topic"], true);  // mine only

  // Upsert on (user, event_key, channel_type): one row, its value replaced.
  EXPECT_EQ(
      call("PUT", kMatrix, {{"event_key", "ticket_created"}, {"channel_type", "push_topic"}, {"enabled", true}}, tech)
          .status,
      200u);
  EXPECT_EQ(
      sql("SELECT count(*) || ' ' || bool_and(enabled) FROM notification_subscriptions WHERE user_id = " + tech_id),
      "1 true");
  // A user id in the body is not honoured: the session user's row is written.
  EXPECT_EQ(call("PUT", kMatrix,
                 {{"event_key", "sla_breach"},
                  {"channel_type", "webhook"},
                  {"enabled", false},
                  {"user_id", std::stol(other_id)}},
                 tech)
                .status,
            200u);
  EXPECT_EQ(sql("SELECT count(*) FROM notification_subscriptions WHERE user_id = " + other_id), "0");

  const std::vector<std::pair<json, std::string>> bad = {
      {{{"event_key", ""}, {"channel_type", "webhook"}, {"enabled", false}}, "event_key"},
      {{{"event_key", std::string(129, 'k')}, {"channel_type", "webhook"}, {"enabled", false}}, "event_key"},
      {{{"channel_type", "webhook"}, {"enabled", false}}, "event_key"},
      {{{"event_key", "sla_breach"}, {"channel_type", "pager"}, {"enabled", false}}, "channel_type"},
      {{{"event_key", "sla_breach"}, {"channel_type", "webhook"}, {"enabled", "no"}}, "enabled"},
      {{{"event_key", "sla_breach"}, {"channel_type", "webhook"}}, "enabled"},
  };
  expect_refused("PUT", kMatrix, bad, tech, "notification_subscriptions");
  EXPECT_EQ(call("PUT", kMatrix,
                 {{"event_key", std::string(128, 'k')}, {"channel_type", "webhook"}, {"enabled", false}}, tech)
                .status,
            200u);
}

TEST_F(ValidatorsTest, ChatWebhooksNeedHttpsAndAnAllowlistedHost) {
  std::string field;
  // The default allowlist: Google Chat and the Teams hosts.
  EXPECT_EQ(post("chat_webhook", {{"url", "https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t"}}), 201u);
  EXPECT_EQ(post("chat_webhook", {{"url", "https://acme.webhook.office.com/webhookb2/x"}}), 201u);
  EXPECT_EQ(post("chat_webhook", {{"url", "https://prod-12.westeurope.logic.azure.com/workflows/x"}}), 201u);
  EXPECT_EQ(post("chat_webhook", {{"url", "https://x.environment.api.powerplatform.com/powerautomate/x"}}), 201u);
  for (const char* refused : {"http://chat.googleapis.com/v1/spaces/AAA/messages", "https://evil.example/v1/spaces",
                              "https://webhook.office.com/x", "https://chat.googleapis.com.evil.example/x",
                              "ftp://chat.googleapis.com/x", "not a url", "https://127.0.0.1/x"}) {
    field.clear();
    EXPECT_EQ(post("chat_webhook", {{"url", refused}}, &field), 400u) << refused;
    EXPECT_EQ(field, "config.url") << refused;
  }
  const auto res = call("POST", kChannels,
                        {{"channel_type", "chat_webhook"}, {"config", {{"url", "https://evil.example/x"}}}}, boss);
  EXPECT_NE(res.json()["errors"][0]["message"].get<std::string>().find("allowlist"), std::string::npos) << res.body;
}

TEST_F(ValidatorsTest, TopicsBotsAndWebhooks) {
  std::string field;
  EXPECT_EQ(post("push_topic", {{"topic", "Ops_alerts-1"}}), 201u);
  EXPECT_EQ(post("push_topic", {{"topic", std::string(64, 'a')}}), 201u);
  for (const json& bad :
       {json{{"topic", std::string(65, 'a')}}, json{{"topic", "ops alerts"}}, json{{"topic", "ops/alerts"}},
        json{{"topic", ""}}, json::object(), json{{"topic", "x"}, {"mint_topic", true}}}) {
    field.clear();
    EXPECT_EQ(post("push_topic", bad, &field), 400u) << bad;
    EXPECT_EQ(field, "config.topic") << bad;
  }
  // Minted topics are long, random and valid.
  const auto a =
      call("POST", kChannels, {{"channel_type", "push_topic"}, {"config", {{"mint_topic", true}}}}, boss).json();
  const auto b =
      call("POST", kChannels, {{"channel_type", "push_topic"}, {"config", {{"mint_topic", true}}}}, boss).json();
  EXPECT_NE(a["config"]["topic"], b["config"]["topic"]);
  EXPECT_GE(a["config"]["topic"].get<std::string>().size(), 40u);

  EXPECT_EQ(post("messenger_bot", {{"bot_token", kBotToken}, {"chat_id", -1001234567890}}), 201u);
  EXPECT_EQ(post("messenger_bot", {{"bot_token", kBotToken}, {"chat_id", "@msp_noc"}}), 201u);
  EXPECT_EQ(post("messenger_bot", {{"bot_token", "12345"}, {"chat_id", "1"}}, &field), 400u);
  EXPECT_EQ(field, "config.bot_token");
  EXPECT_EQ(post("messenger_bot", {{"bot_token", kBotToken}, {"chat_id", "me"}}, &field), 400u);
  EXPECT_EQ(field, "config.chat_id");
  EXPECT_EQ(post("messenger_bot", {{"bot_token", kBotToken}}, &field), 400u);
  EXPECT_EQ(field, "config.chat_id");

  // A webhook's secret is a Standard Webhooks one: whsec_ and the base64 of 24 to 64 bytes.
  EXPECT_EQ(post("webhook", {{"url", "https://hooks.example.net/ops"}, {"secret", ops_console::testing::kSecret}}),
            201u);
  for (const char* bad : {"short", "0123456789abcdef", "whsec_c2hvcnQ=", "whsec_not base64 at all, this one"}) {
    field.clear();
    EXPECT_EQ(post("webhook", {{"url", "https://hooks.example.net/ops"}, {"secret", bad}}, &field), 400u) << bad;
    EXPECT_EQ(field, "config.secret") << bad;
  }
  for (const char* refused : {"http://hooks.example.net/ops", "https://10.1.2.3/ops", "https://192.168.1.10/ops",
                              "https://169.254.169.254/latest/meta-data", "https://[::1]/ops", "https://[fd00::1]/ops",
                              "https://127.0.0.1:8081/api"}) {
    field.clear();
    EXPECT_EQ(post("webhook", {{"url", refused}, {"secret", ops_console::testing::kSecret}}, &field), 400u) << refused;
    EXPECT_EQ(field, "config.url") << refused;
  }
}

struct AllowlistSettingTest : NotifyTest {
  void SetUp() override { start_with({{"CHAT_WEBHOOK_ALLOWED_HOSTS", "chat.example.net"}}); }
};

TEST_F(AllowlistSettingTest, ReplacesTheDefaultHosts) {
  const auto post = [&](const std::string& url) {
    return call("POST", kChannels, {{"channel_type", "chat_webhook"}, {"config", {{"url", url}}}}, boss).status;
  };
  EXPECT_EQ(post("https://chat.example.net/hook"), 201u);
  EXPECT_EQ(post("https://chat.googleapis.com/v1/spaces/AAA/messages"), 400u);
}
