#pragma once
// An ops-console whose notifications go to the sandbox's receivers on loopback, with an
// administrator, two plain users and helpers for channel bodies.
#include "ops_console/tests/console_fixture.hpp"
#include "sandbox/sandbox.hpp"

namespace ops_console::testing {

inline constexpr const char* kBotToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ";
inline constexpr const char* kSecret = "a-webhook-signing-secret";

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
