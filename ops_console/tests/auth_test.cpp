// Sign-in, sessions and access levels of the ops-console, over real HTTP and a real database.
#include "core/http/problem.hpp"
#include "ops_console/identity/create_user.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/identity/password.hpp"
#include "ops_console/service.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace {

using nlohmann::json;
using ops_console::identity::hash_password;

using AuthTest = ops_console::testing::ConsoleTest;

}  // namespace

TEST_F(AuthTest, TheFirstSignInSetsUpOneAdministrator) {
  start();
  EXPECT_EQ(call("GET", "/api/auth/setup").json(), json({{"setupRequired", true}}));
  const auto weak =
      call("POST", "/api/auth/setup", {{"email", "boss@msp.example"}, {"name", "Boss"}, {"password", "short"}});
  EXPECT_EQ(weak.status, 400u);
  EXPECT_EQ(weak.json()["errors"][0]["field"], "password");
  EXPECT_EQ(sql("SELECT count(*) FROM users"), "0");

  const auto done = call("POST", "/api/auth/setup",
                         {{"email", "Boss@MSP.example"}, {"name", "Boss"}, {"password", "a long enough passphrase"}});
  ASSERT_EQ(done.status, 201u) << done.body;
  EXPECT_EQ(done.json()["email"], "boss@msp.example");
  EXPECT_EQ(done.json()["isAdmin"], true);
  const auto me = call("GET", "/api/auth/me", nullptr, token_of(done));
  EXPECT_EQ(me.status, 200u);
  EXPECT_EQ(me.json()["name"], "Boss");
  EXPECT_TRUE(sql("SELECT password_hash FROM users").starts_with("$argon2id$"));

  const auto again =
      call("POST", "/api/auth/setup",
           {{"email", "other@msp.example"}, {"name", "Other"}, {"password", "a long enough passphrase"}});
  EXPECT_EQ(again.status, 409u);
  EXPECT_EQ(call("GET", "/api/auth/setup").json(), json({{"setupRequired", false}}));
  EXPECT_EQ(sql("SELECT count(*) FROM users"), "1");
}

