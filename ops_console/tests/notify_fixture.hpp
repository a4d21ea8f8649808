#pragma once
// An ops-console whose notifications go to the sandbox's receivers on loopback, with an
// administrator, two plain users and helpers for channel bodies.
#include "core/util/standard_webhooks.hpp"
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace ops_console::testing {

inline constexpr const char* kBotToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ";
// A webhook channel's secret: Standard Webhooks, whsec_ and base64 of the 32 bytes
// "a-webhook-signing-secret-0123456".
inline constexpr const char* kSecret = "whsec_YS13ZWJob29rLXNpZ25pbmctc2VjcmV0LTAxMjM0NTY=";

// Whether a message the sandbox's notify receiver recorded ({headers, body}) verifies, by core's
// Standard Webhooks rule, under `secret` (a whsec_ secret or an older one).
inline bool webhook_verifies(const nlohmann::json& arrival, const std::string& secret) {
  namespace sw = core::standard_webhooks;
  const auto& h = arrival["headers"];
  if (!h.contains("webhook-id") || !h.contains("webhook-timestamp") || !h.contains("webhook-signature")) return false;
  return sw::verify(sw::signing_key(secret), h["webhook-id"].get<std::string>(),
                    h["webhook-timestamp"].get<std::string>(), h["webhook-signature"].get<std::string>(),
                    arrival["body"].get<std::string>(), sw::unix_now()) == sw::Verdict::ok;
}

struct NotifyTest : ConsoleTest {
  sandbox::InProcess fakes;
  std::string boss_id, tech_id, other_id;
  std::string boss, tech, other;  // session tokens

  // The receivers are on 127.0.0.1: loopback is allowed, and on the chat allowlist.
  std::map<std::string, std::string> sandbox_env() const {
    return {{"NOTIFY_ALLOW_LOOPBACK", "true"},
            {"CHAT_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1,chat.googleapis.com,*.webhook.office.com"},
            {"TELEGRAM_API_URL", fakes.url() + "/telegram"},
            {"NTFY_URL", fakes.url() + "/ntfy"},
            {"NOTIFY_RETRY_DELAY_MS", "10"},
            {"NOTIFY_TIMEOUT_SECONDS", "1"}};
  }

  void start_with(std::map<std::string, std::string> env) {
    boss_id = add_user("boss@msp.example", kPassword, true);
    tech_id = add_user("tech@msp.example", kPassword);
    other_id = add_user("other@msp.example", kPassword);
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
    other = sign_in("other@msp.example", kPassword);
  }

  std::string chat_url(const std::string& space = "AAAA") const {
    return fakes.url() + "/chat/v1/spaces/" + space + "/messages?key=k&token=t";
  }
  std::string webhook_url(const std::string& name = "ops") const { return fakes.url() + "/webhook/" + name; }

  // A config per channel type, pointing at the sandbox.
  json config_for(const std::string& type) const {
    if (type == "chat_webhook") return {{"url", chat_url()}};
    if (type == "messenger_bot") return {{"bot_token", kBotToken}, {"chat_id", "-1001234567890"}};
    if (type == "push_topic") return {{"topic", "ops-alerts"}};
    return {{"url", webhook_url()}, {"secret", kSecret}};
  }

  json received(const std::string& receiver) { return fakes.notify().received(receiver); }
};

}  // namespace ops_console::testing
