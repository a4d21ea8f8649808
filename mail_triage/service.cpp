#include "mail_triage/service.hpp"

std::span<const core::db::Migration> mail_triage_migrations();

namespace mail_triage {

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "mail-triage",
      .summary = "fetches unread Microsoft 365 mail, classifies it, logs the outcome; JSON API under /api/v1/",
      .default_port = 8080,
      .default_database = "mail_triage",
      .migrations = mail_triage_migrations(),
      .configure = [](core::config::Reader&) -> core::app::Setup {
        // The /api/v1 routes and the /dbusers console arrive with their issues.
        return {};
      },
  };
  return def;
}

}  // namespace mail_triage
