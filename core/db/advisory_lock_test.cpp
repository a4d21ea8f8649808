#include "core/db/advisory_lock.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

using boost::asio::awaitable;

namespace {

struct AdvisoryLockTest : ::testing::Test {
  core::testing::TestDatabase database;
  core::testing::IoThreads io;
  core::db::Pool one{io.executor(), {.conninfo = database.url()}};
  core::db::Pool other{io.executor(), {.conninfo = database.url()}};  // another instance

  bool held(core::db::Pool& pool, const std::string& name) {
    return io.run([&]() -> awaitable<bool> { co_return co_await core::db::advisory_lock_held(pool, name); }());
  }
  std::optional<core::db::AdvisoryLock> take(core::db::Pool& pool, const std::string& name) {
    return io.run([&]() -> awaitable<std::optional<core::db::AdvisoryLock>> {
      co_return co_await core::db::try_advisory_lock(pool, name);
    }());
  }
};

}  // namespace

TEST_F(AdvisoryLockTest, OneHolderAtATimeAndEveryInstanceSeesIt) {
  // Names whose hashtext is negative and positive: the key's high half is read right in both.
  for (const std::string name : {"ops-console: distributor sync", "ops-console: psa sync", "x", "y", "z"}) {
    EXPECT_FALSE(held(other, name)) << name;
    auto lock = take(one, name);
    ASSERT_TRUE(lock) << name;
    EXPECT_TRUE(held(other, name)) << name;
    EXPECT_TRUE(held(one, name)) << name;
    EXPECT_FALSE(take(other, name)) << name;  // refused while held
    EXPECT_FALSE(held(other, name + " (another)")) << name;
    io.run([&]() -> awaitable<void> { co_await lock->release(); }());
    EXPECT_FALSE(held(other, name)) << name;
    EXPECT_TRUE(take(other, name)) << name;  // free again (released when this temporary goes)
  }
}
