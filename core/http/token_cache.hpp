#pragma once
// A client-credentials access token kept until shortly before it expires, fetched by one caller
// at a time (the others wait for that one and use what it got).
//
//   core::http::TokenCache cache;
//   std::string t = co_await cache.get([&]() -> awaitable<TokenCache::Issued> {
//     ... POST the token endpoint ...; co_return {access_token, std::chrono::seconds(expires_in)};
//   });
//   cache.drop();   // the API refused it: the next get() fetches a new one
//
// A token is used until a minute before it expires (half its life when that is shorter).
#include "core/async/semaphore.hpp"

#include "core/util/secrets.hpp"

#include <boost/asio/awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

namespace core::http {

class TokenCache {
 public:
  struct Issued {
    std::string token;
    std::chrono::seconds lifetime;
  };
  using Fetch = std::function<boost::asio::awaitable<Issued>()>;

  boost::asio::awaitable<std::string> get(Fetch fetch) {
    if (auto t = cached(); !t.empty()) co_return t;
    auto permit = co_await fetching_.acquire();
    if (auto t = cached(); !t.empty()) co_return t;  // another caller fetched it meanwhile
    Issued issued = co_await fetch();
    core::secrets::remember(issued.token);  // masked in every log line from now on
    std::lock_guard lock(mutex_);
    token_ = std::move(issued.token);
    until_ = std::chrono::steady_clock::now() +
             std::max<std::chrono::steady_clock::duration>(issued.lifetime - kMargin, issued.lifetime / 2);
    co_return token_;
  }

  void drop() {
    std::lock_guard lock(mutex_);
    until_ = {};
  }

 private:
  static constexpr std::chrono::seconds kMargin{60};

  std::string cached() {
    std::lock_guard lock(mutex_);
    return std::chrono::steady_clock::now() < until_ ? token_ : std::string();
  }

  core::async::Semaphore fetching_{1};
  std::mutex mutex_;
  std::string token_;
  std::chrono::steady_clock::time_point until_{};
};

}  // namespace core::http
