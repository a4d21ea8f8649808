#pragma once
// The text of the morning summary: a pure function from the figures to a chat message (issue 22;
// README "Morning summary"). The figures are what morning/summary.cpp reads, times already in the
// configured zone:
//
//   {date, dateText ("Monday 23 November 2026"), time ("06:31"), timezone,
//    overview:     dashboard_overview_json() (opened, resolved, openTotal, slaBreaches:
//                  {today, yesterday, delta, average7}),
//    breaches:     the most overdue open tickets [{ticketNumber, title, companyName, due}],
//    integrations: [{key, state (ok, failing, unknown), lastError, lastFailure}],
//    workers:      [{name, configured, status (ok, warn, down), failuresLastHour, inFlight}],
//    mfa:          {state: ok | notConfigured | off | error, error?, bypass: [user], disabled: [user],
//                   failedAccounts: [{name, error}]}, a user {user, realname, account}}
//
// Only the sections asked for are rendered, in the order asked. A missing or null figure reads as
// unknown rather than failing: the summary still goes out.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ops_console::morning {

struct Rendered {
  std::string title;
  std::string text;
};

Rendered render(const nlohmann::json& figures, const std::vector<std::string>& sections);

// The short message POST /test sends.
Rendered test_message(const std::string& webhook_name, const std::string& timezone);

}  // namespace ops_console::morning
