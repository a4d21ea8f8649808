#include "ops_console/dashboard/kept_days.hpp"

namespace ops_console::dashboard {

std::optional<std::string> KeptDays::find(const std::string& zone) {
  if (keep_.count() == 0) return std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(zone);
  if (it == entries_.end()) return std::nullopt;
  it->second.asked = now;
  if (now - it->second.at >= keep_) return std::nullopt;
  return it->second.past;
}

void KeptDays::keep(const std::string& zone, std::string past) {
  if (keep_.count() == 0) return;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  Entry& entry = entries_.try_emplace(zone, Entry{now, now, {}}).first->second;  // a new zone counts as asked
  entry.at = now;
  entry.past = std::move(past);
}

std::vector<std::string> KeptDays::asked(std::chrono::seconds within) const {
  const auto since = std::chrono::steady_clock::now() - within;
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [zone, entry] : entries_)
    if (entry.asked >= since) out.push_back(zone);
  return out;
}

std::chrono::seconds read_trends_keep(core::config::Reader& env) {
  return std::chrono::seconds(env.integer("TRENDS_KEEP_SECONDS", 60,
                                          "how long an instance keeps a zone's trends for the 29 days before "
                                          "today (0: read on every request; today is always read)",
                                          {0, 3600}));
}

}  // namespace ops_console::dashboard
