#pragma once
// Work that PostgreSQL aborted to break a deadlock (SQLSTATE 40P01), run again.
//
//   const auto rows = co_await core::db::retry_deadlocked([&] { return db.query(kUpsertPage, page); });
//
// Two writers that lock the same rows in different orders (the PSA sync's pages, the webhook
// intake's groups, a second instance's) can each wait for the other. PostgreSQL then aborts one
// of them, and that one, tried again, finds the other gone or waits for it to end.
#include "core/async/sleep.hpp"
#include "core/db/errors.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>

namespace core::db {

// How many times in all the services try work that keeps deadlocking, and the pause before the
// second attempt (twice that before the third).
inline constexpr int kDeadlockAttempts = 3;
inline constexpr std::chrono::milliseconds kDeadlockPause{20};

// Runs `work` (a callable that starts one transaction, or one statement that is its own, and
// returns its awaitable), and runs it again from the start when the database aborted it to break
// a deadlock, at most `attempts` times in all. Any other failure, and the last deadlock, is
// thrown. Nothing of an aborted transaction stays, so `work` must only reset what it gathers.
template <class Work>
auto retry_deadlocked(Work work, int attempts = kDeadlockAttempts) -> decltype(work()) {
  for (int attempt = 1;; ++attempt) {
    try {
      co_return co_await work();
    } catch (const Error& e) {
      if (!e.deadlock() || attempt >= attempts) throw;
    }
    // The abort let the other writer go on. Tried at once, this work could lock the rows it had
    // before the other takes them, and deadlock with it again (PsaSyncTest saw it under load).
    co_await async::sleep_for(kDeadlockPause * attempt);
  }
}

}  // namespace core::db
