#include "ops_console/integrations/health.hpp"

#include "core/log/log.hpp"

namespace ops_console::integrations {

namespace {

constexpr std::string_view kRecord = R"sql(
  INSERT INTO integration_health AS h (key, last_success_at, last_failure_at, last_error, last_latency_ms, calls,
                                       failures, updated_at)
  VALUES ($1, CASE WHEN $2::text IS NULL THEN now() END, CASE WHEN $2::text IS NOT NULL THEN now() END, $2, $3, 1,
          CASE WHEN $2::text IS NULL THEN 0 ELSE 1 END, now())
  ON CONFLICT (key) DO UPDATE SET
    last_success_at = coalesce(EXCLUDED.last_success_at, h.last_success_at),
    last_failure_at = coalesce(EXCLUDED.last_failure_at, h.last_failure_at),
    last_error = coalesce(EXCLUDED.last_error, h.last_error),
    last_latency_ms = EXCLUDED.last_latency_ms, calls = h.calls + 1, failures = h.failures + EXCLUDED.failures,
    updated_at = now()
)sql";

}  // namespace

boost::asio::awaitable<void> Health::record(std::string key, clock::time_point started,
                                            std::optional<std::string> error) {
  const auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started).count();
  try {
    co_await db_.query(kRecord, key, std::move(error), static_cast<std::int64_t>(latency));
  } catch (const std::exception& e) {
    core::log::warn("integration health not recorded", {{"integration", key}, {"error", e.what()}});
  }
}

}  // namespace ops_console::integrations
