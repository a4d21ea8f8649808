#pragma once
// The engagement views' settings (README "Engagement").
#include "core/config/config.hpp"

#include <chrono>
#include <cstddef>

namespace ops_console::engagement {

inline constexpr std::size_t kPhotoMostBytes = 4 << 20;  // a larger photo is a 502

struct EngagementSettings {
  double minutes_per_sent = 4;               // ENGAGEMENT_MINUTES_PER_SENT
  double minutes_per_received = 1;           // ENGAGEMENT_MINUTES_PER_RECEIVED
  std::chrono::minutes usage_interval{360};  // MAILPLATFORM_USAGE_MINUTES: the usage-report pull; 0: none
};

EngagementSettings read_engagement_settings(core::config::Reader& env);

}  // namespace ops_console::engagement
