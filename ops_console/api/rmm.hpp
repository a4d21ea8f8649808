#pragma once
// Remote management, Tactical RMM (issue 33, item 2; ops_console/README.md, "Remote management"):
//   POST   /api/rmm/sync                admin: 403 off (first), 503 not configured, 409 running, else 202
//   GET    /api/rmm/sync                signed-in: {inProgress, clients, agents, scripts, history}
//   GET    /api/rmm/clients             signed-in: rmm_client_json() (migration 0026), with its company
//   GET    /api/rmm/clients/unmatched   signed-in: the clients no mapping and no name matches
//   POST   /api/rmm/company-mappings    admin: {clientId, companyId}; 400 unknown client or company
//   DELETE /api/rmm/company-mappings    admin: ?clientId=; 404 no mapping
//   GET    /api/rmm/agents              signed-in: the agents of the copy
//   GET    /api/rmm/scripts             signed-in: the scripts a user may run
//   POST   /api/rmm/executions          permission (rmm, execute): {agentId, scriptId, args, timeoutSeconds};
//                                       403 off, 503 not configured, 400 unknown agent or script, else 202 queued
//   GET    /api/rmm/executions          signed-in: the newest first (?limit, 1..500, default 50)
//   GET    /api/rmm/executions/{id}     signed-in: one, 404 unknown
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/rmm/executions.hpp"
#include "ops_console/rmm/sync.hpp"

#include <memory>

namespace ops_console {

void install_rmm_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                        std::shared_ptr<integrations::Registry> registry, std::shared_ptr<rmm::RmmSync> sync,
                        std::shared_ptr<rmm::RmmExecutor> executor, rmm::RmmSettings settings);

}  // namespace ops_console
