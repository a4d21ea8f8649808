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
#include "core/db/pool.hpp"

#include <exception>
#include <string>

namespace core::db {

template <class Job>
boost::asio::awaitable<bool> with_advisory_lock(Pool& pool, std::string name, Job job) {
  auto lease = co_await pool.acquire();
  const Result locked = co_await lease.query("SELECT pg_try_advisory_lock(hashtext($1))", name);
  if (!locked.front().get<bool>(0)) co_return false;
  std::exception_ptr failure;
  try {
    co_await job();
  } catch (...) {
    failure = std::current_exception();
  }
  co_await lease.query("SELECT pg_advisory_unlock(hashtext($1))", name);
  if (failure) std::rethrow_exception(failure);
  co_return true;
}

}  // namespace core::db
