#pragma once
// The trends' 29 days before today, kept per time zone (migration 0040: dashboard_trends()). Those
// days are over, so what they count changes only when an old ticket is edited (or the company scope
// or the day changes, which the SQL checks itself): an instance keeps each zone's entry for
// TRENDS_KEEP_SECONDS (60; 0: not kept) and hands it back, and a request then reads only today's
// tickets. Today's figures, the heatmap and the engineers are read on every request. Thread-safe.
// In the background (api/dashboard.cpp) the zones of the users signed in at start are read, and
// every half keep the zones asked for in the last ten minutes are read again, so that a request
// reads the 30 days only for a zone nobody asked for lately.
//
// An entry is a zone's alone, so there are at most as many as the zones users have set (each an IANA
// name the timezone route checked). Concurrent requests that find no entry each read the 30 days and
// each store what they read: the last one stays.
#include "core/config/config.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ops_console::dashboard {

class KeptDays {
 public:
  explicit KeptDays(std::chrono::seconds keep) : keep_(keep) {}

  // The zone's entry, while younger than the keep; nullopt otherwise. The zone counts as asked for.
  std::optional<std::string> find(const std::string& zone);
  // Keeps `past` (dashboard_trends()'s second column) as the zone's entry from now on.
  void keep(const std::string& zone, std::string past);
  // The zones asked for (find()) within `within`, or kept then for the first time.
  std::vector<std::string> asked(std::chrono::seconds within) const;

 private:
  struct Entry {
    std::chrono::steady_clock::time_point at;     // when `past` was read
    std::chrono::steady_clock::time_point asked;  // when the zone was last asked for
    std::string past;
  };
  std::chrono::seconds keep_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

// TRENDS_KEEP_SECONDS: 0 to 3600, default 60.
std::chrono::seconds read_trends_keep(core::config::Reader& env);

}  // namespace ops_console::dashboard
