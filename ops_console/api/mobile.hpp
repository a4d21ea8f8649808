#pragma once
// The mobile views (issue 22; spec "Dashboards and status"; README "Mobile views" has the bodies):
//   GET /api/mobile/dashboard        {kpis, needsAttention, workers} with the derived status rules
//   GET /api/mobile/finance          payments MTD/YTD, six aging buckets, 12 months of revenue
//   GET /api/mobile/tickets          keyset page: status (repeatable; default 1, 8, 7), priority
//                                    (repeatable), queue, mine, search, cursor, limit (≤ 25)
//   GET /api/mobile/analyzer/feed    keyset page of each ticket's latest analysis: cursor, limit (≤ 25)
//   GET /api/kiosk/wall              the kiosk wall display's figures: {date, timezone, at, companies,
//                                    kpis, needsAttention, workers} (kiosk_wall_json(), migration 0030)
// Every route: signed-in; the check runs before any query. The lists show the companies of the
// mobile display settings (display_company_ids('mobile'), migration 0020), the wall those of the
// kiosk settings. The wall is the one route a wall display's account (User::kiosk) may read.
#include "core/app/service.hpp"
#include "ops_console/dashboard/clock.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <memory>

namespace ops_console {

void install_mobile_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                           std::shared_ptr<integrations::Registry> registry, dashboard::Clock clock);

}  // namespace ops_console
