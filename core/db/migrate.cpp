#include "core/db/migrate.hpp"

#include "core/db/blocking.hpp"
#include "core/log/log.hpp"

#include "core/util/digest.hpp"

#include <map>

namespace core::db {

namespace {

constexpr std::string_view kCreateTable = R"sql(
  CREATE TABLE IF NOT EXISTS schema_migrations (
    name       text PRIMARY KEY,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )
)sql";

// A statement the server refuses fails the migrations (a lost connection stays Unavailable).
BlockingResult exec(BlockingConnection& c, std::string_view sql, const std::vector<std::string>& params = {}) {
  try {
    return c.exec(sql, params);
  } catch (const Error& e) {
    throw MigrationError(e.what());
  }
}

// FNV-1a of the lock name: a stable bigint key for pg_advisory_lock.
std::string lock_key(std::string_view name) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return std::to_string(static_cast<std::int64_t>(h));
}

std::map<std::string, std::string> applied(BlockingConnection& c) {
  std::map<std::string, std::string> out;
  auto r = exec(c, "SELECT name, checksum FROM schema_migrations");
  for (int i = 0; i < PQntuples(r.get()); ++i) out[PQgetvalue(r.get(), i, 0)] = PQgetvalue(r.get(), i, 1);
  return out;
}

void verify_unchanged(const std::map<std::string, std::string>& done, std::span<const Migration> migrations) {
  for (const auto& m : migrations) {
    const auto it = done.find(std::string(m.name));
    if (it != done.end() && it->second != core::sha256_hex(m.sql))
      throw MigrationError("migration " + std::string(m.name) +
                           " was edited after it was applied; add a new migration instead");
  }
}

}  // namespace

std::vector<std::string> apply_migrations(const std::string& conninfo, std::span<const Migration> migrations,
                                          std::string_view lock_name) {
  BlockingConnection c(conninfo);
  exec(c, "SET client_min_messages = warning");
  exec(c, "SELECT pg_advisory_lock($1::bigint)", {lock_key(lock_name)});
  exec(c, kCreateTable);
  auto done = applied(c);
  verify_unchanged(done, migrations);
  for (const auto& [name, _] : done) {
    bool known = false;
    for (const auto& m : migrations) known = known || m.name == name;
    if (!known) log::warn("database has a migration this binary does not know", {{"migration", name}});
  }

  std::vector<std::string> now;
  for (const auto& m : migrations) {
    if (done.contains(std::string(m.name))) continue;
    try {
      exec(c, "BEGIN");
      exec(c, m.sql);
      exec(c, "INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)",
           {std::string(m.name), core::sha256_hex(m.sql)});
      exec(c, "COMMIT");
    } catch (const MigrationError& e) {
      PQclear(PQexec(c.get(), "ROLLBACK"));
      throw MigrationError("migration " + std::string(m.name) + " failed: " + e.what());
    }
    log::info("migration applied", {{"migration", m.name}});
    now.emplace_back(m.name);
  }
  exec(c, "SELECT pg_advisory_unlock($1::bigint)", {lock_key(lock_name)});
  return now;
}

boost::asio::awaitable<bool> migrations_current(Pool& pool, std::span<const Migration> migrations) {
  static constexpr std::string_view kApplied = R"sql(
    SELECT name, checksum FROM schema_migrations
  )sql";
  Result rows;
  try {
    rows = co_await pool.query(kApplied);
  } catch (const Error&) {
    co_return false;  // no schema_migrations table yet
  }
  std::map<std::string, std::string, std::less<>> done;
  for (const auto& row : rows) done[row.get<std::string>(0)] = row.get<std::string>(1);
  for (const auto& m : migrations) {
    const auto it = done.find(m.name);
    if (it == done.end() || it->second != core::sha256_hex(m.sql)) co_return false;
  }
  co_return true;
}

}  // namespace core::db
