#include "core/auth/session_cache.hpp"

#include "core/db/listener.hpp"
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

using namespace core;
using namespace std::chrono_literals;
using Clock = auth::SessionCache::Clock;

namespace {

// A result to keep: what find() would have returned (one row of text).
db::Result row_of(const std::string& text) {
  PGresult* r = PQmakeEmptyPGresult(nullptr, PGRES_TUPLES_OK);
  PGresAttDesc column{};
  column.name = const_cast<char*>("who");
  column.format = 0;
  column.typid = 25;  // text
  PQsetResultAttrs(r, 1, &column);
  PQsetvalue(r, 0, 0, const_cast<char*>(text.data()), static_cast<int>(text.size()));
  return db::Result(r);
}

std::string cached(auth::SessionCache& cache, const std::string& hash, Clock::time_point now = Clock::now()) {
  const auto rows = cache.get(hash, now);
  return rows ? std::string(rows->front().text(0)) : "";
}

void keep(auth::SessionCache& cache, const std::string& hash, const std::string& subject,
          std::chrono::milliseconds valid_for = 60s) {
  cache.put(cache.ticket(), hash, subject, row_of(subject + "'s rows"), valid_for);
}

}  // namespace

TEST(SessionCache, KeepsNothingUntilTrusted) {
  auth::SessionCache cache(60s);
  keep(cache, "h1", "1");
  EXPECT_EQ(cached(cache, "h1"), "");
  cache.trust();
  keep(cache, "h1", "1");
  EXPECT_EQ(cached(cache, "h1"), "1's rows");
  EXPECT_EQ(cached(cache, "h2"), "");
  EXPECT_EQ(cache.counts().hits, 1u);
  EXPECT_EQ(cache.counts().misses, 2u);
}

TEST(SessionCache, AnEntryLastsWhatTheDatabaseSaidAndNeverLongerThanTheLimit) {
  auth::SessionCache cache(10s);
  cache.trust();
  const auto asked = Clock::now();
  cache.put(cache.ticket(asked), "short", "1", row_of("a"), 2s);
  cache.put(cache.ticket(asked), "long", "2", row_of("b"), 60s);
  EXPECT_EQ(cached(cache, "short", asked + 1999ms), "a");
  EXPECT_EQ(cached(cache, "short", asked + 2s), "");  // the session's answer may change now
  EXPECT_EQ(cached(cache, "long", asked + 9999ms), "b");
  EXPECT_EQ(cached(cache, "long", asked + 10s), "");  // the limit
  EXPECT_EQ(cache.size(), 0u);                        // both dropped when found stale
  cache.put(cache.ticket(), "gone", "3", row_of("c"), 0ms);
  EXPECT_EQ(cache.size(), 0u);  // already stale: not kept
}

TEST(SessionCache, NotificationsDropWhatTheyName) {
  auth::SessionCache cache(60s);
  cache.trust();
  keep(cache, "ada-phone", "1");
  keep(cache, "ada-laptop", "1");
  keep(cache, "brian", "2");
  keep(cache, "carol", "3");
  cache.apply("session:ada-phone");
  EXPECT_EQ(cached(cache, "ada-phone"), "");
  EXPECT_EQ(cached(cache, "ada-laptop"), "1's rows");
  cache.apply("subject:1");
  EXPECT_EQ(cached(cache, "ada-laptop"), "");
  EXPECT_EQ(cached(cache, "brian"), "2's rows");
  cache.apply("subject:9");  // no one's: nothing to drop
  cache.apply("all");
  EXPECT_EQ(cache.size(), 0u);
  keep(cache, "brian", "2");
  cache.apply("what a later version may send");  // unknown: everything goes
  EXPECT_EQ(cache.size(), 0u);
}

// A lookup that ran across a change cannot keep what it read before it.
TEST(SessionCache, ALookupThatRanAcrossADropIsNotKept) {
  auth::SessionCache cache(60s);
  cache.trust();
  auto ticket = cache.ticket();
  cache.apply("subject:7");  // someone else's, but the cache cannot tell what the lookup read
  cache.put(ticket, "h", "1", row_of("x"), 60s);
  EXPECT_EQ(cache.size(), 0u);
  ticket = cache.ticket();
  cache.distrust();
  cache.trust();
  cache.put(ticket, "h", "1", row_of("x"), 60s);
  EXPECT_EQ(cache.size(), 0u);
  keep(cache, "h", "1");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(SessionCache, ALostListenerEmptiesItUntilItIsBack) {
  auth::SessionCache cache(60s);
  cache.trust();
  keep(cache, "h", "1");
  cache.distrust();
  EXPECT_FALSE(cache.trusted());
  EXPECT_EQ(cached(cache, "h"), "");
  keep(cache, "h", "1");
  EXPECT_EQ(cache.size(), 0u);
  cache.trust();
  EXPECT_EQ(cached(cache, "h"), "");  // starts empty
  keep(cache, "h", "1");
  EXPECT_EQ(cached(cache, "h"), "1's rows");
}

// follow(): trusted once LISTEN is in place, and what the channel names is dropped.
TEST(SessionCache, FollowsItsChannel) {
  core::testing::TestDatabase database;
  core::testing::IoThreads io;
  auto cache = std::make_shared<auth::SessionCache>(60s);
  const auto listener = cache->follow(io.executor(), database.url(), "session_changes");
  ASSERT_TRUE(core::testing::eventually([&] { return cache->trusted(); }));
  keep(*cache, "h1", "1");
  keep(*cache, "h2", "2");
  core::testing::sql(database.url(), "SELECT pg_notify('session_changes', 'subject:1')");
  ASSERT_TRUE(core::testing::eventually([&] { return cache->size() == 1; }));
  EXPECT_EQ(cached(*cache, "h2"), "2's rows");
  listener->stop();
}
