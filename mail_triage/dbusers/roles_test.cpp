// The database work of the /dbusers console against the real cluster: the created role logs in
// over TCP with the generated password and can do exactly what its level grants.
#include "mail_triage/dbusers/roles.hpp"
#include "core/db/migrate.hpp"
#include "core/db/pool.hpp"
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/service.hpp"
#include "mail_triage/tests/created_roles.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using mail_triage::dbusers::CreatedUser;
using mail_triage::dbusers::DbUserError;
using mail_triage::dbusers::Level;

struct DbUsersTest : ::testing::Test {
  core::testing::TestDatabase database{mail_triage::definition().migrations};
  core::testing::IoThreads io;
  core::db::Pool pool{io.executor(), {.conninfo = database.url()}};
  mail_triage::testing::CreatedRoles roles{database.url()};

  std::string sql(const std::string& s) { return core::testing::sql(database.url(), s); }
  // Usernames are unique per test: roles are cluster-wide and tests run in parallel.
  std::string unique(const std::string& base) { return base + "_" + core::random_hex(4); }

  CreatedUser create(const std::string& username, Level level) {
    roles.push_back("svc_" + username);
    return io.run(mail_triage::dbusers::create_user(pool, {.username = username, .level = level, .actor = "tester"}));
  }
  void revoke(const std::string& id) { io.run(mail_triage::dbusers::revoke_user(pool, id, "tester")); }

  // The database URL with the created role's credentials instead of the admin's.
  std::string url_of(const CreatedUser& u) {
    const std::string& admin = database.url();
    const auto scheme = admin.find("://") + 3;
    return admin.substr(0, scheme) + u.role_name + ":" + u.password + admin.substr(admin.find('@'));
  }
  // "ok", or "denied" for a permission error; anything else fails the test.
  std::string as(const CreatedUser& u, const std::string& statement) {
    try {
      core::testing::sql(url_of(u), statement);
      return "ok";
    } catch (const std::runtime_error& e) {
      if (std::string(e.what()).find("permission denied") != std::string::npos) return "denied";
      ADD_FAILURE() << statement << ": " << e.what();
      return "error";
    }
  }
  template <class F>
  DbUserError::Kind refusal(F f) {
    try {
      f();
    } catch (const DbUserError& e) {
      return e.kind;
    }
    ADD_FAILURE() << "not refused";
    return DbUserError::Kind::invalid;
  }
};

constexpr const char* kCustomer = "INSERT INTO customers (name, domain) VALUES ('C', '";

}  // namespace

TEST_F(DbUsersTest, ACreatedRoleLogsInAndDoesExactlyWhatItsLevelGrants) {
  const auto reader = create(unique("reader"), Level::read_only);
  const auto editor = create(unique("editor"), Level::modify);
  const auto owner = create(unique("owner"), Level::full);
  EXPECT_EQ(reader.role_name, "svc_" + reader.username);
  EXPECT_EQ(reader.database, database.name());
  EXPECT_GE(reader.password.size(), 22u);  // at least 128 bits in base64url
  sql("INSERT INTO customers (name, domain) VALUES ('Contoso', 'contoso.example')");

  // created after the roles, as a later migration would be (by the same owner)
  sql("CREATE TABLE added_later (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text)");
  struct Case {
    const CreatedUser& user;
    std::string statement;
    std::string expected;
  };
  const std::vector<Case> cases = {
      // read_only: SELECT on all tables, nothing else
      {reader, "SELECT count(*) FROM email_log", "ok"},
      {reader, "SELECT count(*) FROM purge_deletions", "ok"},
      {reader, std::string(kCustomer) + "r.example')", "denied"},
      {reader, "UPDATE whitelist SET description = 'x'", "denied"},
      // modify: SELECT everywhere; INSERT and UPDATE on the five tables; no DELETE, no other writes
      {editor, "SELECT count(*) FROM email_log", "ok"},
      {editor, std::string(kCustomer) + "m.example')", "ok"},
      {editor, "INSERT INTO vendors (name, domain) VALUES ('V', 'v.example')", "ok"},
      {editor, "INSERT INTO whitelist (domain) VALUES ('w.example')", "ok"},
      {editor, "INSERT INTO sender_profiles (email_address, sender_type) VALUES ('a@p.example', 'vendor')", "ok"},
      {editor, "INSERT INTO purge_rules (email_address, older_than_days) VALUES ('n@p.example', 30)", "ok"},
      {editor, "UPDATE customers SET name = 'Contoso Ltd' WHERE domain = 'contoso.example'", "ok"},
      {editor, "DELETE FROM customers", "denied"},
      {editor,
       "INSERT INTO email_log (mailbox, message_id, sender_address, subject, received_at, status) "
       "VALUES ('m@x.example', 'id', 'a@b.example', 's', now(), 'pending')",
       "denied"},
      {editor, "UPDATE db_api_users SET description = 'x'", "denied"},
      // full: SELECT, INSERT, UPDATE, DELETE on all tables, identity columns included
      {owner, "DELETE FROM customers WHERE domain = 'm.example'", "ok"},
      {owner,
       "INSERT INTO purge_deletions (run_id, mailbox, message_id, sender_address, received_at, "
       "older_than_days) VALUES (gen_random_uuid(), 'm@x.example', 'id', 'a@b.example', now(), 30)",
       "ok"},
      {owner, "UPDATE email_log SET subject = subject", "ok"},
      {owner, "CREATE TABLE owned_by_a_user (x int)", "denied"},  // no DDL
      {owner, "CREATE ROLE sneaky", "denied"},
      // a table added later (a future migration, run by the same owner) follows each level
      {reader, "SELECT count(*) FROM added_later", "ok"},
      {reader, "INSERT INTO added_later (note) VALUES ('r')", "denied"},
      {editor, "SELECT count(*) FROM added_later", "ok"},
      {editor, "INSERT INTO added_later (note) VALUES ('m')", "denied"},
      {owner, "INSERT INTO added_later (note) VALUES ('f')", "ok"},
      {owner, "DELETE FROM added_later", "ok"},
  };
  for (const auto& c : cases) EXPECT_EQ(as(c.user, c.statement), c.expected) << c.user.role_name << ": " << c.statement;

  // the users are on the list, active, with their levels
  EXPECT_EQ(sql("SELECT string_agg(permission_level || ':' || is_active || ':' || created_by, ',' "
                "ORDER BY permission_level) FROM db_api_users"),
            "full:true:tester,modify:true:tester,read_only:true:tester");
}

