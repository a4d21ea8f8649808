#include "ops_console/notify/channels.hpp"

#include "core/util/standard_webhooks.hpp"
#include "core/util/strings.hpp"

#include <algorithm>
#include <regex>

namespace ops_console::notify {

using nlohmann::json;

bool is_channel_type(std::string_view type) {
  return std::find(kChannelTypes.begin(), kChannelTypes.end(), type) != kChannelTypes.end();
}

GuardRules NotifySettings::rules_for(std::string_view type) const {
  const auto host_of = [](const std::string& url) {
    const auto parts = parse_url(url);
    return HostAllowlist({parts ? parts->host : std::string()});
  };
  if (type == "chat_webhook") return {.allowlist = chat_webhook_hosts, .allow_loopback = allow_loopback};
  if (type == "webhook") return {.allowlist = webhook_hosts, .allow_loopback = allow_loopback};
  if (type == "messenger_bot") return {.allowlist = host_of(telegram_api_url), .allow_loopback = allow_loopback};
  return {.allowlist = host_of(ntfy_url), .allow_loopback = allow_loopback};
}

NotifySettings read_notify_settings(core::config::Reader& env) {
  NotifySettings s;
  s.chat_webhook_hosts = HostAllowlist(env.list(
      "CHAT_WEBHOOK_ALLOWED_HOSTS", "chat.googleapis.com,*.webhook.office.com,*.logic.azure.com,*.powerplatform.com",
      "hosts a chat_webhook channel may post to (Google Chat and Teams); *.domain means any host below it"));
  s.webhook_hosts = HostAllowlist(
      env.list("WEBHOOK_ALLOWED_HOSTS", "*", "hosts a generic webhook channel may post to; * allows any public host"));
  s.telegram_api_url = env.url("TELEGRAM_API_URL", s.telegram_api_url, "Telegram Bot API base URL (messenger_bot)");
  s.ntfy_url = env.url("NTFY_URL", s.ntfy_url, "ntfy server that push_topic channels publish to");
  s.allow_loopback =
      env.boolean("NOTIFY_ALLOW_LOOPBACK", false,
                  "let notifications go to loopback addresses, over plain http too (the sandbox and tests only)");
  s.timeout = std::chrono::seconds(
      env.integer("NOTIFY_TIMEOUT_SECONDS", 10, "time limit of one notification attempt", {.min = 1, .max = 120}));
  s.retry_delay = std::chrono::milliseconds(
      env.integer("NOTIFY_RETRY_DELAY_MS", 1000,
                  "wait before the one retry after a 429 or 5xx, when no Retry-After says", {.min = 0, .max = 60'000}));
  return s;
}

namespace {

bool matches(std::string_view value, const std::regex& pattern) {
  return std::regex_match(value.begin(), value.end(), pattern);
}

bool is_bot_token(std::string_view v) {
  static const std::regex pattern("^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$");
  return matches(v, pattern);
}

bool is_chat_id(std::string_view v) {
  static const std::regex pattern("^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$");
  return matches(v, pattern);
}

bool is_topic(std::string_view v) {
  static const std::regex pattern("^[-_A-Za-z0-9]{1,64}$");
  return matches(v, pattern);
}

// A URL field checked by the guard's rules for `type` (no DNS here: that happens at each send).
std::string read_url(core::json::BodyReader& in, std::string_view type, const NotifySettings& settings) {
  std::string url = in.string("url", {.min_length = 1, .max_length = 2048});
  if (!url.empty())
    if (auto why = static_refusal(url, settings.rules_for(type)); !why.empty()) in.add("config.url", why);
  return url;
}

}  // namespace

json read_config(std::string_view type, const json& config, const NotifySettings& settings, core::json::Errors& errors,
                 const json& stored) {
  if (!config.is_object()) {
    errors.add("config", "must be an object");
    return json::object();
  }
  json normalised = config;
  // Telegram chat ids are numbers; take them as numbers or strings and keep the string.
  if (normalised.contains("chat_id") && normalised["chat_id"].is_number_integer())
    normalised["chat_id"] = std::to_string(normalised["chat_id"].get<std::int64_t>());

  core::json::BodyReader in(normalised, "config.");
  json out = json::object();
  if (type == "chat_webhook") {
    out["url"] = read_url(in, type, settings);
  } else if (type == "webhook") {
    out["url"] = read_url(in, type, settings);
    // A Standard Webhooks secret; one stored before them, kept unchanged, is not judged again (README).
    const bool kept = stored.is_object() && stored.contains("secret") && config.contains("secret") &&
                      stored["secret"] == config["secret"];
    out["secret"] = kept ? in.string("secret", {.min_length = 1, .trim = false})
                         : in.string("secret", {.max_length = 256,
                                                .check = core::standard_webhooks::is_secret,
                                                .check_message = std::string(core::standard_webhooks::kSecretRule),
                                                .trim = false});
  } else if (type == "messenger_bot") {
    out["bot_token"] = in.string(
        "bot_token",
        {.check = is_bot_token, .check_message = "must be a bot token as BotFather gives it (123456:ABC...)"});
    out["chat_id"] =
        in.string("chat_id", {.check = is_chat_id, .check_message = "must be a numeric chat id or an @channel name"});
  } else {
    const bool mint = in.optional_boolean("mint_topic").value_or(false);
    auto topic = in.optional_string(
        "topic", {.min_length = 1, .check = is_topic, .check_message = "must match ^[-_A-Za-z0-9]{1,64}$"});
    if (mint && topic) in.add("config.topic", "give a topic or mint_topic: true, not both");
    if (!mint && !topic && !in.has("topic")) in.add("config.topic", "is required (or mint_topic: true)");
    // Minted: 32 random bytes' worth of name, since whoever knows a topic can read it.
    out["topic"] = mint ? "ops-" + core::random_base64url(32) : topic.value_or("");
  }
  for (const auto& e : in.list()) errors.add(e.field, e.message);
  return out;
}

std::optional<std::string> add_generated_secret(std::string_view type, json& config) {
  if (type != "webhook" || !config.is_object() || config.contains("secret")) return std::nullopt;
  std::string secret = core::standard_webhooks::new_secret();
  config["secret"] = secret;
  return secret;
}

namespace {

json overlay(json kept, const json& incoming) {
  // A request to mint replaces the stored topic; a mint_topic that is not a boolean is left for
  // read_config to refuse.
  if (incoming.contains("mint_topic") && incoming["mint_topic"] == true) kept.erase("topic");
  kept.update(incoming);
  return kept;
}

}  // namespace

json merge_config(const json& stored, const json& incoming) {
  if (!incoming.is_object()) return incoming;  // not an object: read_config says so
  return overlay(stored.is_object() ? stored : json::object(), incoming);
}

json replace_config(const json& stored, const json& incoming, const json& secrets_set) {
  if (!incoming.is_object()) return incoming;
  json kept = json::object();
  for (const auto& key : secrets_set)
    if (key.is_string() && stored.contains(key.get<std::string>()))
      kept[key.get<std::string>()] = stored[key.get<std::string>()];
  return overlay(std::move(kept), incoming);
}

}  // namespace ops_console::notify
