#include "ops_console/morning/settings.hpp"

namespace ops_console::morning {

MorningSettings read_morning_settings(core::config::Reader& env) {
  return {.tick = std::chrono::seconds(env.integer("MORNING_SUMMARY_TICK_SECONDS", 60,
                                                   "how often each instance looks whether the morning summary is due "
                                                   "(sent at 06:30 Monday to Friday in its configured zone)",
                                                   {.min = 1, .max = 3600}))};
}

}  // namespace ops_console::morning
