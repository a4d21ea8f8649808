// Notification channel configurations from untrusted users: the validators and the URL guard
// must never crash, and what they accept must satisfy their own rules.
#include "ops_console/notify/channels.hpp"

#include <cstdint>
#include <cstdlib>
#include <regex>

using nlohmann::json;
using namespace ops_console::notify;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view type = kChannelTypes[data[0] % kChannelTypes.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  // The raw text as a URL, under strict and sandbox rules.
  const GuardRules strict{.allowlist = HostAllowlist({"*"}), .allow_loopback = false};
  if (static_refusal(text, strict).empty()) {
    const auto parts = parse_url(text);
    if (!parts || parts->scheme != "https") std::abort();
  }
  (void)static_refusal(
      text, {.allowlist = HostAllowlist({"chat.googleapis.com", "*.webhook.office.com"}), .allow_loopback = true});

  // The text as a request's "config" object.
  const json config = json::parse(text, nullptr, false);
  if (config.is_discarded()) return 0;
  const NotifySettings settings;
  const json merged = replace_config(json{{"bot_token", "1:abc"}, {"secret", "s"}, {"topic", "t"}}, config,
                                     json::array({"bot_token", "secret"}));
  core::json::Errors errors;
  const json stored = read_config(type, merged, settings, errors);
  if (!errors.ok()) return 0;
  if (!stored.is_object()) std::abort();
  if (stored.contains("url") && !static_refusal(stored["url"].get<std::string>(), settings.rules_for(type)).empty())
    std::abort();
  static const std::regex topic("^[-_A-Za-z0-9]{1,64}$");
  if (type == "push_topic" && !std::regex_match(stored["topic"].get<std::string>(), topic)) std::abort();
  return 0;
}
