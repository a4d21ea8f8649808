// Standard Webhooks from outside (core/util/standard_webhooks.hpp): a secret an admin gives, and
// the three headers and body a receiver checks. Never a crash; a secret taken is one the encoder
// gives back; a verdict of ok only for a message whose signature list holds the signature of its
// id, timestamp and body; a message signed here verifies whatever the list holds beside it, and
// not once its body, its timestamp or its key changes.
//
// Input: secret \n id \n timestamp \n signature list \n body (the rest, newlines included).
#include "core/util/standard_webhooks.hpp"
#include "fuzz/fields.hpp"

#include "core/util/strings.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace sw = core::standard_webhooks;

namespace {

constexpr std::int64_t kNow = 1614265330;  // the specification's example's timestamp

void check_secret(std::string_view secret) {
  const auto key = sw::decode_secret(secret);
  if (sw::is_secret(secret) != key.has_value()) std::abort();
  if (!key) {
    if (sw::signing_key(secret) != secret) std::abort();  // an older secret signs with its own bytes
    return;
  }
  if (key->size() < sw::kMinKeyBytes || key->size() > sw::kMaxKeyBytes) std::abort();
  if (sw::signing_key(secret) != *key) std::abort();
  if (sw::decode_secret(sw::encode_secret(*key)) != key) std::abort();
}

// Whether the space-delimited `list` holds `entry`.
bool lists(std::string_view list, std::string_view entry) {
  for (const auto item : core::split(list, ' '))
    if (item == entry) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const auto secret = fuzz::next_field(rest);
  const auto id = fuzz::next_field(rest);
  const auto timestamp = fuzz::next_field(rest);
  const auto signature = fuzz::next_field(rest);
  const auto body = rest;

  check_secret(secret);
  const std::string key = sw::signing_key(secret);

  // The message as it came.
  const auto verdict = sw::verify(key, id, timestamp, signature, body, kNow);
  if (verdict == sw::Verdict::ok) {
    const auto ts = core::parse_int64(timestamp);
    if (id.empty() || !ts || *ts < 0 || *ts > kNow + sw::kTolerance || *ts < kNow - sw::kTolerance) std::abort();
    if (!lists(signature, sw::sign(key, id, *ts, body))) std::abort();
  }
  if ((id.empty() || timestamp.empty() || signature.empty()) && verdict != sw::Verdict::missing_header) std::abort();

  // The same id and body signed now: verifies beside whatever the list held, and not changed.
  if (id.empty()) return 0;
  const std::string now = std::to_string(kNow);
  const std::string good = sw::sign(key, id, kNow, body);
  const std::string list = std::string(signature) + " " + good;
  if (sw::verify(key, id, now, list, body, kNow) != sw::Verdict::ok) std::abort();
  if (sw::verify(key, id, now, good, std::string(body) + "x", kNow) != sw::Verdict::bad_signature) std::abort();
  if (sw::verify(key + "k", id, now, good, body, kNow) != sw::Verdict::bad_signature) std::abort();
  const std::string late = std::to_string(kNow + sw::kTolerance + 1);
  if (sw::verify(key, id, late, sw::sign(key, id, kNow + sw::kTolerance + 1, body), body, kNow) !=
      sw::Verdict::stale_timestamp)
    std::abort();
  return 0;
}
