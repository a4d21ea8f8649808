#pragma once
// Slowing repeated failed sign-ins before they are refused: from the `slow_after`-th recent
// failure on, each answer waits `step` for every failure from that one, at most `max_steps`
// steps. The caller counts the failures (per account, per address) and decides when to refuse.
//
//   if (const auto wait = settings.slowdown.delay(failures); wait.count() > 0) co_await sleep_for(wait);
#include <algorithm>
#include <chrono>
#include <cstdint>

namespace core::http {

struct SignInSlowdown {
  int slow_after = 3;
  std::chrono::milliseconds step{1000};
  int max_steps = 5;

  std::chrono::milliseconds delay(std::int64_t recent_failures) const {
    if (recent_failures < slow_after) return std::chrono::milliseconds{0};
    return step * std::min<std::int64_t>(recent_failures - slow_after + 1, max_steps);
  }
};

}  // namespace core::http
