#include "ops_console/integrations/health.hpp"

#include "core/util/secrets.hpp"

#include "core/log/log.hpp"
#include "core/util/time.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <mutex>

namespace ops_console::integrations {

namespace {

// $1: [{key, success, failure (RFC 3339 or null), error, latency, calls, failures}], one per integration.
constexpr std::string_view kRecord = R"sql(
  INSERT INTO integration_health AS h (key, last_success_at, last_failure_at, last_error, last_latency_ms, calls,
                                       failures, updated_at)
  SELECT r.key, r.success, r.failure, r.error, r.latency, r.calls, r.failures, now()
  FROM jsonb_to_recordset($1::jsonb) AS r(key text, success timestamptz, failure timestamptz, error text,
                                         latency integer, calls bigint, failures bigint)
  ON CONFLICT (key) DO UPDATE SET
    last_success_at = coalesce(EXCLUDED.last_success_at, h.last_success_at),
    last_failure_at = coalesce(EXCLUDED.last_failure_at, h.last_failure_at),
    last_error = coalesce(EXCLUDED.last_error, h.last_error),
    last_latency_ms = EXCLUDED.last_latency_ms, calls = h.calls + EXCLUDED.calls,
    failures = h.failures + EXCLUDED.failures, updated_at = now()
)sql";

// What an integration's calls did since the last write.
struct Pending {
  std::optional<std::string> success, failure;  // the latest of each, RFC 3339
  std::string error;
  std::int64_t latency_ms = 0, calls = 0, failures = 0;
};

}  // namespace

struct Health::State : std::enable_shared_from_this<State> {
  State(core::db::Pool& db, boost::asio::any_io_executor executor) : db(db), executor(std::move(executor)) {}

  core::db::Pool& db;
  boost::asio::any_io_executor executor;
  std::mutex mutex;
  std::map<std::string, Pending> pending;
  bool writing = false;
  std::map<std::string, int> bursts;  // the keys whose writes are held back, with their Bursts alive
  Health::clock::time_point last_write{};

  // Whether a write may start now (the mutex held): something is pending outside a burst, or the
  // interval since the last write is over.
  bool may_write(Health::clock::time_point now) const {
    if (pending.empty()) return false;
    if (now - last_write >= Health::kBurstInterval) return true;
    for (const auto& entry : pending)
      if (!bursts.contains(entry.first)) return true;
    return false;
  }

  // Starts the writer unless it runs or may not start yet (the mutex held).
  void wake(Health::clock::time_point now) {
    if (writing || !may_write(now)) return;
    writing = true;
    boost::asio::co_spawn(executor, write(), boost::asio::detached);
  }

  // Writes what is pending, then what arrived meanwhile, until nothing is left (or, during a
  // burst, until the interval holds the rest back for a later call or the burst's end).
  boost::asio::awaitable<void> write() {
    const auto self = shared_from_this();
    for (;;) {
      nlohmann::json rows = nlohmann::json::array();
      {
        std::lock_guard lock(mutex);
        const auto now = Health::clock::now();
        if (!may_write(now)) {
          writing = false;
          co_return;
        }
        last_write = now;
        for (auto& [key, p] : pending)
          rows.push_back({{"key", key},
                          {"success", p.success ? nlohmann::json(*p.success) : nlohmann::json(nullptr)},
                          {"failure", p.failure ? nlohmann::json(*p.failure) : nlohmann::json(nullptr)},
                          {"error", p.failure ? nlohmann::json(p.error) : nlohmann::json(nullptr)},
                          {"latency", p.latency_ms},
                          {"calls", p.calls},
                          {"failures", p.failures}});
        pending.clear();
      }
      try {
        co_await db.query(kRecord, rows.dump());
      } catch (const std::exception& e) {
        core::log::warn("integration health not recorded", {{"error", e.what()}});
      }
    }
  }
};

Health::Health(core::db::Pool& db, boost::asio::any_io_executor executor)
    : state_(std::make_shared<State>(db, std::move(executor))) {}

Health::Burst::Burst(std::shared_ptr<State> state, std::string key) : state_(std::move(state)), key_(std::move(key)) {
  std::lock_guard lock(state_->mutex);
  ++state_->bursts[key_];
}

Health::Burst::~Burst() {
  if (!state_) return;  // moved from
  std::lock_guard lock(state_->mutex);
  if (--state_->bursts[key_] <= 0) state_->bursts.erase(key_);
  state_->wake(clock::now());
}

void Health::record(const std::string& key, clock::time_point started, std::optional<std::string> error) const {
  const auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - started).count();
  const std::string at = core::format_rfc3339(core::now());
  std::lock_guard lock(state_->mutex);
  auto& p = state_->pending[key];
  ++p.calls;
  p.latency_ms = latency;
  if (error) {
    ++p.failures;
    p.failure = at;
    p.error = core::secrets::quote(*error);  // masked and bounded: the dashboard shows it
  } else {
    p.success = at;
  }
  state_->wake(clock::now());
}

}  // namespace ops_console::integrations
