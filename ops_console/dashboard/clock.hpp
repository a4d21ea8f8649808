#pragma once
// The current instant of the dashboards, the mobile views, engagement and the morning summary
// (spec "Day-boundary rules"). Their SQL never calls now(): it binds the instant as a parameter,
// `$n::timestamptz`, and derives "today" in the signed-in user's zone from it (rule 3: the instant
// converted to the zone once). In service the parameter is PostgreSQL's special input 'now' (the
// transaction's start); a test pins it with DASHBOARD_NOW (RFC 3339), so a run can sit at a fixed
// instant just before or after a user's midnight.
#include "core/config/config.hpp"

#include <string>

namespace ops_console::dashboard {

struct Clock {
  std::string at = "now";  // bind as $n::timestamptz

  bool pinned() const { return at != "now"; }
};

// DASHBOARD_NOW: empty (the database's clock) or an RFC 3339 instant with offset.
Clock read_clock(core::config::Reader& env);

}  // namespace ops_console::dashboard
