#include "core/db/advisory_lock.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>

namespace core::db {

namespace {

constexpr std::string_view kTryLock = "SELECT pg_try_advisory_lock(hashtext($1))";
constexpr std::string_view kUnlock = "SELECT pg_advisory_unlock(hashtext($1))";
// pg_locks shows a bigint key as its high 32 bits (classid) and low 32 bits (objid), objsubid 1.
constexpr std::string_view kHeld = R"sql(
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND objsubid = 1 AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND classid::bigint = (hashtext($1)::bigint >> 32) & 4294967295
      AND objid::bigint = hashtext($1)::bigint & 4294967295)
)sql";

// Takes the lease by value: it lives in this frame until the unlock is done.
boost::asio::awaitable<void> unlock(Lease lease, std::string name) {
  try {
    co_await lease.query(kUnlock, name);
  } catch (...) {
    // The connection failed: its session, and with it the lock, is gone already.
  }
}

}  // namespace

AdvisoryLock::~AdvisoryLock() {
  if (lease_) boost::asio::co_spawn(executor_, unlock(std::move(*lease_), std::move(name_)), boost::asio::detached);
}

boost::asio::awaitable<void> AdvisoryLock::release() {
  if (!lease_) co_return;
  Lease lease = std::move(*lease_);
  lease_.reset();
  co_await unlock(std::move(lease), name_);
}

boost::asio::awaitable<std::optional<AdvisoryLock>> try_advisory_lock(Pool& pool, std::string name) {
  auto lease = co_await pool.acquire();
  const Result locked = co_await lease.query(kTryLock, name);
  if (!locked.front().get<bool>(0)) co_return std::nullopt;
  auto executor = co_await boost::asio::this_coro::executor;
  co_return AdvisoryLock(std::move(executor), std::move(lease), std::move(name));
}

boost::asio::awaitable<bool> advisory_lock_held(Pool& pool, std::string name) {
  const Result held = co_await pool.query(kHeld, std::move(name));
  co_return held.front().get<bool>(0);
}

}  // namespace core::db