TEST_F(AuthTest, SignInGivesASessionCookieThatMeReadsAndSignOutEnds) {
  add_user("tech@msp.example", "correct horse battery", false, {{"phishing", "read"}});
  start();
  const auto bad = call("POST", "/api/auth/login", {{"email", "tech@msp.example"}, {"password", "wrong password!"}});
  const auto unknown =
      call("POST", "/api/auth/login", {{"email", "nobody@msp.example"}, {"password", "wrong password!"}});
  EXPECT_EQ(bad.status, 401u);
  EXPECT_EQ(unknown.status, 401u);
  EXPECT_EQ(bad.json()["detail"], unknown.json()["detail"]);  // one generic message
  EXPECT_EQ(bad.header("set-cookie"), "");

  const auto ok =
      call("POST", "/api/auth/login", {{"email", "TECH@msp.example"}, {"password", "correct horse battery"}});
  ASSERT_EQ(ok.status, 200u) << ok.body;
  const std::string cookie = ok.header("set-cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Lax"), std::string::npos);
  EXPECT_NE(cookie.find("Path=/"), std::string::npos);
  EXPECT_EQ(cookie.find("Secure"), std::string::npos);
  const std::string token = token_of(ok);
  EXPECT_GE(token.size(), 43u);                                                             // 256 bits
  EXPECT_EQ(sql("SELECT count(*) FROM sessions WHERE token_hash = '" + token + "'"), "0");  // stored hashed

  const auto me = call("GET", "/api/auth/me", nullptr, token);
  ASSERT_EQ(me.status, 200u);
  EXPECT_EQ(me.json(), json::parse(R"({"email": "tech@msp.example", "name": "Name of tech@msp.example",
    "isAdmin": false, "kiosk": false, "permissions": [{"resource": "phishing", "action": "read"}], "theme": "system",
    "timezone": "UTC", "id": )" + sql("SELECT id FROM users") +
                                   "}"));

  const auto out = call("POST", "/api/auth/logout", nullptr, token);
  EXPECT_EQ(out.status, 204u);
  EXPECT_NE(out.header("set-cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, token).status, 401u);
  EXPECT_EQ(call("GET", "/api/auth/me").status, 401u);
  EXPECT_EQ(call("POST", "/api/auth/logout").status, 204u);  // without a session: nothing to end, still 204

  // behind TLS the cookie is Secure
  const auto tls =
      call("POST", "/api/auth/login", {{"email", "tech@msp.example"}, {"password", "correct horse battery"}}, "",
           {{"X-Forwarded-Proto", "https"}});
  EXPECT_NE(tls.header("set-cookie").find("; Secure"), std::string::npos);
}

TEST_F(AuthTest, BadSignInBodiesName400Fields) {
  start();
  EXPECT_EQ(call("POST", "/api/auth/login", {{"password", "x"}}).json()["errors"][0]["field"], "email");
  EXPECT_EQ(call("POST", "/api/auth/login", {{"email", "a@b.example"}}).json()["errors"][0]["field"], "password");
  EXPECT_EQ(call("POST", "/api/auth/login", {{"email", "not mail"}, {"password", "x"}}).status, 400u);
  EXPECT_EQ(core::testing::http(svc->port(), "POST", "/api/auth/login", "{").status, 400u);
}

TEST_F(AuthTest, SessionsEndWhenIdleOrPastTheirLifetime) {
  add_user("tech@msp.example", "correct horse battery");
  start();
  const auto idle = sign_in("tech@msp.example", "correct horse battery");
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, idle).status, 200u);
  // a request keeps the session alive: an old last-seen time is moved to now (the change reaches the
  // session cache by NOTIFY, within the second that session_cache_test.cpp holds it to)
  sql("UPDATE sessions SET last_seen_at = now() - interval '29 minutes'");
  EXPECT_TRUE(core::testing::eventually(
      [&] {
        return call("GET", "/api/auth/me", nullptr, idle).status == 200u &&
               sql("SELECT (last_seen_at > now() - interval '1 minute')::text FROM sessions") == "true";
      },
      std::chrono::seconds(1)));
  sql("UPDATE sessions SET last_seen_at = now() - interval '31 minutes'");
  EXPECT_TRUE(core::testing::eventually([&] { return call("GET", "/api/auth/me", nullptr, idle).status == 401u; },
                                        std::chrono::seconds(1)));

  const auto old = sign_in("tech@msp.example", "correct horse battery");
  sql("UPDATE sessions SET expires_at = now() - interval '1 second'");
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, old).status, 401u);
}

TEST_F(AuthTest, FailedSignInsAreSlowedThenRefusedPerAccountAndPerAddress) {
  add_user("tech@msp.example", "correct horse battery");
  add_user("other@msp.example", "another good passphrase");
  start();
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(
        call("POST", "/api/auth/login", {{"email", "tech@msp.example"}, {"password", "guess " + std::to_string(i)}})
            .status,
        401u);
  const auto refused =
      call("POST", "/api/auth/login", {{"email", "tech@msp.example"}, {"password", "correct horse battery"}});
  EXPECT_EQ(refused.status, 429u);
  EXPECT_EQ(refused.header("retry-after"), "900");
  // another account from the same address is not locked by that
  EXPECT_EQ(
      call("POST", "/api/auth/login", {{"email", "other@msp.example"}, {"password", "another good passphrase"}}).status,
      200u);
  // but an address that keeps failing across accounts is
  for (int i = 0; i < 15; ++i)
    call("POST", "/api/auth/login", {{"email", "x" + std::to_string(i) + "@msp.example"}, {"password", "nope nope"}});
  EXPECT_EQ(
      call("POST", "/api/auth/login", {{"email", "other@msp.example"}, {"password", "another good passphrase"}}).status,
      429u);
  // the window passes
  sql("UPDATE login_failures SET failed_at = failed_at - interval '16 minutes'");
  EXPECT_EQ(
      call("POST", "/api/auth/login", {{"email", "tech@msp.example"}, {"password", "correct horse battery"}}).status,
      200u);
}

