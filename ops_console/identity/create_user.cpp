#include "ops_console/identity/create_user.hpp"

#include "core/db/blocking.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/password.hpp"

#include <iostream>
#include <regex>

namespace ops_console::identity {

namespace {

constexpr const char* kUsage =
    "usage: ops-console create-user --email E --name N [--admin | --kiosk] [--permission resource:action]... "
    "--password-stdin";

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

  const std::string hash = hash_password(password);
  std::string id;
  try {
    core::db::BlockingConnection c(conninfo);
    c.exec("BEGIN");
    const auto user = c.exec(
        "INSERT INTO users (email, name, password_hash, is_admin, kiosk) VALUES ($1, $2, $3, $4, $5) "
        "ON CONFLICT (email) DO NOTHING RETURNING id",
        {email, name, hash, admin ? "true" : "false", kiosk ? "true" : "false"});
    if (PQntuples(user.get()) == 0) {
      err << "create-user: a user with the e-mail " << email << " exists already\n";
      return 1;
    }
    id = PQgetvalue(user.get(), 0, 0);
    for (const auto& [resource, action] : permissions)
      c.exec("INSERT INTO user_permissions VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", {id, resource, action});
    c.exec("COMMIT");
  } catch (const std::runtime_error& e) {  // core::db::Unavailable or Error
    err << "create-user: " << e.what();
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
