#include "core/util/digest.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace core {

namespace {

std::string hex(const unsigned char* bytes, unsigned len) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return hex(digest, len);
}

std::string sha512_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha512(), nullptr);
  return hex(digest, len);
}

std::string hmac_sha512_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha512(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return hex(mac, len);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return hex(mac, len);
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

std::string hmac_sha1_hex(std::string_view key, std::string_view data) {
  const std::string mac = hmac_sha1(key, data);
  return hex(reinterpret_cast<const unsigned char*>(mac.data()), static_cast<unsigned>(mac.size()));
}

std::string base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace core
