#pragma once
// A queue row's lease kept while its work runs (the analyzer's jobs, the remote-management
// executions). Such a queue leases a row to one worker (SKIP LOCKED, a lease end and an owner);
// a row whose lease ran out belonged to a worker that died. A LeaseKeeper renews the lease every
// third of its length for as long as it lives, so a lease runs out only when its worker stopped,
// however long the work takes.
//
// `renew` is an UPDATE of the row taking ($1 the row's id, $2 the owner, $3 the lease's length in
// seconds) and answering a row while the lease is still the owner's (`... RETURNING id`); once it
// answers none (another worker took the row, or it ended), renewing stops. A failed renewal (the
// database) is logged and tried again at the next third.
#include "core/db/pool.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace core::db {

class LeaseKeeper {
 public:
  LeaseKeeper(Pool& db, boost::asio::any_io_executor executor, std::string_view renew, std::int64_t id,
              std::string owner, std::chrono::seconds lease, std::string what);
  ~LeaseKeeper();  // stop()
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // No renewal after this one; idempotent.
  void stop();

 private:
  struct State;
  static boost::asio::awaitable<void> renew_until_stopped(std::shared_ptr<State> state, std::string renew,
                                                          std::int64_t id, std::string owner,
                                                          std::chrono::seconds lease, std::string what);
  std::shared_ptr<State> state_;
};

}  // namespace core::db
