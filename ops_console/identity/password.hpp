#pragma once
// Password hashing for console users: argon2id through libsodium (crypto_pwhash_str_alg with the
// "interactive" limits: 2 passes over 64 MiB), in libsodium's self-describing encoded form, so
// the parameters travel with each hash. Hashing is slow on purpose, so the awaitable forms run
// on a small pool of their own and never hold up an I/O thread.
#include <boost/asio/awaitable.hpp>

#include <string>
#include <string_view>

namespace ops_console::identity {

inline constexpr std::size_t kMinPasswordLength = 12;
inline constexpr std::size_t kMaxPasswordLength = 1024;

std::string hash_password(std::string_view password);
bool verify_password(std::string_view encoded, std::string_view password);

boost::asio::awaitable<std::string> hash_password_async(std::string password);
// Also takes its time when `encoded` is empty (no such user), so timing tells nothing.
boost::asio::awaitable<bool> verify_password_async(std::string encoded, std::string password);

}  // namespace ops_console::identity
