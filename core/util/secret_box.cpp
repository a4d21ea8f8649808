#include "core/util/secret_box.hpp"

#include "core/util/secrets.hpp"

#include <sodium.h>

#include <stdexcept>
#include <vector>

namespace core {

namespace {

constexpr std::string_view kPrefix = "v1.";

void need_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

std::string to_base64(const unsigned char* data, std::size_t size) {
  std::string out(sodium_base64_ENCODED_LEN(size, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), data, size, sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::optional<std::vector<unsigned char>> sodium_from_base64(std::string_view text, int variant) {
  if (text.empty()) return std::nullopt;  // nothing to decode (and no buffer to decode into)
  std::vector<unsigned char> out(text.size());
  std::size_t size = 0;
  const char* end = nullptr;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &size, &end, variant) != 0 ||
      end != text.data() + text.size())
    return std::nullopt;
  out.resize(size);
  return out;
}

}  // namespace

std::optional<SecretBox> SecretBox::from_base64(std::string_view key) {
  need_sodium();
  while (!key.empty() && (key.back() == '\n' || key.back() == ' ')) key.remove_suffix(1);
  auto bytes = sodium_from_base64(key, sodium_base64_VARIANT_ORIGINAL);
  if (!bytes) bytes = sodium_from_base64(key, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
  if (!bytes || bytes->size() != kKeyBytes) return std::nullopt;
  std::array<unsigned char, kKeyBytes> k{};
  std::copy(bytes->begin(), bytes->end(), k.begin());
  sodium_memzero(bytes->data(), bytes->size());
  SecretBox box(k);
  sodium_memzero(k.data(), k.size());
  return box;
}

SecretBox::SecretBox(const std::array<unsigned char, kKeyBytes>& key) : key_(key) { need_sodium(); }

SecretBox::~SecretBox() { sodium_memzero(key_.data(), key_.size()); }

std::string SecretBox::seal(std::string_view plaintext) const {
  std::vector<unsigned char> out(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + plaintext.size());
  randombytes_buf(out.data(), crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(out.data() + crypto_secretbox_NONCEBYTES,
                        reinterpret_cast<const unsigned char*>(plaintext.data()), plaintext.size(), out.data(),
                        key_.data());
  return std::string(kPrefix) + to_base64(out.data(), out.size());
}

std::optional<std::string> SecretBox::unseal(std::string_view sealed) const {
  if (!sealed.starts_with(kPrefix)) return std::nullopt;
  const auto bytes = sodium_from_base64(sealed.substr(kPrefix.size()), sodium_base64_VARIANT_ORIGINAL);
  if (!bytes || bytes->size() < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES) return std::nullopt;
  const std::size_t cipher = bytes->size() - crypto_secretbox_NONCEBYTES;
  std::string out(cipher - crypto_secretbox_MACBYTES, '\0');
  if (crypto_secretbox_open_easy(reinterpret_cast<unsigned char*>(out.data()),
                                 bytes->data() + crypto_secretbox_NONCEBYTES, cipher, bytes->data(), key_.data()) != 0)
    return std::nullopt;
  core::secrets::remember(out);  // what was sealed is secret: masked in every log line (core/util/secrets.hpp)
  return out;
}

}  // namespace core
