#pragma once
// The morning summary's fixed rules and its one setting (issue 22; README "Morning summary").
//
// The schedule sends at kSendAt local time, Monday to Friday, in the configured zone; an
// instance that was down at that time sends when it starts, until kCatchUpUntil; a day not sent
// by then is skipped. Every MORNING_SUMMARY_TICK_SECONDS each instance looks whether a send is
// due; the first to claim the day sends (morning/summary.hpp).
#include "core/config/config.hpp"

#include <array>
#include <chrono>
#include <string_view>

namespace ops_console::morning {

// The content sections, in the order the message shows them.
inline constexpr std::array<std::string_view, 5> kSections{"overview", "slaBreaches", "integrations", "workers", "mfa"};
inline constexpr std::string_view kSendAt = "06:30";
inline constexpr std::string_view kCatchUpUntil = "12:00";

struct MorningSettings {
  std::chrono::seconds tick{60};
};

MorningSettings read_morning_settings(core::config::Reader& env);

}  // namespace ops_console::morning
