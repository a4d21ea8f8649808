#include "ops_console/service.hpp"

std::span<const core::db::Migration> ops_console_migrations();

namespace ops_console {

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "ops-console",
      .summary = "internal HTTP routes of the MSP operations console (PSA sync, dashboards, notifications, ...)",
      .default_port = 8081,
      .default_database = "ops_console",
      .migrations = ops_console_migrations(),
      .configure = [](core::config::Reader&) -> core::app::Setup {
        // Access control, preferences, notifications and the rest arrive with their issues.
        return {};
      },
  };
  return def;
}

}  // namespace ops_console
