#pragma once
// The PSA webhook intake and its log (issue 17; ops_console/README.md, "PSA webhooks"):
//   POST /api/webhooks/psa     public  Autotask's callout → 200 {status: processed | duplicate, event_id}
//   GET  /api/webhooks/logs    auth    ?entityType&status&since&before&limit → {items, next_before}, newest first
//   GET  /api/webhooks/stats   auth    counts by status and entity type, last 24 hours and 7 days; the last event
//   GET  /api/webhooks/ips     auth    ?hours (168)&entityType → one row per source address
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/psa/webhooks.hpp"

namespace ops_console {

void install_webhook_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                            std::shared_ptr<psa::WebhookIntake> intake);

}  // namespace ops_console
