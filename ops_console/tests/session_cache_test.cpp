// The session cache across instances (issue 36): two services on one database, a session used on
// both; what one instance (or an operator's SQL) changes, the other refuses within a second. The
// second is the bound the issue names on correctness (a notification's delivery), not a speed.
#include "ops_console/tests/console_fixture.hpp"

using namespace ops_console::testing;
using namespace std::chrono_literals;

namespace {

struct SessionCacheTest : ConsoleTest {
  std::unique_ptr<core::testing::RunningService> other;  // instance B; svc is instance A

  void start_both() {
    start();
    std::map<std::string, std::string> env{{"LOGIN_DELAY_MS", "1"}};
    other = std::make_unique<core::testing::RunningService>(ops_console::definition(), database.url(),
                                                            core::config::Environment(env.begin(), env.end()));
  }
  HttpResponse on_other(const std::string& method, const std::string& path, const std::string& token) {
    return core::testing::http(other->port(), method, path, "", {{"Cookie", "ops_session=" + token}});
  }
  std::uint64_t other_database_work() { return other->service().db().stats().acquires; }
  // `instance` answers /api/auth/me for the session without asking the database (once its listener
  // is up and it has looked the session up once).
  bool answers_from_its_cache(core::testing::RunningService& instance, const std::string& token) {
    return core::testing::eventually([&] {
      const auto before = instance.service().db().stats().acquires;
      const auto res =
          core::testing::http(instance.port(), "GET", "/api/auth/me", "", {{"Cookie", "ops_session=" + token}});
      return res.status == 200u && instance.service().db().stats().acquires == before;
    });
  }
  bool other_answers_from_its_cache(const std::string& token) { return answers_from_its_cache(*other, token); }
  // A user signed in on A whose session both instances hold in their caches.
  std::string signed_in_on_both(const std::string& email) {
    add_user(email, kPassword);
    start_both();
    const auto token = sign_in(email, kPassword);
    EXPECT_TRUE(other_answers_from_its_cache(token));
    EXPECT_TRUE(answers_from_its_cache(*svc, token));
    return token;
  }
  bool other_answers_within_a_second(const std::string& token, const std::string& path, unsigned status) {
    return core::testing::eventually([&] { return on_other("GET", path, token).status == status; }, 1s);
  }
};

}  // namespace

TEST_F(SessionCacheTest, ASignOutOnOneInstanceEndsTheSessionOnTheOther) {
  const auto token = signed_in_on_both("tech@msp.example");

  EXPECT_EQ(call("POST", "/api/auth/logout", nullptr, token).status, 204u);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, token).status, 401u);  // A dropped it at once
  EXPECT_TRUE(other_answers_within_a_second(token, "/api/auth/me", 401u));
}

TEST_F(SessionCacheTest, ADeletedUserIsRefusedOnEveryInstance) {
  const auto token = signed_in_on_both("tech@msp.example");

  sql("DELETE FROM users WHERE email = 'tech@msp.example'");  // how an operator takes an account away
  EXPECT_TRUE(other_answers_within_a_second(token, "/api/auth/me", 401u));
  EXPECT_TRUE(
      core::testing::eventually([&] { return call("GET", "/api/auth/me", nullptr, token).status == 401u; }, 1s));
}

TEST_F(SessionCacheTest, ATakenPermissionOrAdminFlagIsRefusedOnTheOtherInstance) {
  add_user("analyst@msp.example", kPassword, false, {{"phishing", "read"}});
  add_user("boss@msp.example", kPassword, true);
  start_both();
  const auto analyst = sign_in("analyst@msp.example", kPassword);
  const auto boss = sign_in("boss@msp.example", kPassword);
  ASSERT_TRUE(other_answers_from_its_cache(analyst));
  ASSERT_TRUE(other_answers_from_its_cache(boss));
  EXPECT_EQ(on_other("GET", "/api/phishing/campaigns", analyst).status, 200u);
  EXPECT_EQ(on_other("GET", "/api/admin/display-settings", boss).status, 200u);

  sql("DELETE FROM user_permissions");
  sql("UPDATE users SET is_admin = false WHERE email = 'boss@msp.example'");
  EXPECT_TRUE(other_answers_within_a_second(analyst, "/api/phishing/campaigns", 403u));
  EXPECT_TRUE(other_answers_within_a_second(boss, "/api/admin/display-settings", 403u));
  // and given again
  sql("INSERT INTO user_permissions SELECT id, 'phishing', 'read' FROM users WHERE email = 'analyst@msp.example'");
  EXPECT_TRUE(other_answers_within_a_second(analyst, "/api/phishing/campaigns", 200u));
}

// A user's own change shows on the instance that made it at their very next request (the
// notification reaches the others a moment later).
TEST_F(SessionCacheTest, AUsersOwnChangeShowsAtTheirNextRequest) {
  const auto token = signed_in_on_both("tech@msp.example");
  EXPECT_EQ(call("PUT", "/api/me/timezone", {{"timezone", "Europe/Berlin"}}, token).status, 200u);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, token).json()["timezone"], "Europe/Berlin");
  EXPECT_TRUE(core::testing::eventually(
      [&] { return on_other("GET", "/api/auth/me", token).json()["timezone"] == "Europe/Berlin"; }, 1s));
}

// While an instance's listener is down it cannot know what it misses: it asks the database for
// every request, so a session ended meanwhile is refused; once the listener is back, it caches again.
TEST_F(SessionCacheTest, WithoutItsListenerAnInstanceTrustsNoCachedSession) {
  const auto ended = signed_in_on_both("tech@msp.example");
  const auto kept = sign_in("tech@msp.example", kPassword);
  ASSERT_TRUE(other_answers_from_its_cache(kept));

  // The listeners are cut off and cannot come back: no new connection to the database is let in
  // (the pools keep theirs), then their backends are terminated.
  const std::string admin = core::testing::database_url();
  struct Reopen {
    std::string admin, name;
    ~Reopen() { core::testing::sql(admin, "ALTER DATABASE \"" + name + "\" ALLOW_CONNECTIONS true"); }
  } reopen{admin, database.name()};
  core::testing::sql(admin, "ALTER DATABASE \"" + database.name() + "\" ALLOW_CONNECTIONS false");
  EXPECT_EQ(
      core::testing::sql(admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '" +
                                    database.name() + "' AND query = 'LISTEN \"session_changes\"'"),
      "2");

  EXPECT_EQ(call("POST", "/api/auth/logout", nullptr, ended).status, 204u);  // A's pool still has a connection
  EXPECT_TRUE(other_answers_within_a_second(ended, "/api/auth/me", 401u));
  const auto before = other_database_work();
  EXPECT_EQ(on_other("GET", "/api/auth/me", kept).status, 200u);
  EXPECT_GT(other_database_work(), before);  // asked the database: nothing is trusted meanwhile

  core::testing::sql(admin, "ALTER DATABASE \"" + database.name() + "\" ALLOW_CONNECTIONS true");
  EXPECT_TRUE(other_answers_from_its_cache(kept));  // the listener is back
}