TEST_F(DbUsersTest, RevokeEndsTheSessionsDropsTheRoleAndMarksTheUserInactive) {
  const auto user = create(unique("bi"), Level::read_only);
  std::unique_ptr<PGconn, decltype(&PQfinish)> open(PQconnectdb(url_of(user).c_str()), PQfinish);
  ASSERT_EQ(PQstatus(open.get()), CONNECTION_OK) << PQerrorMessage(open.get());

  revoke(user.id);
  EXPECT_EQ(sql("SELECT count(*) FROM pg_roles WHERE rolname = '" + user.role_name + "'"), "0");
  EXPECT_EQ(sql("SELECT is_active::text || ':' || (revoked_at IS NOT NULL)::text || ':' || revoked_by "
                "FROM db_api_users WHERE id = '" +
                user.id + "'"),
            "false:true:tester");
  // the session open at revoke time is gone, and no new one can start
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(open.get(), "SELECT 1"), PQclear);
  EXPECT_NE(PQresultStatus(r.get()), PGRES_TUPLES_OK);
  EXPECT_THROW(core::testing::sql(url_of(user), "SELECT 1"), std::runtime_error);

  EXPECT_EQ(refusal([&] { revoke(user.id); }), DbUserError::Kind::inactive);
  EXPECT_EQ(refusal([&] { revoke("00000000-0000-4000-8000-000000000000"); }), DbUserError::Kind::not_found);
  EXPECT_EQ(refusal([&] { revoke("not-a-uuid"); }), DbUserError::Kind::not_found);
}

TEST_F(DbUsersTest, InvalidUsernamesCreateNothing) {
  const std::vector<std::string> invalid = {"ab",        std::string(32, 'a'),
                                            "Powerbi",   "power bi",
                                            "power-bi",  "bi'; DROP TABLE x; --",
                                            "bi\"x",     "svc_",
                                            "svc_admin", "",
                                            "b\xc3\xa9", "tab\tname",
                                            "x\ny"};
  for (const auto& bad : invalid) {
    EXPECT_EQ(refusal([&] { create(bad, Level::full); }), DbUserError::Kind::invalid) << bad;
    std::string literal;  // the role name as an SQL string literal
    for (char c : "svc_" + bad) literal += c == '\'' ? std::string("''") : std::string(1, c);
    EXPECT_EQ(sql("SELECT count(*) FROM pg_roles WHERE rolname = '" + literal + "'"), "0") << bad;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "0");
  // the limits themselves are fine: 3 and 31 characters
  const auto three = create(unique("b").substr(0, 3), Level::read_only);
  EXPECT_EQ(three.username.size(), 3u);
  const auto longest = create(unique(std::string(22, 'x')), Level::read_only);
  EXPECT_EQ(longest.username.size(), 31u);
}

