#include "ops_console/dashboard/clock.hpp"

#include "core/util/time.hpp"

namespace ops_console::dashboard {

Clock read_clock(core::config::Reader& env) {
  const auto text =
      env.string("DASHBOARD_NOW", "",
                 "for tests and demos only: pins the instant the dashboards, mobile views, engagement and "
                 "morning summary take as now (RFC 3339 with offset); empty = the database's clock");
  if (text.empty()) return {};
  const auto at = core::parse_rfc3339(text);
  if (!at) {
    env.fail("DASHBOARD_NOW", "must be an RFC 3339 date-time with offset, e.g. 2026-11-23T10:59:00Z");
    return {};
  }
  return {.at = core::format_rfc3339(*at)};
}

}  // namespace ops_console::dashboard
