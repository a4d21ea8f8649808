#include "core/util/digest.hpp"

#include "core/util/strings.hpp"

#include <cstdint>
#include <stdexcept>

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace core {

namespace {

std::string hex_of(const unsigned char* bytes, unsigned len) {
  return hex(std::string_view(reinterpret_cast<const char*>(bytes), len));
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return hex_of(digest, len);
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::update(std::string_view data) { EVP_DigestUpdate(ctx_, data.data(), data.size()); }

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_, digest, &len);
  return hex_of(digest, len);
}

std::string sha512_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha512(), nullptr);
  return hex_of(digest, len);
}

std::string hmac_sha512_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha512(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return hex_of(mac, len);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return hex_of(mac, len);
}

std::string hmac_sha256_base64(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return base64(std::string_view(reinterpret_cast<const char*>(mac), len));
}

namespace {

// The raw HMAC-SHA1 of `data` keyed by `key` (20 bytes).
std::string hmac_sha1(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

}  // namespace

std::string hmac_sha1_base64(std::string_view key, std::string_view data) { return base64(hmac_sha1(key, data)); }

std::string hmac_sha1_hex(std::string_view key, std::string_view data) { return hex(hmac_sha1(key, data)); }

std::string base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string base64url(std::string_view data) {
  std::string out = base64(data);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::optional<std::string> from_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string url(text);
  std::size_t padding = 0;
  while (padding < 2 && !url.empty() && url.back() == '=') {
    url.pop_back();
    ++padding;
  }
  for (char& c : url) {
    if (c == '-' || c == '_' || c == '=') return std::nullopt;  // base64url's letters, or padding inside
    c = c == '+' ? '-' : c == '/' ? '_' : c;
  }
  return from_base64url(url);  // the same alphabet but two letters, and just as strict about leftovers
}

std::optional<std::string> from_base64url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  if ((bits & ((1u << count) - 1)) != 0) return std::nullopt;  // a canonical encoding leaves zeros
  return out;
}

}  // namespace core
