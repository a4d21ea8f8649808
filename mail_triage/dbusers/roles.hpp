#pragma once
// The database work of the /dbusers console (issue 5): PostgreSQL roles for programs that read
// this service's database directly. All or nothing: each call is one transaction.
//
//   auto created = co_await dbusers::create_user(pool, {.username = "powerbi", .level = Level::read_only,
//                                                       .actor = "admin"});
//   show_once(created.password);   // never stored, never logged
//   co_await dbusers::revoke_user(pool, created.id, "admin");
//
// Create: the username is checked (3 to 31 of [a-z0-9_]), the role `svc_<username>` is quoted
// by libpq, and `CREATE ROLE … LOGIN PASSWORD` carries a SCRAM-SHA-256 verifier made by libpq,
// so the password (24 random bytes from OpenSSL's CSPRNG, 192 bits) never reaches the server.
// Grants follow the spec's table, plus CONNECT, USAGE on the schema, the sequence rights the
// writes need, and default privileges so tables of later migrations are covered alike:
//   read_only  SELECT on all tables
//   modify     SELECT on all tables; INSERT, UPDATE on customers, vendors, whitelist,
//              sender_profiles, purge_rules
//   full       SELECT, INSERT, UPDATE, DELETE on all tables; USAGE, SELECT on all sequences
// The db_api_users row and the audit entry (dbusers_console.audit) are written in the same
// transaction.
//
// Revoke: NOLOGIN, the role's open sessions terminated, DROP OWNED (its privileges and default
// privileges), DROP ROLE, the row marked inactive with time and actor, the audit entry; one
// transaction.
//
// The service's own database user needs CREATEROLE. It makes itself a member of each role it
// creates, which PostgreSQL requires to end that role's sessions and DROP OWNED BY it. Default
// privileges cover the tables this same user creates later (it runs the migrations).
#include "core/db/pool.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mail_triage::dbusers {

enum class Level { read_only, modify, full };

std::string_view to_string(Level level);
std::optional<Level> parse_level(std::string_view text);

// Why `username` cannot be used, or nullopt when it can (3 to 31 of lowercase letters, digits, _).
std::optional<std::string> username_problem(std::string_view username);
inline std::string role_name(std::string_view username) { return "svc_" + std::string(username); }
// 24 bytes from OpenSSL's CSPRNG, base64url without padding (32 characters, 192 bits).
std::string new_password();

// A refusal the console shows to the admin as it is.
struct DbUserError : std::runtime_error {
  enum class Kind { invalid, exists, not_found, inactive };
  DbUserError(Kind kind, const std::string& message) : std::runtime_error(message), kind(kind) {}
  Kind kind;
};

struct NewUser {
  std::string username;
  Level level = Level::read_only;
  std::optional<std::string> description;
  std::string actor;  // who asked, for created_by
};

struct CreatedUser {
  std::string id;
  std::string username;
  std::string role_name;
  Level level = Level::read_only;
  std::string database;  // current_database(), for the connection string
  std::string password;  // shown once, never stored
};

// Throws DbUserError (invalid username or level, role or user exists).
boost::asio::awaitable<CreatedUser> create_user(core::db::Pool& db, NewUser user);
// Throws DbUserError (no such user, already revoked).
boost::asio::awaitable<void> revoke_user(core::db::Pool& db, std::string id, std::string actor);

}  // namespace mail_triage::dbusers
