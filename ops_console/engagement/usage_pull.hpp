#pragma once
// The mail platform's e-mail activity reports, pulled into mailplatform_usage_days (migration
// 0021): per user and UTC day, e-mails sent, received and read, as Graph's
// getEmailActivityUserDetail(date=...) counts them (core/graph/directory.hpp). The engagement
// views fall back on them for the days the mail-security counts do not cover (README "Engagement").
//
//   UsagePull usage(db, directory, health);
//   co_await scheduled_usage_pull(registry, usage);   // at start and every MAILPLATFORM_USAGE_MINUTES
//
// A run asks for each of the kReportDays days before today (UTC) that no earlier run has pulled
// final, oldest first: a day is final once the report's refresh date has reached it (Graph keeps 28
// days and lags 48 to 72 hours; a day not processed yet downloads without rows and is asked again
// next run); before those, one period='D30' report, and no day is asked when it lists nobody (a
// tenant without e-mail activity, a sandbox). Each day's rows replace what was stored for that day. A run is a sync_history row
// (entity type "mailplatform", kind "full"); every Graph call moves the integration's health row.
#include "core/db/pool.hpp"
#include "core/graph/directory.hpp"
#include "ops_console/integrations/health.hpp"
#include "ops_console/integrations/registry.hpp"

#include <boost/asio/awaitable.hpp>

#include <memory>

namespace ops_console::engagement {

inline constexpr int kReportDays = 27;  // Graph answers for the past 28 days; the oldest is left as a margin

class UsagePull {
 public:
  UsagePull(core::db::Pool& db, std::shared_ptr<core::graph::DirectoryClient> directory, integrations::Health health)
      : db_(db), directory_(std::move(directory)), health_(std::move(health)) {}

  boost::asio::awaitable<void> pull();

 private:
  core::db::Pool& db_;
  std::shared_ptr<core::graph::DirectoryClient> directory_;
  integrations::Health health_;
};

// What the schedule runs: nothing while the integration `mailplatform` is switched off.
boost::asio::awaitable<void> scheduled_usage_pull(integrations::Registry& registry, UsagePull& usage);

}  // namespace ops_console::engagement
