#pragma once
// Numbered SQL migrations, embedded in the binary at build time (cmake/embed_migrations.cmake).
//
// apply() takes a session advisory lock (so two migrators at once are safe: the second waits,
// then finds nothing to do), checks every applied migration against its embedded checksum
// (an edited migration is an error), then applies each pending file in its own transaction and
// records its name and SHA-256 in schema_migrations. A file must not contain BEGIN/COMMIT, nor
// statements that cannot run in a transaction (CREATE INDEX CONCURRENTLY).
#include "core/db/pool.hpp"

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace core::db {

struct Migration {
  std::string_view name;  // "0001_initial.sql"
  std::string_view sql;
};

struct MigrationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Blocking; for start-up and the `migrate` command. Returns the names applied now.
// Throws MigrationError (edited or failing migration) or Unavailable (cannot connect).
std::vector<std::string> apply_migrations(const std::string& conninfo, std::span<const Migration> migrations,
                                          std::string_view lock_name);

// For /readyz: true when every embedded migration is applied with the same checksum.
boost::asio::awaitable<bool> migrations_current(Pool& pool, std::span<const Migration> migrations);

}  // namespace core::db
