#pragma once
// Secrets kept at rest (an integration's OAuth tokens, say), sealed with libsodium's secretbox
// (XSalsa20-Poly1305) under one 32-byte key.
//
//   if (const auto box = SecretBox::from_base64(env_value)) {  // nullopt: not 32 bytes of base64
//     std::string sealed = box->seal(refresh_token);          // "v1." + base64(nonce ‖ ciphertext)
//     std::optional<std::string> token = box->unseal(sealed); // nullopt: another key, or tampered
//   }
//
// Each seal draws a fresh random nonce, so the same secret sealed twice differs. The "v1." prefix
// names the format, so a later one can be told apart.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace core {

class SecretBox {
 public:
  static constexpr std::size_t kKeyBytes = 32;

  // A key given as standard base64 (padding optional) of exactly 32 bytes; nullopt otherwise.
  static std::optional<SecretBox> from_base64(std::string_view key);
  explicit SecretBox(const std::array<unsigned char, kKeyBytes>& key);
  ~SecretBox();
  SecretBox(const SecretBox&) = default;
  SecretBox& operator=(const SecretBox&) = default;

  std::string seal(std::string_view plaintext) const;
  std::optional<std::string> unseal(std::string_view sealed) const;

 private:
  std::array<unsigned char, kKeyBytes> key_{};
};

}  // namespace core
