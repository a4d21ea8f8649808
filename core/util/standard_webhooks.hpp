#pragma once
// Standard Webhooks (standardwebhooks.com): the one place that signs what the console sends out
// signed (copies of pushes to agent instances, the `webhook` notification channel) and that checks
// such a signature (the sandbox's agent receiver). Pure functions but for the random ones.
//
//   webhook-id:        msg_<random>, the same on every retry of one message
//   webhook-timestamp: Unix seconds of the attempt
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>, space-delimited list
//
// A secret is shown as whsec_<base64 of the key bytes>; the key is what follows the prefix, decoded.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::standard_webhooks {

inline constexpr std::string_view kSecretPrefix = "whsec_";
inline constexpr std::size_t kMinKeyBytes = 24;
inline constexpr std::size_t kMaxKeyBytes = 64;
inline constexpr std::size_t kKeyBytes = 32;        // what new_secret() makes
inline constexpr std::int64_t kTolerance = 5 * 60;  // seconds a verifier accepts either side of its clock

// "v1," + the base64 HMAC-SHA256 under `key` (raw bytes) of "<id>.<timestamp>.<body>".
std::string sign(std::string_view key, std::string_view id, std::int64_t timestamp, std::string_view body);

// The three headers of one attempt, in order: webhook-id, webhook-timestamp, webhook-signature.
std::vector<std::pair<std::string, std::string>> headers(std::string_view key, std::string_view id,
                                                         std::int64_t timestamp, std::string_view body);

// "whsec_" + base64(key).
std::string encode_secret(std::string_view key);
// The key of a whsec_ secret: nullopt unless it is the prefix and strict padded base64 of
// kMinKeyBytes..kMaxKeyBytes bytes. Parses outside input (an admin's secret).
std::optional<std::string> decode_secret(std::string_view secret);
// Whether decode_secret takes `secret`: the check of a secret given through an API, with the words
// of its 400.
bool is_secret(std::string_view secret);
inline constexpr std::string_view kSecretRule =
    "must be whsec_ and the standard base64 of 24 to 64 bytes (a Standard Webhooks secret)";
// The key a stored secret signs with: a whsec_ secret's decoded bytes, or else the stored text's own
// bytes (secrets saved before Standard Webhooks, ops_console/README.md).
std::string signing_key(std::string_view stored_secret);

// A new secret: whsec_ and kKeyBytes from the CSPRNG.
std::string new_secret();
// A new message id: "msg_" and 16 random bytes in base64url (22 characters).
std::string new_message_id();

enum class Verdict { ok, missing_header, malformed_timestamp, stale_timestamp, bad_signature };

// Checks one message as a receiver does: the three headers present, the timestamp decimal Unix
// seconds within kTolerance of `now`, and some v1 entry of the signature list equal (in constant
// time) to sign(key, id, timestamp, body). Parses outside input (the headers).
Verdict verify(std::string_view key, std::string_view id, std::string_view timestamp, std::string_view signature,
               std::string_view body, std::int64_t now);

// The current Unix time in seconds.
std::int64_t unix_now();

}  // namespace core::standard_webhooks
