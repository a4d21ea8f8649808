#pragma once
// Engagement (issue 22; spec "Dashboards and status", the engagement and photo rules; README
// "Engagement" has the bodies and every choice). Every route is signed-in (401 first):
//   GET /api/mobile/engagement/summary?period=D7|D30|D90   totals of the period
//   GET /api/mobile/engagement/trend?period=...            7, 30 or 90 daily points, no gaps
//   GET /api/mobile/engagement/users?period=...            per user, most hours first
//   GET /api/mobile/engagement/user/{userId}               one user: d7, d30, d90
//   GET /api/mobile/engagement/user/{userId}/photo         the photo, proxied from Graph
// Days are UTC dates (rule 5) ending at the UTC date of the Clock's instant. E-mail figures come,
// day by day, from the mail-security counts when that day has any, else from the mail platform's
// usage reports (engagement/usage_pull.hpp), which this installs on a schedule too.
#include "core/app/service.hpp"
#include "core/graph/mail.hpp"
#include "ops_console/dashboard/clock.hpp"
#include "ops_console/engagement/settings.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/integrations/health.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mailsec/mimecast.hpp"

#include <memory>

namespace ops_console {

// The routes, the Graph directory client when GRAPH_* is set, and the usage-report pull (at start
// and every MAILPLATFORM_USAGE_MINUTES, skipped while the integration `mailplatform` is off).
void install_engagement(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity,
                        std::shared_ptr<integrations::Registry> registry,
                        const engagement::EngagementSettings& settings, const mailsec::MailsecSettings& mailsec,
                        const core::graph::GraphSettings& graph, std::shared_ptr<core::graph::GraphClient> graph_client,
                        const dashboard::Clock& clock, const integrations::Health& health);

}  // namespace ops_console
