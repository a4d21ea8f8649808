#include "core/util/standard_webhooks.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

#include <chrono>
#include <cstdlib>

namespace core::standard_webhooks {

std::string sign(std::string_view key, std::string_view id, std::int64_t timestamp, std::string_view body) {
  const std::string ts = std::to_string(timestamp);
  std::string content;
  content.reserve(id.size() + 1 + ts.size() + 1 + body.size());
  content.append(id).append(".").append(ts).append(".").append(body);
  return "v1," + hmac_sha256_base64(key, content);
}

std::vector<std::pair<std::string, std::string>> headers(std::string_view key, std::string_view id,
                                                         std::int64_t timestamp, std::string_view body) {
  return {{"webhook-id", std::string(id)},
          {"webhook-timestamp", std::to_string(timestamp)},
          {"webhook-signature", sign(key, id, timestamp, body)}};
}

std::string encode_secret(std::string_view key) { return std::string(kSecretPrefix) + base64(key); }

std::optional<std::string> decode_secret(std::string_view secret) {
  if (!secret.starts_with(kSecretPrefix)) return std::nullopt;
  auto key = from_base64(secret.substr(kSecretPrefix.size()));
  if (!key || key->size() < kMinKeyBytes || key->size() > kMaxKeyBytes) return std::nullopt;
  return key;
}

bool is_secret(std::string_view secret) { return decode_secret(secret).has_value(); }

std::string signing_key(std::string_view stored_secret) {
  if (auto key = decode_secret(stored_secret)) return *key;
  return std::string(stored_secret);
}

std::string new_secret() { return encode_secret(random_bytes(kKeyBytes)); }

std::string new_message_id() { return "msg_" + random_base64url(16); }

Verdict verify(std::string_view key, std::string_view id, std::string_view timestamp, std::string_view signature,
               std::string_view body, std::int64_t now) {
  if (id.empty() || timestamp.empty() || signature.empty()) return Verdict::missing_header;
  // Decimal Unix seconds: parse_int64's digits, without its sign.
  const auto ts = timestamp.starts_with('-') ? std::nullopt : parse_int64(timestamp);
  if (!ts) return Verdict::malformed_timestamp;
  if (std::llabs(now - *ts) > kTolerance) return Verdict::stale_timestamp;
  const std::string expected = sign(key, id, *ts, body);
  bool good = false;
  for (const auto entry : split(signature, ' '))
    if (entry.starts_with("v1,") && constant_time_equals(entry, expected)) good = true;  // no early exit
  return good ? Verdict::ok : Verdict::bad_signature;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace core::standard_webhooks
