#pragma once
// One blocking connection, for work outside the event loop: the migrations before a service
// serves, one-shot commands (`ops-console create-user`) and the tests' set-up. Everything that
// serves goes through the pool (core/db/pool.hpp).
//
//   core::db::BlockingConnection c(conninfo);
//   const auto r = c.exec("SELECT id FROM users WHERE email = $1", {email});
//   if (PQntuples(r.get()) > 0) ... PQgetvalue(r.get(), 0, 0) ...
#include "core/db/errors.hpp"

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace core::db {

using BlockingResult = std::unique_ptr<PGresult, decltype(&PQclear)>;

class BlockingConnection {
 public:
  // Connects at once; throws Unavailable with libpq's reason.
  explicit BlockingConnection(const std::string& conninfo);

  // Runs `sql`. Without parameters it goes as a simple query, so it may hold several statements
  // (a migration's file); with them, as one statement whose $1, $2 ... are the texts given. A
  // statement the server refuses throws Error (its SQLSTATE, the server's whole message); a lost
  // connection throws Unavailable.
  BlockingResult exec(std::string_view sql, const std::vector<std::string>& params = {});

  PGconn* get() const { return conn_.get(); }

 private:
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

}  // namespace core::db
