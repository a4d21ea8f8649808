#pragma once
// `ops-console create-user --email E --name N [--admin] [--permission resource:action]...
//  --password-stdin`: creates a console user from the command line (the password is read from
// the first line of standard input, so it appears in no process list or shell history).
#include <iosfwd>
#include <string>
#include <vector>

namespace ops_console::identity {

// Returns the exit code: 0 created, 1 refused by the database (the e-mail is taken), 2 bad usage.
int create_user_command(const std::vector<std::string>& args, const std::string& conninfo, std::istream& in,
                        std::ostream& out, std::ostream& err);

}  // namespace ops_console::identity
