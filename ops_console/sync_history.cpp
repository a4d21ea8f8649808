#include "ops_console/sync_history.hpp"

#include <exception>

namespace ops_console {

namespace {

constexpr std::int64_t kAnalyzeAfter = 1000;

constexpr std::string_view kStart = "INSERT INTO sync_history (entity_type, kind) VALUES ($1, $2) RETURNING id";
constexpr std::string_view kFinish = R"sql(
  UPDATE sync_history SET finished_at = now(), status = $2, counts = $3::jsonb, error = $4 WHERE id = $1
)sql";

}  // namespace

boost::asio::awaitable<void> recorded_run(core::db::Pool& db, std::string entity_type, std::string kind, SyncJob job) {
  const auto started = co_await db.query(kStart, entity_type, kind);
  const auto id = started.front().get<std::int64_t>(0);
  nlohmann::json counts = nlohmann::json::object();
  std::exception_ptr failure;
  std::string error;
  try {
    co_await job(counts);
  } catch (const std::exception& x) {  // the vendor, or the database: recorded if it can be
    failure = std::current_exception();
    error = x.what();
  }
  if (!failure) {
    co_await db.query(kFinish, id, "succeeded", counts, nullptr);
    co_return;
  }
  co_await db.query(kFinish, id, "failed", counts, error);
  std::rethrow_exception(failure);
}

boost::asio::awaitable<void> analyze_after_bulk_write(core::db::Pool& db, std::string_view table, std::int64_t rows) {
  if (rows < kAnalyzeAfter) co_return;
  auto lease = co_await db.acquire();
  co_await lease.execute_simple("ANALYZE " + std::string(table));
}

}  // namespace ops_console
