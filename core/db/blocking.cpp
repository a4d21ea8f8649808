#include "core/db/blocking.hpp"

namespace core::db {

BlockingConnection::BlockingConnection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str()), PQfinish) {
  if (!conn_) throw Unavailable("out of memory creating a database connection");
  if (PQstatus(conn_.get()) != CONNECTION_OK)
    throw Unavailable(std::string("cannot connect to the database: ") + PQerrorMessage(conn_.get()));
}

BlockingResult BlockingConnection::exec(std::string_view sql, const std::vector<std::string>& params) {
  const std::string text(sql);
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  BlockingResult r(params.empty() ? PQexec(conn_.get(), text.c_str())
                                  : PQexecParams(conn_.get(), text.c_str(), static_cast<int>(values.size()), nullptr,
                                                 values.data(), nullptr, nullptr, 0),
                   PQclear);
  const auto status = PQresultStatus(r.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
  if (PQstatus(conn_.get()) != CONNECTION_OK) throw Unavailable(PQerrorMessage(conn_.get()));
  const char* sqlstate = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
  throw Error(sqlstate ? sqlstate : "", r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_.get()));
}

}  // namespace core::db