TEST_F(DbUsersTest, AnExistingUserOrRoleOfThatNameIsRefused) {
  const auto name = unique("dup");
  create(name, Level::read_only);
  EXPECT_EQ(refusal([&] { create(name, Level::full); }), DbUserError::Kind::exists);

  const auto foreign = unique("foreign");  // a role someone made by hand
  roles.push_back("svc_" + foreign);
  sql("CREATE ROLE svc_" + foreign);
  EXPECT_EQ(refusal([&] { create(foreign, Level::read_only); }), DbUserError::Kind::exists);
  EXPECT_EQ(sql("SELECT count(*) FROM db_api_users"), "1");
  EXPECT_EQ(sql("SELECT rolcanlogin::text FROM pg_roles WHERE rolname = 'svc_" + foreign + "'"), "false");
}

TEST_F(DbUsersTest, ThePasswordNeverReachesTheServerLog) {
  const std::string log_path = sql("SHOW data_directory") + "/server.log";
  std::ifstream probe(log_path);
  if (!probe)
    GTEST_SKIP() << "the server log is not at " << log_path << " (a cluster not started by scripts/pg-cluster)";
  const auto size_before = std::filesystem::file_size(log_path);
  sql("ALTER DATABASE " + database.name() + " SET log_statement = 'all'");
  core::db::Pool logged(io.executor(), {.conninfo = database.url()});  // new sessions take the setting
  const auto name = unique("logged");
  roles.push_back("svc_" + name);
  const auto user = io.run(mail_triage::dbusers::create_user(logged, {.username = name, .level = Level::modify}));
  EXPECT_EQ(as(user, "SELECT 1"), "ok");
  logged.close();

  std::ifstream in(log_path);
  in.seekg(static_cast<std::streamoff>(size_before));
  std::stringstream text;
  text << in.rdbuf();
  const std::string log = text.str();
  // the statement was logged, with the verifier only
  EXPECT_NE(log.find("CREATE ROLE \"svc_" + name + "\" LOGIN PASSWORD 'SCRAM-SHA-256$"), std::string::npos);
  EXPECT_EQ(log.find(user.password), std::string::npos);
}

// The service as deployed: its own non-superuser role with CREATEROLE, owner of its database,
// running its own migrations (scripts/demo sets it up this way).
TEST(DbUsersAsServiceUser, ANonSuperuserWithCreateRoleCreatesAndRevokes) {
  const std::string suffix = core::random_hex(4);
  const std::string service = "mt_service_" + suffix, dbname = "mt_nonsu_" + suffix, password = core::random_hex(16);
  const std::string admin = core::testing::database_url();
  core::testing::sql(admin, "CREATE ROLE " + service + " LOGIN CREATEROLE PASSWORD '" + password + "'");
  core::testing::sql(admin, "CREATE DATABASE " + dbname + " OWNER " + service);
  const auto at = admin.find("://") + 3;
  const std::string base = admin.substr(0, at) + service + ":" + password + admin.substr(admin.find('@'));
  const std::string url = base.substr(0, base.rfind('/') + 1) + dbname;
  std::string created_role;
  const auto cleanup = [&] {
    core::testing::sql(admin, "DROP DATABASE IF EXISTS " + dbname + " WITH (FORCE)");
    if (!created_role.empty()) core::testing::sql(admin, "DROP ROLE IF EXISTS " + created_role);
    core::testing::sql(admin, "DROP ROLE IF EXISTS " + service);
  };
  try {
    core::db::apply_migrations(url, mail_triage::definition().migrations, "mail-triage");
    core::testing::IoThreads io;
    core::db::Pool pool(io.executor(), {.conninfo = url});
    const auto user =
        io.run(mail_triage::dbusers::create_user(pool, {.username = "nonsu_" + suffix, .level = Level::modify}));
    created_role = user.role_name;
    const std::string user_url = base.substr(0, at) + user.role_name + ":" + user.password +
                                 base.substr(base.find('@'), base.rfind('/') - base.find('@') + 1) + dbname;
    EXPECT_EQ(
        core::testing::sql(user_url, "INSERT INTO vendors (name, domain) VALUES ('V', 'v.example') RETURNING 'ok'"),
        "ok");
    EXPECT_THROW(core::testing::sql(user_url, "DELETE FROM vendors"), std::runtime_error);
    std::unique_ptr<PGconn, decltype(&PQfinish)> open(PQconnectdb(user_url.c_str()), PQfinish);
    ASSERT_EQ(PQstatus(open.get()), CONNECTION_OK);
    io.run(mail_triage::dbusers::revoke_user(pool, user.id, "tester"));
    EXPECT_EQ(core::testing::sql(admin, "SELECT count(*) FROM pg_roles WHERE rolname = '" + user.role_name + "'"), "0");
    std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(open.get(), "SELECT 1"), PQclear);
    EXPECT_NE(PQresultStatus(r.get()), PGRES_TUPLES_OK);  // its session was ended
    pool.close();
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}