// The access levels, on handlers of their own: the check comes first, and a refused request
// never reaches the handler.
TEST_F(AuthTest, AccessLevelsRefuseBeforeTheHandlerRuns) {
  using namespace ops_console::identity;
  add_user("boss@msp.example", "correct horse battery", true);
  add_user("analyst@msp.example", "correct horse battery", false, {{"phishing", "read"}});
  add_user("tech@msp.example", "correct horse battery");
  start();
  const auto boss = sign_in("boss@msp.example", "correct horse battery");
  const auto analyst = sign_in("analyst@msp.example", "correct horse battery");
  const auto tech = sign_in("tech@msp.example", "correct horse battery");

  core::testing::IoThreads io;
  core::db::Pool pool(io.executor(), {.conninfo = database.url()});
  auto identity = std::make_shared<Identity>(pool, IdentitySettings{});
  int ran = 0;
  const core::http::Handler handler = [&ran](core::http::Request& req) -> boost::asio::awaitable<core::http::Response> {
    ++ran;
    co_return core::http::Response::json({{"user", current_user(req).email}});
  };
  const auto status_of = [&](const core::http::Handler& h, const std::string& token) -> int {
    core::http::Request req;
    if (!token.empty()) req.headers.set("Cookie", "ops_session=" + token);
    try {
      return static_cast<int>(io.run(h(req)).status);
    } catch (const core::http::Problem& p) {
      return static_cast<int>(p.status());
    }
  };
  const auto signed_in = auth(identity, handler), admins = admin(identity, handler),
             readers = perm(identity, "phishing", "read", handler),
             analysts = perm(identity, "phishing", "analyze", handler);
  EXPECT_EQ(status_of(signed_in, ""), 401);
  EXPECT_EQ(status_of(signed_in, "not-a-session"), 401);
  EXPECT_EQ(status_of(admins, ""), 401);
  EXPECT_EQ(status_of(readers, ""), 401);
  EXPECT_EQ(ran, 0);

  EXPECT_EQ(status_of(signed_in, tech), 200);
  EXPECT_EQ(status_of(admins, tech), 403);
  EXPECT_EQ(status_of(readers, tech), 403);
  EXPECT_EQ(status_of(readers, analyst), 200);
  EXPECT_EQ(status_of(analysts, analyst), 403);
  EXPECT_EQ(status_of(admins, analyst), 403);
  EXPECT_EQ(status_of(admins, boss), 200);
  EXPECT_EQ(status_of(analysts, boss), 200);  // administrators hold every permission
  EXPECT_EQ(ran, 4);                          // the four 200s above
}

TEST(Passwords, Argon2idHashesVerifyAndDiffer) {
  const auto a = hash_password("correct horse battery"), b = hash_password("correct horse battery");
  EXPECT_TRUE(a.starts_with("$argon2id$"));
  EXPECT_NE(a, b);  // salted
  EXPECT_TRUE(ops_console::identity::verify_password(a, "correct horse battery"));
  EXPECT_FALSE(ops_console::identity::verify_password(a, "correct horse batterY"));
  EXPECT_FALSE(ops_console::identity::verify_password("", "anything"));
  EXPECT_FALSE(ops_console::identity::verify_password("$argon2id$garbage", "anything"));
}

