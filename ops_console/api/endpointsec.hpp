#pragma once
// Endpoint security (issue 20; spec "Other integration routes"; bodies not shown there: ours):
//   POST   /api/endpointsec/sync              admin: 403 off (first), 503 not configured, 409 running, else 202
//   GET    /api/endpointsec/sync              signed-in: {inProgress, sites, history}
//   GET    /api/endpointsec/company-mappings  signed-in: [{siteId, siteName, companyId, companyName, mappedAt}]
//   POST   /api/endpointsec/company-mappings  admin: {siteId, companyId}; 400 unknown site or company
//   DELETE /api/endpointsec/company-mappings  admin: ?siteId=; 404 no mapping
//   GET    /api/endpointsec/coverage          signed-in: per site endpointsec_site_json() (migration 0015)
#include "core/app/service.hpp"
#include "ops_console/endpointsec/sync.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

// `sync` is null when the integration is not configured (`settings` names what is missing).
void install_endpointsec_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                std::shared_ptr<integrations::Registry> registry,
                                std::shared_ptr<endpointsec::EndpointSecSync> sync,
                                endpointsec::EndpointSecSettings settings);

}  // namespace ops_console
