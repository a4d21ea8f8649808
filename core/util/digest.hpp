#pragma once
// Digests, message authentication codes and base64, on OpenSSL. Pure functions.
#include <optional>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace core {

// SHA-256 of `data`, lowercase hex (64 characters).
std::string sha256_hex(std::string_view data);

// SHA-256 of data given piece by piece (a body streamed to storage): update() with each piece,
// then hex() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  // Of everything given, lowercase hex (64 characters); the object is spent after it.
  std::string hex();

 private:
  ::evp_md_ctx_st* ctx_;
};

// SHA-512 of `data`, lowercase hex (128 characters).
std::string sha512_hex(std::string_view data);

// HMAC-SHA512 of `data` keyed by `key`, lowercase hex: what Duo's request signatures carry.
std::string hmac_sha512_hex(std::string_view key, std::string_view data);

// HMAC-SHA256 of `data` keyed by `key`, lowercase hex: what GitHub's X-Hub-Signature-256 carries
// after "sha256=", and what our outbound webhooks sign with.
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

// The same, standard base64 (44 characters): what a Standard Webhooks signature carries after "v1,"
// (core/util/standard_webhooks.hpp).
std::string hmac_sha256_base64(std::string_view key, std::string_view data);

// HMAC-SHA1 of `data` keyed by `key`, standard base64 (28 characters): what Autotask's webhook
// callouts carry in X-Hook-Signature after "sha1=".
std::string hmac_sha1_base64(std::string_view key, std::string_view data);
// The same, lowercase hex (40 characters).
std::string hmac_sha1_hex(std::string_view key, std::string_view data);

// Standard base64 (RFC 4648 section 4) with padding.
std::string base64(std::string_view data);

// Its inverse, strict: nullopt unless `text` is exactly what base64() makes of some bytes (the
// standard alphabet, padded to a multiple of 4, no whitespace).
std::optional<std::string> from_base64(std::string_view text);

// base64url (RFC 4648 section 5) without padding: what opaque cursors in URLs carry.
std::string base64url(std::string_view data);
// Its inverse, strict: nullopt for any character outside the alphabet, padding, or a length no
// encoding produces (4n + 1), or nonzero bits left over.
std::optional<std::string> from_base64url(std::string_view text);

}  // namespace core
