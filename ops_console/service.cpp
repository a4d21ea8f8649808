#include "ops_console/service.hpp"

#include "ops_console/api/admin.hpp"
#include "ops_console/api/auth.hpp"
#include "ops_console/api/data.hpp"
#include "ops_console/api/event_keys.hpp"
#include "ops_console/api/integrations.hpp"
#include "ops_console/api/notifications.hpp"
#include "ops_console/api/preferences.hpp"
#include "ops_console/identity/create_user.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/notify/notifier.hpp"

#include "core/db/listener.hpp"

#include <iostream>

std::span<const core::db::Migration> ops_console_migrations();

namespace ops_console {

namespace {

// Every instance drops its cached integration settings when the table announces a change, and
// after each reconnect of its listener (it may have missed announcements meanwhile).
void follow_integration_changes(core::app::Context& ctx, std::shared_ptr<integrations::Registry> registry) {
  auto listener = std::make_shared<core::db::Listener>(
      ctx.executor,
      core::db::ListenerOptions{.conninfo = std::string(ctx.conninfo), .channel = std::string(integrations::kChannel)},
      [registry](const std::string&) { registry->clear_cache(); }, [registry] { registry->clear_cache(); });
  listener->start();
  ctx.stop_hooks.push_back([listener] { listener->stop(); });
}

}  // namespace

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "ops-console",
      .summary = "internal HTTP routes of the MSP operations console (PSA sync, dashboards, notifications, ...)",
      .default_port = 8081,
      .default_database = "ops_console",
      .migrations = ops_console_migrations(),
      .configure = [](core::config::Reader& env) -> core::app::Setup {
        auto identity_settings = identity::read_identity_settings(env);
        integrations::RegistryOptions registry_options{
            .env_disabled = integrations::parse_disabled_list(
                env.list("INTEGRATIONS_DISABLED", "",
                         "integrations switched off whatever the database says, comma-separated keys or product names "
                         "(e.g. pax8,mimecast)")),
            .cache_ttl = std::chrono::seconds(env.integer(
                "INTEGRATION_CACHE_SECONDS", 60,
                "how long an instance keeps the disabled-integration rows; changes clear it at once", {1, 86400}))};
        auto notify_settings = notify::read_notify_settings(env);
        return [identity_settings, registry_options, notify_settings](core::app::Context& ctx) {
          auto id = std::make_shared<identity::Identity>(ctx.db, identity_settings);
          auto registry = std::make_shared<integrations::Registry>(ctx.db, registry_options);
          install_auth_routes(ctx, id);
          install_preference_routes(ctx, id);
          install_admin_routes(ctx, id);
          install_data_routes(ctx, id);
          install_integration_routes(ctx, id, registry);
          follow_integration_changes(ctx, registry);
          install_event_key_routes(ctx, id);
          auto notifier = std::make_shared<const notify::Notifier>(ctx.db, ctx.executor, notify_settings);
          install_notification_routes(ctx, id, notifier);
          // Dashboards and the rest arrive with their issues.
        };
      },
      .commands = {{.name = "create-user",
                    .usage = "--email E --name N [--admin] [--permission resource:action]... --password-stdin",
                    .summary = "create a console user; the password is the first line of standard input",
                    .run =
                        [](const std::vector<std::string>& args, const std::string& conninfo) {
                          return identity::create_user_command(args, conninfo, std::cin, std::cout, std::cerr);
                        }}},
  };
  return def;
}

}  // namespace ops_console
