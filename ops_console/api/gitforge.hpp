#pragma once
// Source-control push intake, commit tracking and agent instances (issue 18):
//   POST   /api/webhooks/gitforge               public: a GitHub or Gitea push delivery
//   GET    /api/agent/repo-commits              agent: ?since&repo&branch&limit → {items} newest first
//   GET    /api/admin/agent-instances           admin: [{id, name, url, enabled, ..., deliveries}]
//   POST   /api/admin/agent-instances           admin: {name, url, enabled?, secret?} → 201 with the token (once)
//   PATCH  /api/admin/agent-instances/{id}      admin: {name?, url?, enabled?, secret?, rotate_secret?, rotate_token?}
//   DELETE /api/admin/agent-instances/{id}      admin: → 204, with its queued copies
// ops_console/README.md, "Source control and agent instances", has the rules.
#include "core/app/service.hpp"
#include "ops_console/gitforge/dispatch.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/notify/notifier.hpp"

#include <memory>
#include <string>

namespace ops_console {

struct GitforgeSettings {
  std::string webhook_secret;           // GITFORGE_WEBHOOK_SECRET; empty: signatures are not checked
  std::chrono::seconds copy_lease{60};  // AGENT_COPY_LEASE_SECONDS: DispatchOptions::lease
};
// `attempt_timeout`: NOTIFY_TIMEOUT_SECONDS, which the copies' lease must exceed.
GitforgeSettings read_gitforge_settings(core::config::Reader& env, std::chrono::milliseconds attempt_timeout);

void install_gitforge_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                             const GitforgeSettings& settings, std::shared_ptr<const notify::Notifier> notifier,
                             std::shared_ptr<gitforge::AgentDispatcher> dispatcher);

void install_agent_instance_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                   const notify::NotifySettings& settings);

}  // namespace ops_console
