#include "core/auth/session_store.hpp"

#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"

#include <gtest/gtest.h>

using namespace core;
using boost::asio::awaitable;

namespace {

// Two consoles' tables: one signs in accounts (as the ops-console), one keys (as /dbusers).
constexpr db::Migration kTables[] = {{"0001_consoles.sql", R"sql(
  CREATE TABLE people (id bigint PRIMARY KEY, name text NOT NULL);
  CREATE TABLE sessions (
    token_hash text PRIMARY KEY, person bigint NOT NULL REFERENCES people, address text NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now(), expires_at timestamptz NOT NULL);
  CREATE TABLE failures (who text NOT NULL, address text NOT NULL, failed_at timestamptz NOT NULL DEFAULT now());
  CREATE SCHEMA keys;
  CREATE TABLE keys.sessions (
    token_hash text PRIMARY KEY, actor text NOT NULL, address text NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now(), expires_at timestamptz NOT NULL);
  CREATE TABLE keys.failures (address text NOT NULL, failed_at timestamptz NOT NULL DEFAULT now());
  INSERT INTO people VALUES (1, 'Ada'), (2, 'Brian');
)sql"}};

const auth::SessionTables kAccounts{.sessions = "sessions",
                                    .subject = "person",
                                    .failures = "failures",
                                    .account = "who",
                                    .lookup = "SELECT p.name FROM people p JOIN live ON live.subject = p.id"};
const auth::SessionTables kKeys{.sessions = "keys.sessions", .subject = "actor", .failures = "keys.failures"};

struct SessionStoreTest : ::testing::Test {
  core::testing::TestDatabase database{kTables};
  core::testing::IoThreads io;
  db::Pool pool{io.executor(), {.conninfo = database.url()}};

  std::string sql(const std::string& statement) { return core::testing::sql(database.url(), statement); }

  // The first lookup column of `token`'s live session, or "" when there is none.
  std::string who(auth::SessionStore& store, std::optional<std::string> token) {
    const auto rows = io.run(store.find(std::move(token)));
    return rows.empty() ? "" : std::string(rows.front().text(0));
  }
  std::optional<auth::Refusal> admit(auth::SessionStore& store, std::string account, std::string address) {
    return io.run(store.admit(std::move(account), std::move(address)));
  }
  void fail(auth::SessionStore& store, std::string account, std::string address, int times) {
    for (int i = 0; i < times; ++i) io.run(store.failed(account, address));
  }
};

auth::SessionPolicy quick() {
  auth::SessionPolicy p;
  p.slowdown.step = std::chrono::milliseconds(0);  // the delay's arithmetic: sign_in_slowdown_test
  return p;
}

}  // namespace

TEST_F(SessionStoreTest, ASessionFindsItsSubjectUntilItEnds) {
  auth::SessionStore store(pool, kAccounts, quick());
  const auto token = io.run(store.start("1", "192.0.2.1"));
  EXPECT_GE(token.size(), 43u);  // 256 bits in base64url
  EXPECT_EQ(who(store, token), "Ada");
  // only the token's hash is kept
  EXPECT_EQ(sql("SELECT count(*) FROM sessions WHERE token_hash = '" + token + "'"), "0");
  EXPECT_EQ(sql("SELECT person || ' ' || address FROM sessions WHERE token_hash = '" + sha256_hex(token) + "'"),
            "1 192.0.2.1");
  EXPECT_EQ(who(store, token + "x"), "");
  io.run(store.end(token));
  EXPECT_EQ(who(store, token), "");
  EXPECT_EQ(sql("SELECT count(*) FROM sessions"), "0");
}

TEST_F(SessionStoreTest, NoQueryRunsWithoutAPlausibleToken) {
  db::Pool nowhere(io.executor(), {.conninfo = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"});
  auth::SessionStore store(nowhere, kAccounts, quick());
  EXPECT_EQ(who(store, std::nullopt), "");
  EXPECT_EQ(who(store, ""), "");
  EXPECT_EQ(who(store, std::string(101, 'a')), "");
  EXPECT_ANY_THROW(who(store, "plausible"));  // this one asks the (missing) database
}

TEST_F(SessionStoreTest, ARequestTouchesTheSessionAtMostOnceAMinute) {
  auth::SessionStore store(pool, kAccounts, quick());
  const auto token = io.run(store.start("2", "192.0.2.1"));
  sql("UPDATE sessions SET last_seen_at = now() - interval '30 seconds'");
  const auto before = sql("SELECT last_seen_at FROM sessions");
  EXPECT_EQ(who(store, token), "Brian");
  EXPECT_EQ(sql("SELECT last_seen_at FROM sessions"), before);  // seen 30 s ago: not rewritten

  sql("UPDATE sessions SET last_seen_at = now() - interval '29 minutes'");
  EXPECT_EQ(who(store, token), "Brian");
  EXPECT_EQ(sql("SELECT (last_seen_at > now() - interval '1 minute')::text FROM sessions"), "true");
}

// find() says, after the lookup's columns, whose session it is and how long its answer stays as
// it is: until its last-seen time is due to be written again (a minute after the last write), or it
// expires, whichever comes first.
TEST_F(SessionStoreTest, FindSaysWhoseSessionAndHowLongItsAnswerHolds) {
  auth::SessionStore store(pool, kAccounts, quick());
  const auto token = io.run(store.start("2", "192.0.2.1"));
  const auto fresh_ms = [&] {
    const auto rows = io.run(store.find(token));
    EXPECT_EQ(rows.front().get<std::string>("session_subject"), "2");
    return rows.front().get<std::int64_t>("session_fresh_ms");
  };
  sql("UPDATE sessions SET last_seen_at = now() - interval '30 seconds'");
  const auto half = fresh_ms();  // not rewritten: due in 30 s
  EXPECT_GT(half, 20'000);
  EXPECT_LE(half, 30'000);
  sql("UPDATE sessions SET last_seen_at = now() - interval '5 minutes'");
  const auto touched = fresh_ms();  // rewritten now: due in a minute
  EXPECT_GT(touched, 50'000);
  EXPECT_LE(touched, 60'000);
  sql("UPDATE sessions SET expires_at = now() + interval '10 seconds'");
  EXPECT_LE(fresh_ms(), 10'000);  // its end comes first
}

// With a cache, a second find() of a live session asks no database, and end() drops it.
TEST_F(SessionStoreTest, ACacheAnswersForALiveSessionUntilItEnds) {
  auto cache = std::make_shared<auth::SessionCache>(std::chrono::seconds(60));
  cache->trust();  // as its listener does once LISTEN is in place
  auth::SessionStore store(pool, kAccounts, quick(), cache);
  const auto token = io.run(store.start("1", "192.0.2.1"));
  EXPECT_EQ(who(store, token), "Ada");
  const auto asked = pool.stats().acquires;
  EXPECT_EQ(who(store, token), "Ada");
  EXPECT_EQ(pool.stats().acquires, asked);  // from the cache
  EXPECT_EQ(cache->counts().hits, 1u);
  EXPECT_EQ(who(store, token + "x"), "");  // not a session: asked, and nothing kept
  EXPECT_EQ(cache->size(), 1u);
  io.run(store.end(token));
  EXPECT_EQ(cache->size(), 0u);
  EXPECT_EQ(who(store, token), "");
}

TEST_F(SessionStoreTest, SessionsEndWhenIdleOrOldAndStartingOneSweepsTheEnded) {
  auth::SessionPolicy policy = quick();
  policy.idle = std::chrono::minutes(10);
  policy.lifetime = std::chrono::hours(2);
  auth::SessionStore store(pool, kKeys, policy);
  const auto idle = io.run(store.start("admin key 1", "192.0.2.1"));
  const auto old = io.run(store.start("admin key 2", "192.0.2.1"));
  EXPECT_EQ(sql("SELECT (expires_at - now() BETWEEN interval '119 minutes' AND interval '2 hours')::text "
                "FROM keys.sessions LIMIT 1"),
            "true");
  EXPECT_EQ(who(store, idle), "admin key 1");
  sql("UPDATE keys.sessions SET last_seen_at = now() - interval '11 minutes' WHERE actor = 'admin key 1'");
  sql("UPDATE keys.sessions SET expires_at = now() - interval '1 second' WHERE actor = 'admin key 2'");
  EXPECT_EQ(who(store, idle), "");
  EXPECT_EQ(who(store, old), "");
  EXPECT_EQ(sql("SELECT count(*) FROM keys.sessions"), "2");  // ended, not yet swept
  io.run(store.start("admin key 3", "192.0.2.1"));
  EXPECT_EQ(sql("SELECT string_agg(actor, ',') FROM keys.sessions"), "admin key 3");
}

TEST_F(SessionStoreTest, FailuresAreCountedPerAccountAndPerAddress) {
  auth::SessionPolicy policy = quick();
  policy.refuse_account_after = 3;
  policy.refuse_address_after = 5;
  auth::SessionStore store(pool, kAccounts, policy);
  fail(store, "ada", "192.0.2.1", 2);
  EXPECT_FALSE(admit(store, "ada", "192.0.2.1"));
  fail(store, "ada", "192.0.2.1", 1);
  const auto refused = admit(store, "ada", "192.0.2.9");  // the account, from anywhere
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->retry_after, std::chrono::seconds(900));
  EXPECT_EQ(refused->message(), "too many failed sign-ins; try again in 15 minutes");
  const auto answer = refused->problem().to_response("r1");
  EXPECT_EQ(answer.status, http::Status::too_many_requests);
  EXPECT_EQ(answer.headers[http::bhttp::field::retry_after], "900");
  EXPECT_FALSE(admit(store, "brian", "192.0.2.1"));  // another account from the same address

  fail(store, "x", "192.0.2.1", 1);
  fail(store, "y", "192.0.2.1", 1);
  EXPECT_TRUE(admit(store, "brian", "192.0.2.1"));  // the address: 5 failures across accounts
  EXPECT_FALSE(admit(store, "brian", "192.0.2.2"));

  // a success forgives the account's failures (and only those)
  io.run(store.succeeded("ada", "192.0.2.9"));
  EXPECT_EQ(sql("SELECT string_agg(who, ',' ORDER BY who) FROM failures"), "x,y");
  EXPECT_FALSE(admit(store, "ada", "192.0.2.9"));

  // the window passes
  sql("UPDATE failures SET failed_at = failed_at - interval '16 minutes'");
  EXPECT_FALSE(admit(store, "brian", "192.0.2.1"));
}

TEST_F(SessionStoreTest, AStoreWithoutAccountsCountsPerAddress) {
  auth::SessionPolicy policy = quick();
  policy.refuse_account_after = 1;  // no accounts: not used
  policy.refuse_address_after = 3;
  auth::SessionStore store(pool, kKeys, policy);
  fail(store, "ignored", "192.0.2.1", 2);
  EXPECT_FALSE(admit(store, "", "192.0.2.1"));
  fail(store, "", "192.0.2.1", 1);
  EXPECT_TRUE(admit(store, "", "192.0.2.1"));
  EXPECT_FALSE(admit(store, "", "192.0.2.2"));
  io.run(store.succeeded("", "192.0.2.1"));
  EXPECT_EQ(sql("SELECT count(*) FROM keys.failures"), "0");

  // failures older than a day are swept by the next success
  sql("INSERT INTO keys.failures (address, failed_at) VALUES ('192.0.2.7', now() - interval '2 days')");
  io.run(store.succeeded("", "192.0.2.2"));
  EXPECT_EQ(sql("SELECT count(*) FROM keys.failures"), "0");
}
