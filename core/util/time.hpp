#pragma once
// Timestamps that arrive in JSON bodies.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace core {

using Timestamp = std::chrono::sys_time<std::chrono::microseconds>;

// The current time as a Timestamp.
inline Timestamp now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

// RFC 3339 date-time with a mandatory offset: "2026-11-21T09:30:00Z", "2026-11-21T10:30:00.25+01:00".
// The separator may be 'T', 't' or a space; fractions beyond microseconds are truncated.
// Years 0001..9999; a leap second (":60") is refused. nullopt for anything else.
std::optional<Timestamp> parse_rfc3339(std::string_view text);

// "2026-11-21T09:30:00.250000Z": UTC with microseconds, readable by PostgreSQL and parse_rfc3339.
std::string format_rfc3339(Timestamp t);

}  // namespace core
