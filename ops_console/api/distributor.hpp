#pragma once
// The distributor (issue 19; spec "Distributor"), every route signed-in:
//   POST /api/distributor/sync                               403 switched off (first), 503 not configured,
//                                                            409 a run under way, else 202 and a run starts
//   GET  /api/distributor/sync                               {inProgress, counts, history}
//   GET  /api/distributor/companies                          ?limit&offset&search&sort&order → {items, total, limit, offset}
//   GET  /api/distributor/companies/{id}                     one company (UUID) with its subscriptions
//   GET  /api/distributor/company-matches                    the unresolved reviews
//   POST /api/distributor/company-matches/{id}/resolve       perm(admin, access): {companyId, note}
#include "core/app/service.hpp"
#include "ops_console/distributor/sync.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

// `sync` is null when the distributor is not configured.
void install_distributor_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                                std::shared_ptr<integrations::Registry> registry,
                                std::shared_ptr<distributor::DistributorSync> sync);

}  // namespace ops_console