TEST_F(AuthTest, CreateUserFromTheCommandLine) {
  using ops_console::identity::create_user_command;
  const auto run = [&](std::vector<std::string> args, const std::string& password, std::string* said = nullptr) {
    std::istringstream in(password + "\n");
    std::ostringstream out, err;
    const int code = create_user_command(args, database.url(), in, out, err);
    if (said) *said = out.str() + err.str();
    return code;
  };
  std::string said;
  EXPECT_EQ(run({"--email", "Analyst@MSP.example", "--name", "Ana", "--permission", "phishing:read", "--permission",
                 "phishing:analyze", "--password-stdin"},
                "a long enough passphrase", &said),
            0)
      << said;
  EXPECT_NE(said.find("created user"), std::string::npos);
  EXPECT_EQ(sql("SELECT email || '|' || is_admin FROM users"), "analyst@msp.example|false");
  EXPECT_EQ(sql("SELECT string_agg(resource || '.' || action, ',' ORDER BY action) FROM user_permissions"),
            "phishing.analyze,phishing.read");
  EXPECT_EQ(
      run({"--email", "boss@msp.example", "--name", "Boss", "--admin", "--password-stdin"}, "a long enough passphrase"),
      0);
  EXPECT_EQ(sql("SELECT is_admin::text FROM users WHERE email = 'boss@msp.example'"), "true");

  EXPECT_EQ(
      run({"--email", "analyst@msp.example", "--name", "Again", "--password-stdin"}, "a long enough passphrase", &said),
      1);
  EXPECT_NE(said.find("exists already"), std::string::npos);
  EXPECT_EQ(run({"--email", "x@msp.example", "--name", "X", "--password-stdin"}, "short"), 2);
  EXPECT_EQ(run({"--email", "x@msp.example", "--name", "X"}, "a long enough passphrase"), 2);  // no --password-stdin
  EXPECT_EQ(run({"--email", "x@msp.example", "--name", "X", "--permission", "Phishing", "--password-stdin"},
                "a long enough passphrase"),
            2);
  EXPECT_EQ(run({"--email", "x@msp.example", "--name", "X", "--password", "inline", "--password-stdin"},
                "a long enough passphrase"),
            2);
  // a wall display's account: the kiosk view only, so never with --admin or a permission
  EXPECT_EQ(run({"--email", "wall@msp.example", "--name", "Wall", "--kiosk", "--admin", "--password-stdin"},
                "a long enough passphrase", &said),
            2);
  EXPECT_NE(said.find("kiosk view only"), std::string::npos) << said;
  EXPECT_EQ(run({"--email", "wall@msp.example", "--name", "Wall", "--kiosk", "--permission", "phishing:read",
                 "--password-stdin"},
                "a long enough passphrase"),
            2);
  EXPECT_EQ(sql("SELECT count(*) FROM users"), "2");
  EXPECT_EQ(run({"--email", "wall@msp.example", "--name", "Wall", "--kiosk", "--password-stdin"},
                "a long enough passphrase", &said),
            0)
      << said;
  EXPECT_EQ(sql("SELECT kiosk::text || is_admin::text FROM users WHERE email = 'wall@msp.example'"), "truefalse");
  sql("DELETE FROM users WHERE email = 'wall@msp.example'");

  // a database it cannot reach, and one that refuses the statement: 1, with the reason
  {
    std::istringstream in("a long enough passphrase\n");
    std::ostringstream out, err;
    EXPECT_EQ(create_user_command({"--email", "x@msp.example", "--name", "X", "--password-stdin"},
                                  "postgresql://127.0.0.1:1/x?connect_timeout=2", in, out, err),
              1);
    EXPECT_NE(err.str().find("create-user: cannot connect to the database"), std::string::npos) << err.str();
  }
  sql("ALTER TABLE users ADD CONSTRAINT no_x CHECK (email <> 'x@msp.example')");
  EXPECT_EQ(run({"--email", "x@msp.example", "--name", "X", "--password-stdin"}, "a long enough passphrase", &said), 1);
  EXPECT_NE(said.find("create-user: ERROR:  new row for relation \"users\" violates check constraint \"no_x\""),
            std::string::npos)
      << said;
  sql("ALTER TABLE users DROP CONSTRAINT no_x");
  EXPECT_EQ(sql("SELECT count(*) FROM users"), "2");

  // the user signs in with that password
  start();
  EXPECT_EQ(
      call("POST", "/api/auth/login", {{"email", "analyst@msp.example"}, {"password", "a long enough passphrase"}})
          .status,
      200u);
}
