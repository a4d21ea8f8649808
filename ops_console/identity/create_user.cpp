#include "ops_console/identity/create_user.hpp"

#include "core/util/strings.hpp"
#include "ops_console/identity/password.hpp"

#include <libpq-fe.h>

#include <iostream>
#include <memory>
#include <regex>

namespace ops_console::identity {

namespace {

constexpr const char* kUsage =
    "usage: ops-console create-user --email E --name N [--admin | --kiosk] [--permission resource:action]... "
    "--password-stdin";

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Result exec(PGconn* c, const char* sql, const std::vector<std::string>& params = {}) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  return Result(PQexecParams(c, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0),
                PQclear);
}

bool ok(const Result& r) {
  const auto s = PQresultStatus(r.get());
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

}  // namespace

int create_user_command(const std::vector<std::string>& args, const std::string& conninfo, std::istream& in,
                        std::ostream& out, std::ostream& err) {
  std::string email, name;
  bool admin = false, kiosk = false, password_stdin = false;
  std::vector<std::pair<std::string, std::string>> permissions;
  const std::regex permission_shape("^([a-z][a-z_]*):([a-z][a-z_]*)$");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--email" && has_value)
      email = core::to_lower(core::trim(args[++i]));
    else if (a == "--name" && has_value)
      name = std::string(core::trim(args[++i]));
    else if (a == "--admin")
      admin = true;
    else if (a == "--kiosk")
      kiosk = true;
    else if (a == "--password-stdin")
      password_stdin = true;
    else if (a == "--permission" && has_value) {
      std::smatch m;
      const std::string& p = args[++i];
      if (!std::regex_match(p, m, permission_shape)) {
        err << "create-user: --permission takes resource:action in lowercase letters and _, e.g. phishing:read\n";
        return 2;
      }
      permissions.emplace_back(m[1], m[2]);
    } else {
      err << "create-user: unexpected argument '" << a << "'\n" << kUsage << "\n";
      return 2;
    }
  }
  if (!core::is_email_address(email) || name.empty() || name.size() > 200 || !password_stdin) {
    err << "create-user: --email (an e-mail address), --name and --password-stdin are required\n" << kUsage << "\n";
    return 2;
  }
  if (kiosk && (admin || !permissions.empty())) {
    err << "create-user: a wall display's account (--kiosk) reads the kiosk view only: no --admin or --permission\n";
    return 2;
  }
  std::string password;
  std::getline(in, password);
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.size() < kMinPasswordLength || password.size() > kMaxPasswordLength) {
    err << "create-user: the password must have " << kMinPasswordLength << " to " << kMaxPasswordLength
        << " characters\n";
    return 2;
  }

  Connection c(PQconnectdb(conninfo.c_str()), PQfinish);
  if (PQstatus(c.get()) != CONNECTION_OK) {
    err << "create-user: cannot reach the database: " << PQerrorMessage(c.get());
    return 1;
  }
  const std::string hash = hash_password(password);
  if (!ok(exec(c.get(), "BEGIN"))) return 1;
  const auto user = exec(c.get(),
                         "INSERT INTO users (email, name, password_hash, is_admin, kiosk) VALUES ($1, $2, $3, $4, $5) "
                         "ON CONFLICT (email) DO NOTHING RETURNING id",
                         {email, name, hash, admin ? "true" : "false", kiosk ? "true" : "false"});
  if (!ok(user)) {
    err << "create-user: " << PQresultErrorMessage(user.get());
    return 1;
  }
  if (PQntuples(user.get()) == 0) {
    err << "create-user: a user with the e-mail " << email << " exists already\n";
    return 1;
  }
  const std::string id = PQgetvalue(user.get(), 0, 0);
  for (const auto& [resource, action] : permissions) {
    const auto r = exec(c.get(), "INSERT INTO user_permissions VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                        {id, resource, action});
    if (!ok(r)) {
      err << "create-user: " << PQresultErrorMessage(r.get());
      return 1;
    }
  }
  if (!ok(exec(c.get(), "COMMIT"))) {
    err << "create-user: " << PQerrorMessage(c.get());
    return 1;
  }
  out << "created user " << id << " <" << email << ">"
      << (admin   ? " (administrator)"
          : kiosk ? " (a wall display's: the kiosk view only)"
                  : "")
      << "\n";
  return 0;
}

}  // namespace ops_console::identity
