#pragma once
// The MFA users that need a look (issue 20): those in bypass and those disabled, across the
// parent account and every child account (the Accounts API).
//
//   FlaggedUsers flagged(duo);
//   json f = co_await flagged.get();   // {bypass: [...], disabled: [...], accounts: [...], fetchedAt, cached}
//
// Each user: {userId, user (the username), realname, email, accountId, account (its name),
// enrolled, lastLogin (RFC 3339 or null), notes}. `accounts` lists the parent and each child
// with its user count, or the error its calls ended with: a child that fails is reported there,
// and the others' users are still answered; a failing account list is `accountListError`. The
// parent's users are read with the children's, three accounts at once.
//
// The answer is kept for MFA_CACHE_SECONDS (60) per instance and built by one caller at a time
// (the others wait for it): a page that polls does not multiply Duo calls.
#include "core/async/semaphore.hpp"
#include "ops_console/mfa/duo.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

namespace ops_console::mfa {

class FlaggedUsers {
 public:
  FlaggedUsers(boost::asio::any_io_executor executor, std::shared_ptr<DuoClient> duo);

  boost::asio::awaitable<nlohmann::json> get();

 private:
  boost::asio::awaitable<nlohmann::json> fetch();
  std::optional<nlohmann::json> cached();

  boost::asio::any_io_executor executor_;
  std::shared_ptr<DuoClient> duo_;
  core::async::Semaphore building_{1};
  std::mutex mutex_;
  std::optional<nlohmann::json> answer_;
  std::chrono::steady_clock::time_point until_{};
};

}  // namespace ops_console::mfa
