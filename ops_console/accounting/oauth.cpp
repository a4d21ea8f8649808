#include "ops_console/accounting/oauth.hpp"

#include <sodium.h>
#include <nlohmann/json.hpp>

namespace ops_console::accounting {

using nlohmann::json;

namespace {

std::string base64url(const unsigned char* data, std::size_t size) {
  std::string out(sodium_base64_ENCODED_LEN(size, sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), data, size, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.size() - 1);
  return out;
}

}  // namespace

std::string pkce_challenge(std::string_view verifier) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size());
  return base64url(digest, sizeof digest);
}

std::optional<std::string> jwt_claim(std::string_view token, std::string_view claim) {
  const auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = token.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view payload = token.substr(first + 1, second - first - 1);
  std::string bytes(payload.size(), '\0');
  std::size_t size = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size(), payload.data(), payload.size(),
                        nullptr, &size, &end, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != payload.data() + payload.size())
    return std::nullopt;
  bytes.resize(size);
  const auto body = json::parse(bytes, nullptr, false);
  if (!body.is_object()) return std::nullopt;
  const auto it = body.find(std::string(claim));
  if (it == body.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace ops_console::accounting
