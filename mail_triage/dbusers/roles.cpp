#include "mail_triage/dbusers/roles.hpp"

#include "core/db/errors.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

namespace mail_triage::dbusers {

using boost::asio::awaitable;
using Kind = DbUserError::Kind;

namespace {

// The tables `modify` may write (the spec's table).
constexpr std::string_view kModifyTables = "customers, vendors, whitelist, sender_profiles, purge_rules";

constexpr std::string_view kTaken = R"sql(
  SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2),
         EXISTS (SELECT 1 FROM db_api_users WHERE username = $1)
)sql";

constexpr std::string_view kInsert = R"sql(
  INSERT INTO db_api_users (username, role_name, permission_level, description, created_by)
  VALUES ($1, $2, $3, $4, $5)
  RETURNING id, current_database()
)sql";

constexpr std::string_view kAudit = R"sql(
  INSERT INTO dbusers_console.audit (actor, action, username, permission_level) VALUES ($1, $2, $3, $4)
)sql";

constexpr std::string_view kFind = R"sql(
  SELECT role_name, is_active, username, permission_level FROM db_api_users WHERE id = $1 FOR UPDATE
)sql";

constexpr std::string_view kTerminate = R"sql(
  SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()
)sql";

constexpr std::string_view kRevoked = R"sql(
  UPDATE db_api_users SET is_active = false, revoked_at = now(), revoked_by = $2 WHERE id = $1
)sql";

// The statements that give `role` (quoted) its level in `database` (quoted).
std::string grants(Level level, const std::string& role, const std::string& database) {
  std::string sql = "GRANT CONNECT ON DATABASE " + database + " TO " + role + ";\n" +
                    "GRANT USAGE ON SCHEMA public TO " + role + ";\n";
  const auto on_all = [&](std::string_view rights) {
    sql += "GRANT " + std::string(rights) + " ON ALL TABLES IN SCHEMA public TO " + role + ";\n" +
           "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT " + std::string(rights) + " ON TABLES TO " + role + ";\n";
  };
  switch (level) {
    case Level::read_only:
      on_all("SELECT");
      break;
    case Level::modify:
      on_all("SELECT");
      // The five tables have uuid keys: no sequence rights are needed for these writes.
      sql += "GRANT INSERT, UPDATE ON " + std::string(kModifyTables) + " TO " + role + ";\n";
      break;
    case Level::full:
      on_all("SELECT, INSERT, UPDATE, DELETE");
      sql += "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + role + ";\n" +
             "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + role + ";\n";
      break;
  }
  return sql;
}

}  // namespace

std::string_view to_string(Level level) {
  switch (level) {
    case Level::read_only:
      return "read_only";
    case Level::modify:
      return "modify";
    case Level::full:
      return "full";
  }
  return "read_only";
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level l : {Level::read_only, Level::modify, Level::full})
    if (text == to_string(l)) return l;
  return std::nullopt;
}

std::optional<std::string> username_problem(std::string_view username) {
  if (username.size() < 3) return "must be at least 3 characters";
  if (username.size() > 31) return "must be at most 31 characters";
  for (char c : username)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return "may contain only lowercase letters, digits and underscores";
  // The prefix is added to every role; a name that carries it already is a mistake or a trick.
  if (username.starts_with("svc_")) return "must not start with svc_ (the role name gets that prefix)";
  return std::nullopt;
}

std::string new_password() { return core::random_base64url(24); }

awaitable<CreatedUser> create_user(core::db::Pool& db, NewUser user) {
  if (auto problem = username_problem(user.username)) throw DbUserError(Kind::invalid, "username " + *problem);
  const std::string level(to_string(user.level));
  CreatedUser created{.username = user.username,
                      .role_name = role_name(user.username),
                      .level = user.level,
                      .password = new_password()};
  auto tx = co_await db.begin();
  const auto taken = co_await tx.query(kTaken, created.username, created.role_name);
  if (taken.front().get<bool>(1))
    throw DbUserError(Kind::exists, "a database user named " + created.username + " exists already");
  if (taken.front().get<bool>(0))
    throw DbUserError(Kind::exists, "a PostgreSQL role named " + created.role_name + " exists already");

  const auto& conn = tx.connection();
  const std::string role = conn.escape_identifier(created.role_name);
  const std::string verifier = conn.scram_verifier(created.password, created.role_name);
  try {
    const auto row =
        co_await tx.query(kInsert, created.username, created.role_name, level, user.description, user.actor);
    created.id = std::string(row.front().text(0));
    created.database = std::string(row.front().text(1));
    // Only the verifier travels; the server stores it as it is.
    const std::string create_role = "CREATE ROLE " + role + " LOGIN PASSWORD " + conn.escape_literal(verifier);
    co_await tx.execute_simple(create_role);
    // Membership lets this (non-superuser, CREATEROLE) user end the role's sessions and DROP
    // OWNED BY it at revoke time; the role holds nothing this user does not.
    const std::string grant =
        "GRANT " + role + " TO CURRENT_USER;\n" + grants(user.level, role, conn.escape_identifier(created.database));
    co_await tx.execute_simple(grant);
    co_await tx.query(kAudit, user.actor, "create", created.username, level);
  } catch (const core::db::Error& e) {
    // Another console created the same name between the check and here.
    if (e.unique_violation() || e.sqlstate == "42710")
      throw DbUserError(Kind::exists, "a database user or role named " + created.role_name + " exists already");
    throw;
  }
  co_await tx.commit();
  core::log::info("database user created", {{"username", created.username},
                                            {"role", created.role_name},
                                            {"permission_level", to_string(user.level)},
                                            {"by", user.actor}});
  co_return created;
}

awaitable<void> revoke_user(core::db::Pool& db, std::string id, std::string actor) {
  if (!core::is_uuid(id)) throw DbUserError(Kind::not_found, "no database user with id " + id);
  auto tx = co_await db.begin();
  const auto found = co_await tx.query(kFind, id);
  if (found.empty()) throw DbUserError(Kind::not_found, "no database user with id " + id);
  if (!found.front().get<bool>(1)) throw DbUserError(Kind::inactive, "this database user is revoked already");
  const std::string role_name(found.front().text(0));
  const std::string role = tx.connection().escape_identifier(role_name);

  const std::string no_login = "ALTER ROLE " + role + " NOLOGIN";
  co_await tx.execute_simple(no_login);
  co_await tx.query(kTerminate, role_name);
  // DROP OWNED revokes what the role was granted here, its default privileges included, and
  // drops anything it created; only then may the role go.
  const std::string drop = "DROP OWNED BY " + role + ";\nDROP ROLE " + role;
  co_await tx.execute_simple(drop);
  co_await tx.query(kRevoked, id, actor);
  const std::string username(found.front().text(2)), level(found.front().text(3));
  co_await tx.query(kAudit, actor, "revoke", username, level);
  co_await tx.commit();
  core::log::info("database user revoked", {{"role", role_name}, {"by", actor}});
}

}  // namespace mail_triage::dbusers
