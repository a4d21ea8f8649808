#pragma once
// Channel types, the settings of outbound notifications, and the validation of a channel's
// configuration (vendors.md, "Notification channels"):
//
//   chat_webhook   {url}                 Google Chat or Teams incoming webhook, host on CHAT_WEBHOOK_ALLOWED_HOSTS
//   messenger_bot  {bot_token, chat_id}  Telegram Bot API sendMessage
//   push_topic     {topic}               ntfy topic; {"mint_topic": true} asks for a long random one
//   webhook        {url, secret}         any https endpoint on WEBHOOK_ALLOWED_HOSTS, body signed with the secret
//
// Secret fields (bot_token, secret) are write-only: responses list them under "secrets_set".
#include "core/config/config.hpp"
#include "core/json/validate.hpp"
#include "ops_console/notify/url_guard.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <string>
#include <string_view>

namespace ops_console::notify {

inline constexpr std::array<std::string_view, 4> kChannelTypes{"chat_webhook", "messenger_bot", "push_topic",
                                                               "webhook"};
bool is_channel_type(std::string_view type);

// Keys of a configuration that are never rendered; omitted from an update, they keep their value.
inline constexpr std::array<std::string_view, 2> kSecretFields{"bot_token", "secret"};

struct NotifySettings {
  HostAllowlist chat_webhook_hosts;
  HostAllowlist webhook_hosts;
  std::string telegram_api_url = "https://api.telegram.org";
  std::string ntfy_url = "https://ntfy.sh";
  bool allow_loopback = false;
  std::chrono::milliseconds timeout{10'000};     // one attempt, connect to last byte
  std::chrono::milliseconds retry_delay{1'000};  // before the one retry, unless Retry-After says otherwise

  // The rules a destination of `type` must pass: its allowlist and the address check.
  GuardRules rules_for(std::string_view type) const;
};

NotifySettings read_notify_settings(core::config::Reader& env);

// Reads the configuration of a channel of `type` from `config` (the request's "config" object),
// adding errors named "config.<field>" to `errors`; returns the form to store.
nlohmann::json read_config(std::string_view type, const nlohmann::json& config, const NotifySettings& settings,
                           core::json::Errors& errors);

// A configuration for an update: `incoming` over `stored`. With `merge_all`, every stored key
// the update omits is kept (PATCH); otherwise only the secret fields are (PUT replaces the rest).
// Asking to mint a topic drops the stored one.
nlohmann::json overlay_config(const nlohmann::json& stored, const nlohmann::json& incoming, bool merge_all);

}  // namespace ops_console::notify
