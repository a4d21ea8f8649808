#pragma once
// The accounting connection and copy (issue 19; spec "Other integration routes", bodies not shown
// there: these are ours, ops_console/README.md "Accounting"):
//   POST /api/accounting/auth        admin: {authorizeUrl, expiresInSeconds}; the consent page's URL
//   GET  /api/accounting/callback    admin: where the consent page sends the browser back
//                                    (?code&state, or ?error&state); 400 bad/used/expired state
//   POST /api/accounting/sync        admin: {full?} → 202, a run starts; 409 running or not connected
//   POST /api/accounting/disconnect  admin: removes the connection at Xero and the tokens; data stays
//   GET  /api/accounting/status      signed-in: connection, tenant, counts, last sync, in progress
//   GET  /api/accounting/summary     signed-in: the finance figures (accounting_finance_json, 0013)
// Each POST and the callback: 403 while the integration is switched off (first), 503 while it is
// not configured (naming the settings).
#include "core/app/service.hpp"
#include "ops_console/accounting/sync.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

// `connection` and `sync` are null when the accounting app is not configured.
void install_accounting_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                               std::shared_ptr<integrations::Registry> registry,
                               std::shared_ptr<accounting::AccountingConnection> connection,
                               std::shared_ptr<accounting::AccountingSync> sync);

}  // namespace ops_console
