// The /dbusers console over real HTTP, as a browser without JavaScript uses it: cookies, forms,
// CSRF tokens, redirects, against the real cluster.
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/service.hpp"
#include "mail_triage/tests/console_browser.hpp"
#include "mail_triage/tests/created_roles.hpp"

#include <gtest/gtest.h>

namespace {

using core::testing::HttpResponse;
using mail_triage::testing::Browser;
using mail_triage::testing::csrf_of;
using mail_triage::testing::element;

struct ConsoleTest : ::testing::Test {
  core::testing::TestDatabase database{mail_triage::definition().migrations};
  std::unique_ptr<core::testing::RunningService> svc;
  mail_triage::testing::CreatedRoles roles{database.url()};

  void start(std::map<std::string, std::string> env = {}) {
    env.emplace("API_KEYS", "api-key");
    env.emplace("DBUSERS_ADMIN_KEYS", "admin-key, second-admin-key");
    env.emplace("DBUSERS_LOGIN_DELAY_MS", "1");
    env.emplace("DBUSERS_DB_HOST", "db.msp.example");
    svc = std::make_unique<core::testing::RunningService>(mail_triage::definition(), database.url(),
                                                          core::config::Environment(env.begin(), env.end()));
  }
  std::string sql(const std::string& s) { return core::testing::sql(database.url(), s); }
  Browser browser() { return Browser{.port = svc->port()}; }

  HttpResponse sign_in(Browser& b, const std::string& key = "admin-key") {
    const auto form = b.get("/dbusers/login");
    return b.post("/dbusers/login", {{"csrf", csrf_of(form.body)}, {"key", key}});
  }
  Browser signed_in() {
    auto b = browser();
    const auto res = sign_in(b);
    EXPECT_EQ(res.status, 303u) << res.body;
    return b;
  }
  HttpResponse create(Browser& b, const std::string& username, const std::string& level,
                      const std::string& description = "") {
    roles.push_back("svc_" + username);
    const auto list = b.get("/dbusers");
    return b.post("/dbusers/users", {{"csrf", csrf_of(list.body)},
                                     {"username", username},
                                     {"permission_level", level},
                                     {"description", description}});
  }
  std::string unique(const std::string& base) { return base + "_" + core::random_hex(4); }
};

}  // namespace

TEST_F(ConsoleTest, WithoutASessionEveryPageLeadsToTheSignInForm) {
  start();
  auto b = browser();
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/dbusers"},
           {"POST", "/dbusers/users"},
           {"POST", "/dbusers/logout"},
           {"POST", "/dbusers/users/00000000-0000-4000-8000-000000000000/revoke"}}) {
    const auto res = b.request(method, path, "username=x_ab&permission_level=full");
    EXPECT_EQ(res.status, 303u) << method << " " << path;
    EXPECT_EQ(res.header("location"), "/dbusers/login") << method << " " << path;
  }
  // a bearer API key is not a console session
  const auto bearer = core::testing::http(svc->port(), "GET", "/dbusers", "", {{"Authorization", "Bearer api-key"}});
  EXPECT_EQ(bearer.status, 303u);
  const auto form = b.get("/dbusers/login");
  EXPECT_EQ(form.status, 200u);
  EXPECT_EQ(form.header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(form.body.find("name=\"key\""), std::string::npos);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "0");
}

