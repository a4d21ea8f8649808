#pragma once
// A PostgreSQL session advisory lock, held on one pooled connection for the length of a job.
//
//   auto job = [&]() -> awaitable<void> { ... };
//   if (!co_await core::db::with_advisory_lock(pool, "mail-triage: purge", job))
//     throw Problem::conflict("a purge is already under way");
//
// pg_try_advisory_lock(hashtext(name)) never waits: it answers false while another session, of
// this instance or any other, holds the lock, and the job does not run. The lock is released
// after the job, also when the job throws (the job's exception is then rethrown); if the instance
// dies, PostgreSQL releases it with the session.
//
// A job that outlives the request starting it takes the lock first, answers, then runs:
//
//   auto lock = co_await core::db::try_advisory_lock(pool, "ops-console: psa sync");
//   if (!lock) throw Problem::conflict("a sync is already under way");
//   co_spawn(executor, run(std::move(*lock)), detached);   // run() ends with co_await lock.release()
//
// An AdvisoryLock destroyed without release() still unlocks, in the background, before its
// connection returns to the pool: a pooled connection never carries a lock to another user.
#include "core/db/pool.hpp"

#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace core::db {

class AdvisoryLock {
 public:
  AdvisoryLock(boost::asio::any_io_executor executor, Lease lease, std::string name)
      : executor_(std::move(executor)), lease_(std::move(lease)), name_(std::move(name)) {}
  AdvisoryLock(AdvisoryLock&& other) noexcept
      : executor_(std::move(other.executor_)),
        lease_(std::exchange(other.lease_, std::nullopt)),
        name_(std::move(other.name_)) {}
  AdvisoryLock& operator=(AdvisoryLock&&) = delete;
  ~AdvisoryLock();

  boost::asio::awaitable<void> release();

 private:
  boost::asio::any_io_executor executor_;
  std::optional<Lease> lease_;
  std::string name_;
};

// The lock `name`, now, or nothing when another session holds it.
boost::asio::awaitable<std::optional<AdvisoryLock>> try_advisory_lock(Pool& pool, std::string name);

// Whether some session on this database (of any instance) holds the lock `name` now: what a
// status route reports as "in progress". Looks at pg_locks, takes nothing.
boost::asio::awaitable<bool> advisory_lock_held(Pool& pool, std::string name);

template <class Job>
boost::asio::awaitable<bool> with_advisory_lock(Pool& pool, std::string name, Job job) {
  auto lock = co_await try_advisory_lock(pool, std::move(name));
  if (!lock) co_return false;
  std::exception_ptr failure;
  try {
    co_await job();
  } catch (...) {
    failure = std::current_exception();
  }
  co_await lock->release();
  if (failure) std::rethrow_exception(failure);
  co_return true;
}

}  // namespace core::db
