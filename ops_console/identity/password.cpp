#include "ops_console/identity/password.hpp"

#include <sodium.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <stdexcept>

namespace ops_console::identity {

namespace asio = boost::asio;

namespace {

void ensure_sodium() {
  static const int ready = sodium_init();
  if (ready < 0) throw std::runtime_error("libsodium could not be initialised");
}

asio::thread_pool& hashing_pool() {
  static asio::thread_pool pool(2);
  return pool;
}

// A valid hash of a password nobody has, verified when the account does not exist.
const std::string& decoy_hash() {
  static const std::string hash = hash_password("no account has this password, it only costs time");
  return hash;
}

}  // namespace

std::string hash_password(std::string_view password) {
  ensure_sodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                            crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) != 0)
    throw std::runtime_error("password hashing ran out of memory");
  return out;
}

bool verify_password(std::string_view encoded, std::string_view password) {
  ensure_sodium();
  if (encoded.empty() || encoded.size() >= crypto_pwhash_STRBYTES) {
    // The same work as a real check, whose answer does not matter: there is no such account.
    [[maybe_unused]] const int decoy = crypto_pwhash_str_verify(decoy_hash().c_str(), password.data(), password.size());
    return false;
  }
  const std::string hash(encoded);  // NUL-terminated
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

namespace {
// The pool runs these; their arguments are owned by their frames.
asio::awaitable<std::string> hash_on_pool(std::string password) { co_return hash_password(password); }
asio::awaitable<bool> verify_on_pool(std::string encoded, std::string password) {
  co_return verify_password(encoded, password);
}
}  // namespace

asio::awaitable<std::string> hash_password_async(std::string password) {
  co_return co_await asio::co_spawn(hashing_pool(), hash_on_pool(std::move(password)), asio::use_awaitable);
}

asio::awaitable<bool> verify_password_async(std::string encoded, std::string password) {
  co_return co_await asio::co_spawn(hashing_pool(), verify_on_pool(std::move(encoded), std::move(password)),
                                    asio::use_awaitable);
}

}  // namespace ops_console::identity
