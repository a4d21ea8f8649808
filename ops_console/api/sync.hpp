#pragma once
// The PSA sync routes (issue 17; ops_console/README.md, "PSA sync"):
//   POST /api/sync/incremental          public  starts an incremental sync in the background → 202; 409 while one runs
//   POST /api/sync/reconcile-tickets    public  the reconciliation pass, run to its end → 200 the result; 409 while one runs
//   GET  /api/sync/classifications      auth    the company classification picklist
//   POST /api/sync/classifications      admin   re-reads it (and the ticket picklists) from the PSA → the list
// Each answers 403 while the PSA integration is switched off (checked first), and 503 while the
// PSA is not configured.
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/psa/sync.hpp"

namespace ops_console {

// `sync` is null when the PSA is not configured.
void install_sync_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                         std::shared_ptr<integrations::Registry> registry, std::shared_ptr<psa::PsaSync> sync);

// One scheduled run: an incremental sync, unless the PSA integration is switched off or a sync
// already runs somewhere (the schedule of service.cpp calls this every PSA_SYNC_INTERVAL_MINUTES).
boost::asio::awaitable<void> scheduled_psa_sync(integrations::Registry& registry, psa::PsaSync& sync);

}  // namespace ops_console
