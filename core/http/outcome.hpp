#pragma once
// What a vendor client tells its owner about each call it makes (ops-console records it as
// integration health, ops_console/integrations/health.hpp; mail-triage sets nothing).
//
//   GraphClient graph(executor, settings, [](auto started, auto error) { ... });
//   co_return co_await core::http::observed<Reply>(outcome_, [&] { return attempt(request); });
//
// `started` is when the call began; `error` is nullopt for a success, else the failure in the
// client's own words (its exception's what(), which the clients keep free of secrets: never a
// request header, a token or a URL's query).
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>

namespace core::http {

using Outcome = std::function<void(std::chrono::steady_clock::time_point started, std::optional<std::string> error)>;

// Runs `call` and tells `outcome` (when set) how it went, a failure by the exception's what();
// answers or rethrows as the call did.
template <class T>
boost::asio::awaitable<T> observed(Outcome outcome, std::function<boost::asio::awaitable<T>()> call) {
  const auto started = std::chrono::steady_clock::now();
  std::exception_ptr failure;
  std::string error;
  try {
    T value = co_await call();
    if (outcome) outcome(started, std::nullopt);
    co_return value;
  } catch (const std::exception& e) {
    failure = std::current_exception();
    error = e.what();
  }
  if (outcome) outcome(started, std::move(error));
  std::rethrow_exception(failure);
}

}  // namespace core::http
