#pragma once
// Channel types, the settings of outbound notifications, and the validation of a channel's
// configuration (vendors.md, "Notification channels"):
//
//   chat_webhook   {url}                 Google Chat or Teams incoming webhook, host on CHAT_WEBHOOK_ALLOWED_HOSTS
//   messenger_bot  {bot_token, chat_id}  Telegram Bot API sendMessage
//   push_topic     {topic}               ntfy topic; {"mint_topic": true} asks for a long random one
//   webhook        {url, secret}         any https endpoint on WEBHOOK_ALLOWED_HOSTS, signed by Standard Webhooks
//                                        under the secret (whsec_...; generated when none is given, and shown
//                                        that once, as an agent instance's)
//
// Secret fields (bot_token, secret) are write-only: responses list them under "secrets_set". They
// are named once, by notification_secret_fields() (migration 0008), which the renderer
// notification_channel_json() uses; the service learns which stored fields are secret from it.
#include "core/config/config.hpp"
#include "core/json/validate.hpp"
#include "ops_console/notify/url_guard.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ops_console::notify {

inline constexpr std::array<std::string_view, 4> kChannelTypes{"chat_webhook", "messenger_bot", "push_topic",
                                                               "webhook"};
bool is_channel_type(std::string_view type);

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
// adding errors named "config.<field>" to `errors`; returns the form to store. `stored` is the
// channel's configuration as saved (an update's): a webhook secret equal to the stored one is kept
// as it is, so a secret saved before Standard Webhooks survives an update that leaves it alone.
nlohmann::json read_config(std::string_view type, const nlohmann::json& config, const NotifySettings& settings,
                           core::json::Errors& errors, const nlohmann::json& stored = nlohmann::json::object());

// A webhook channel whose configuration names no secret (neither given nor kept from the stored
// one: a channel being created) gets a new one, core::standard_webhooks::new_secret() as an agent
// instance does: `config` gains it, and it is returned for the answer to show, that once. Nullopt
// for another type, a configuration that is not an object, or one that names a secret.
std::optional<std::string> add_generated_secret(std::string_view type, nlohmann::json& config);

// A configuration for an update, `incoming` over what is kept of `stored`. Asking to mint a topic
// drops the stored one. merge_config keeps every stored field the update omits (PATCH);
// replace_config keeps only the stored secrets, `secrets_set` as the renderer lists them (PUT
// replaces the rest, but a secret is never shown, so it cannot be sent back).
nlohmann::json merge_config(const nlohmann::json& stored, const nlohmann::json& incoming);
nlohmann::json replace_config(const nlohmann::json& stored, const nlohmann::json& incoming,
                              const nlohmann::json& secrets_set);

}  // namespace ops_console::notify
