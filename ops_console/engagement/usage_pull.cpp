#include "ops_console/engagement/usage_pull.hpp"

#include "core/log/log.hpp"
#include "core/util/time.hpp"
#include "ops_console/sync_history.hpp"

#include <chrono>
#include <map>
#include <set>

namespace ops_console::engagement {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

// The days from $1 on that a run has pulled final.
constexpr std::string_view kFinalDays = R"sql(
  SELECT to_char(day, 'YYYY-MM-DD') FROM mailplatform_usage_reports WHERE final AND day >= $1::date
)sql";

// $1 the day, $2 [{user_email, display_name, sent, received, read}], $3 the report's refresh date
// (NULL without rows), $4 final: the day's rows replace the stored ones, and the day's pull is noted.
constexpr std::string_view kStore = R"sql(
  WITH r AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb)
      AS r(user_email text, display_name text, sent integer, received integer, read integer)
  ), gone AS (
    DELETE FROM mailplatform_usage_days u
    WHERE u.day = $1::date AND NOT EXISTS (SELECT 1 FROM r WHERE r.user_email = u.user_email)
  ), stored AS (
    INSERT INTO mailplatform_usage_days AS u
      (user_email, day, display_name, sent, received, read, report_refresh_date, pulled_at)
    SELECT r.user_email, $1::date, nullif(r.display_name, ''), r.sent, r.received, r.read, $3::date, now() FROM r
    ON CONFLICT (user_email, day) DO UPDATE
      SET display_name = EXCLUDED.display_name, sent = EXCLUDED.sent, received = EXCLUDED.received,
          read = EXCLUDED.read, report_refresh_date = EXCLUDED.report_refresh_date, pulled_at = now()
    RETURNING 1
  )
  INSERT INTO mailplatform_usage_reports AS p (day, report_refresh_date, users, final, pulled_at)
  VALUES ($1::date, $3::date, (SELECT count(*) FROM stored), $4, now())
  ON CONFLICT (day) DO UPDATE
    SET report_refresh_date = EXCLUDED.report_refresh_date, users = EXCLUDED.users, final = EXCLUDED.final,
        pulled_at = now()
)sql";

std::string date_text(std::chrono::sys_days day) { return core::format_rfc3339(core::Timestamp(day)).substr(0, 10); }

}  // namespace

awaitable<void> UsagePull::pull() {
  co_await recorded_run(db_, "", "mailplatform", "full", [this](json& counts) -> awaitable<void> {
    const auto today = std::chrono::floor<std::chrono::days>(core::now());
    auto first = today - std::chrono::days(kReportDays);
    const auto stored = co_await db_.query(kFinalDays, date_text(first));
    std::set<std::string> final_days;
    for (const auto& row : stored) final_days.emplace(row.text(0));
    std::int64_t days = 0, rows = 0, concealed = 0, skipped = 0;
    auto directory = directory_;
    if (final_days.size() < static_cast<std::size_t>(kReportDays)) {
      // One question first: a tenant without any e-mail activity in 30 days has no day to ask for.
      const auto month = co_await health_.observe<core::graph::EmailActivityReport>(
          "mailplatform", [directory] { return directory->email_activity_period(30); });
      concealed += static_cast<std::int64_t>(month.concealed);
      if (month.rows.empty()) first = today;  // nothing to ask (or nothing that names a user)
    }
    for (auto day = first; day < today; day += std::chrono::days(1)) {
      const std::string date = date_text(day);
      if (final_days.contains(date)) continue;
      const auto report = co_await health_.observe<core::graph::EmailActivityReport>(
          "mailplatform", [directory, date] { return directory->email_activity(date); });
      // One row per user (a report that names a user twice is summed).
      std::map<std::string, json> users;
      for (const auto& r : report.rows) {
        auto& u = users[r.user_principal_name];
        if (u.is_null())
          u = {{"user_email", r.user_principal_name},
               {"display_name", r.display_name},
               {"sent", 0},
               {"received", 0},
               {"read", 0}};
        u["sent"] = u["sent"].get<std::int64_t>() + r.send;
        u["received"] = u["received"].get<std::int64_t>() + r.receive;
        u["read"] = u["read"].get<std::int64_t>() + r.read;
      }
      json list = json::array();
      for (auto& [name, u] : users) list.push_back(std::move(u));
      const std::optional<std::string> refreshed =
          report.report_refresh_date.empty() ? std::nullopt : std::optional(report.report_refresh_date);
      const bool final = refreshed && *refreshed >= date;  // YYYY-MM-DD compares as text
      co_await db_.query(kStore, date, list.dump(), refreshed, final);
      ++days;
      rows += static_cast<std::int64_t>(list.size());
      concealed += static_cast<std::int64_t>(report.concealed);
      skipped += static_cast<std::int64_t>(report.skipped);
      counts = {{"days", days}, {"rows", rows}, {"concealed", concealed}, {"skipped", skipped}};
    }
    counts = {{"days", days}, {"rows", rows}, {"concealed", concealed}, {"skipped", skipped}};
    if (concealed > 0)
      core::log::warn(
          "the mail platform conceals user names in its usage reports: those rows cannot be matched to users",
          {{"rows", concealed}});
    core::log::info("mail platform usage reports pulled", {{"days", days}, {"rows", rows}});
  });
}

awaitable<void> scheduled_usage_pull(integrations::Registry& registry, UsagePull& usage) {
  if ((co_await registry.disabled()).contains("mailplatform")) co_return;
  co_await usage.pull();
}

}  // namespace ops_console::engagement
