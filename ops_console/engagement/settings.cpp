#include "ops_console/engagement/settings.hpp"

namespace ops_console::engagement {

EngagementSettings read_engagement_settings(core::config::Reader& env) {
  EngagementSettings s;
  s.minutes_per_sent =
      env.decimal("ENGAGEMENT_MINUTES_PER_SENT", s.minutes_per_sent,
                  "minutes on the mail platform an e-mail sent stands for (engagement's platform hours)", 0, 600);
  s.minutes_per_received =
      env.decimal("ENGAGEMENT_MINUTES_PER_RECEIVED", s.minutes_per_received,
                  "minutes on the mail platform an e-mail received stands for (engagement's platform hours)", 0, 600);
  s.usage_interval = std::chrono::minutes(env.integer(
      "MAILPLATFORM_USAGE_MINUTES", s.usage_interval.count(),
      "pull the mail platform's e-mail activity report (Graph) at start and this often; 0: never", {0, 10'080}));
  return s;
}

}  // namespace ops_console::engagement
