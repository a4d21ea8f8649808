#pragma once
// The dashboards and the worker status (issue 22; spec "Dashboards and status", "Day-boundary
// rules"; README "Dashboards" has the bodies):
//   GET /api/dashboard/overview             today's opened, resolved, open total, SLA breaches;
//                                           each vs yesterday and the 7-day average
//   GET /api/dashboard/trends               open-ticket heatmap, 30 days of volume and resolution
//                                           time, today's engineers by time logged
//   GET /api/dashboard/integration-health   per integration its state; disabled ones left out
//   GET /api/status/workers                 analyzer, remote management, sync scheduler
// Every route: signed-in. Days are the user's (identity::current_timezone()); the instant is the
// Clock's. The trends' 29 days before today are kept per zone for `trends_keep`
// (dashboard/kept_days.hpp).
#include "core/app/service.hpp"
#include "ops_console/dashboard/clock.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/registry.hpp"

#include <chrono>
#include <memory>

namespace ops_console {

void install_dashboard_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                              std::shared_ptr<integrations::Registry> registry, dashboard::Clock clock,
                              std::chrono::seconds trends_keep);

}  // namespace ops_console
