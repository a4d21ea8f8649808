#include "ops_console/dashboard/kept_days.hpp"

namespace ops_console::dashboard {

std::optional<std::string> KeptDays::find(const std::string& zone) const {
  if (keep_.count() == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(zone);
  if (it == entries_.end() || std::chrono::steady_clock::now() - it->second.at >= keep_) return std::nullopt;
  return it->second.past;
}

void KeptDays::keep(const std::string& zone, std::string past) {
  if (keep_.count() == 0) return;
  std::lock_guard lock(mutex_);
  entries_[zone] = {std::chrono::steady_clock::now(), std::move(past)};
}

std::chrono::seconds read_trends_keep(core::config::Reader& env) {
  return std::chrono::seconds(env.integer("TRENDS_KEEP_SECONDS", 60,
                                          "how long an instance keeps a zone's trends for the 29 days before "
                                          "today (0: read on every request; today is always read)",
                                          {0, 3600}));
}

}  // namespace ops_console::dashboard