TEST_F(ConsoleTest, SignInCreateReadTheCredentialsOnceRevokeAndSignOut) {
  start();
  auto b = browser();
  const auto signed_in = sign_in(b);
  ASSERT_EQ(signed_in.status, 303u) << signed_in.body;
  EXPECT_EQ(signed_in.header("location"), "/dbusers");
  const std::string cookie = signed_in.header("set-cookie");
  EXPECT_NE(cookie.find("dbusers_session="), std::string::npos);
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  EXPECT_NE(cookie.find("Path=/dbusers"), std::string::npos);
  EXPECT_EQ(cookie.find("Secure"), std::string::npos);  // plain HTTP here
  const std::string token = b.cookies.at("dbusers_session");
  EXPECT_EQ(sql("SELECT count(*) FROM dbusers_console.sessions WHERE token_hash = '" + token + "'"), "0");  // hashed

  const auto empty = b.get("/dbusers");
  ASSERT_EQ(empty.status, 200u);
  EXPECT_NE(empty.body.find("No database users yet"), std::string::npos);

  const auto name = unique("powerbi");
  const auto shown = create(b, name, "read_only", "Power BI <reports>");
  ASSERT_EQ(shown.status, 201u) << shown.body;
  EXPECT_EQ(shown.header("cache-control"), "no-store");
  const std::string password = element(shown.body, "password");
  EXPECT_GE(password.size(), 22u);
  EXPECT_EQ(element(shown.body, "host"), "db.msp.example");
  EXPECT_EQ(element(shown.body, "port"), "5434");
  EXPECT_EQ(element(shown.body, "database"), database.name());
  EXPECT_EQ(element(shown.body, "role"), "svc_" + name);
  EXPECT_EQ(element(shown.body, "url"),
            "postgresql://svc_" + name + ":" + password + "@db.msp.example:5434/" + database.name());
  // the credentials work (on this test's cluster address) and are stored nowhere
  const std::string admin = database.url();
  const std::string as_role = "postgresql://svc_" + name + ":" + password + admin.substr(admin.find('@'));
  EXPECT_EQ(core::testing::sql(as_role, "SELECT current_user"), "svc_" + name);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users d WHERE d::text LIKE '%" + password + "%'"), "0");

  // the list shows the user, escaped, with a revoke button; the credentials are not shown again
  const auto list = b.get("/dbusers");
  EXPECT_NE(list.body.find("Power BI &lt;reports&gt;"), std::string::npos);
  EXPECT_EQ(list.body.find(password), std::string::npos);
  const std::string id = sql("SELECT id FROM db_api_users WHERE username = '" + name + "'");
  EXPECT_NE(list.body.find("/dbusers/users/" + id + "/revoke"), std::string::npos);

  const auto revoked = b.post("/dbusers/users/" + id + "/revoke", {{"csrf", csrf_of(list.body)}});
  EXPECT_EQ(revoked.status, 200u) << revoked.body;
  EXPECT_NE(revoked.body.find("was revoked"), std::string::npos);
  EXPECT_EQ(sql("SELECT count(*) FROM pg_roles WHERE rolname = 'svc_" + name + "'"), "0");
  EXPECT_THROW(core::testing::sql(as_role, "SELECT 1"), std::runtime_error);
  const auto again = b.post("/dbusers/users/" + id + "/revoke", {{"csrf", csrf_of(list.body)}});
  EXPECT_EQ(again.status, 409u);
  EXPECT_NE(again.body.find("revoked already"), std::string::npos);

  // who did what and when
  const std::string actor = sql("SELECT actor FROM dbusers_console.sessions");
  EXPECT_TRUE(actor.starts_with("admin key ")) << actor;
  EXPECT_EQ(sql("SELECT string_agg(action || ':' || coalesce(username, '-') || ':' || (actor = '" + actor +
                "')::text, ',' ORDER BY id) FROM dbusers_console.audit"),
            "login:-:true,create:" + name + ":true,revoke:" + name + ":true");
  EXPECT_EQ(sql("SELECT created_by || '|' || revoked_by FROM db_api_users"), actor + "|" + actor);

  const auto out = b.post("/dbusers/logout", {{"csrf", csrf_of(b.get("/dbusers").body)}});
  EXPECT_EQ(out.status, 303u);
  EXPECT_EQ(out.header("location"), "/dbusers/login");
  EXPECT_EQ(b.get("/dbusers").status, 303u);
  EXPECT_EQ(sql("SELECT count(*) FROM dbusers_console.sessions"), "0");
  EXPECT_EQ(sql("SELECT action || ':' || (actor = '" + actor +
                "')::text FROM dbusers_console.audit ORDER BY id DESC LIMIT 1"),
            "logout:true");
  // the old cookie is dead even if a client kept it
  Browser replay{.port = svc->port(), .cookies = {{"dbusers_session", token}}};
  EXPECT_EQ(replay.get("/dbusers").status, 303u);
}

