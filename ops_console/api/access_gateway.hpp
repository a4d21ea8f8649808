#pragma once
// The access gateway (issue 33; spec: "A configuration-only health row and a public sync route exist
// for an access-gateway integration"; bodies not shown there: ours):
//   GET  /api/access-gateway/health        signed-in: {key, configured, missing, switchedOff}: from the
//                                          configuration alone, no call made
//   POST /api/access-gateway/sync          public: 403 off (first), 503 not configured, 409 running, else 202
//   GET  /api/access-gateway/sync          signed-in: {inProgress, applications, history}
//   GET  /api/access-gateway/applications  signed-in: access_gateway_app_json() (migration 0027) of each
#include "core/app/service.hpp"
#include "ops_console/access_gateway/sync.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

// `sync` is null when the integration is not configured (`settings` names what is missing).
void install_access_gateway_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                   std::shared_ptr<integrations::Registry> registry,
                                   std::shared_ptr<access_gateway::AccessGatewaySync> sync,
                                   const access_gateway::AccessGatewaySettings& settings);

}  // namespace ops_console
