#include "ops_console/service.hpp"

#include "ops_console/api/auth.hpp"
#include "ops_console/identity/create_user.hpp"
#include "ops_console/identity/identity.hpp"

#include <iostream>

std::span<const core::db::Migration> ops_console_migrations();

namespace ops_console {

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "ops-console",
      .summary = "internal HTTP routes of the MSP operations console (PSA sync, dashboards, notifications, ...)",
      .default_port = 8081,
      .default_database = "ops_console",
      .migrations = ops_console_migrations(),
      .configure = [](core::config::Reader& env) -> core::app::Setup {
        auto identity_settings = identity::read_identity_settings(env);
        return [identity_settings](core::app::Context& ctx) {
          auto id = std::make_shared<identity::Identity>(ctx.db, identity_settings);
          install_auth_routes(ctx, id);
          // Preferences, administration, notifications and the rest arrive with their issues.
        };
      },
      .commands = {{.name = "create-user",
                    .usage = "--email E --name N [--admin] [--permission resource:action]... --password-stdin",
                    .summary = "create a console user; the password is the first line of standard input",
                    .run = [](const std::vector<std::string>& args, const std::string& conninfo) {
                      return identity::create_user_command(args, conninfo, std::cin, std::cout, std::cerr);
                    }}},
  };
  return def;
}

}  // namespace ops_console