TEST_F(ConsoleTest, FormsWithoutTheRightCsrfTokenAre403AndChangeNothing) {
  start();
  auto b = signed_in();
  const auto name = unique("csrf");
  EXPECT_EQ(b.post("/dbusers/users", {{"username", name}, {"permission_level", "full"}}).status, 403u);
  EXPECT_EQ(b.post("/dbusers/users", {{"csrf", "forged"}, {"username", name}, {"permission_level", "full"}}).status,
            403u);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM pg_roles WHERE rolname = 'svc_" + name + "'"), "0");

  ASSERT_EQ(create(b, name, "modify").status, 201u);
  const std::string id = sql("SELECT id FROM db_api_users");
  EXPECT_EQ(b.post("/dbusers/users/" + id + "/revoke", {}).status, 403u);
  // another session's token does not fit this session
  auto other = signed_in();
  const std::string foreign = csrf_of(other.get("/dbusers").body);
  EXPECT_EQ(b.post("/dbusers/users/" + id + "/revoke", {{"csrf", foreign}}).status, 403u);
  EXPECT_EQ(b.post("/dbusers/logout", {{"csrf", foreign}}).status, 403u);
  EXPECT_EQ(sql("SELECT is_active::text FROM db_api_users"), "true");

  // the sign-in form's token must match its cookie
  auto fresh = browser();
  fresh.get("/dbusers/login");
  EXPECT_EQ(fresh.post("/dbusers/login", {{"csrf", "guess"}, {"key", "admin-key"}}).status, 403u);
  Browser no_cookie{.port = svc->port()};
  EXPECT_EQ(no_cookie.post("/dbusers/login", {{"csrf", ""}, {"key", "admin-key"}}).status, 403u);
  EXPECT_FALSE(fresh.cookies.contains("dbusers_session"));
}

TEST_F(ConsoleTest, BadFormInputIsShownOnTheFormAndCreatesNothing) {
  start();
  auto b = signed_in();
  const std::vector<std::string> invalid = {"ab",       "UPPER_case",         "has space",
                                            "<script>", std::string(32, 'a'), "svc_admin"};
  for (const auto& bad : invalid) {
    const auto res = create(b, bad, "read_only");
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_NE(res.body.find("class=\"error\""), std::string::npos) << bad;
    EXPECT_EQ(res.body.find("<script>"), std::string::npos) << bad;  // echoed escaped
  }
  EXPECT_EQ(create(b, unique("lvl"), "owner").status, 400u);
  EXPECT_EQ(create(b, unique("desc"), "full", std::string(501, 'd')).status, 400u);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "0");

  const auto name = unique("twice");
  EXPECT_EQ(create(b, name, "full").status, 201u);
  const auto dup = create(b, name, "full");
  EXPECT_EQ(dup.status, 409u);
  EXPECT_NE(dup.body.find("exists already"), std::string::npos);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "1");
}

TEST_F(ConsoleTest, RepeatedFailedSignInsAreSlowedThenRefused) {
  start();
  auto b = browser();
  for (int i = 0; i < 10; ++i) {
    const auto res = sign_in(b, "wrong-" + std::to_string(i));
    EXPECT_EQ(res.status, 403u) << i;
    EXPECT_NE(res.body.find("That key is not valid"), std::string::npos);
  }
  const auto refused = sign_in(b);  // even the right key, from this address, for now
  EXPECT_EQ(refused.status, 429u);
  EXPECT_EQ(refused.header("retry-after"), "900");
  EXPECT_FALSE(b.cookies.contains("dbusers_session"));
  EXPECT_EQ(sql("SELECT count(*) FROM dbusers_console.audit WHERE action = 'login_failed'"), "10");

  // the window passes: the right key works and clears the count
  sql("UPDATE dbusers_console.login_failures SET failed_at = failed_at - interval '16 minutes'");
  EXPECT_EQ(sign_in(b).status, 303u);
  EXPECT_EQ(sql("SELECT count(*) FROM dbusers_console.login_failures"), "0");
}

TEST_F(ConsoleTest, SessionsEndWhenIdleOrOld) {
  start();
  auto b = signed_in();
  EXPECT_EQ(b.get("/dbusers").status, 200u);
  sql("UPDATE dbusers_console.sessions SET last_seen_at = now() - interval '31 minutes'");
  EXPECT_EQ(b.get("/dbusers").status, 303u);

  auto c = signed_in();
  sql("UPDATE dbusers_console.sessions SET expires_at = now() - interval '1 second'");
  EXPECT_EQ(c.get("/dbusers").status, 303u);
}

TEST_F(ConsoleTest, AdminKeysFallBackToTheApiKeysAndCookiesAreSecureBehindTls) {
  start({{"DBUSERS_ADMIN_KEYS", ""}});
  auto b = browser();
  EXPECT_EQ(sign_in(b, "admin-key").status, 403u);
  b.extra_headers["X-Forwarded-Proto"] = "https";
  const auto res = sign_in(b, "api-key");
  EXPECT_EQ(res.status, 303u);
  EXPECT_NE(res.header("set-cookie").find("; Secure"), std::string::npos);
}
