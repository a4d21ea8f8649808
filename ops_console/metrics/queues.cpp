#include "ops_console/metrics/queues.hpp"

#include "core/log/log.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <array>
#include <mutex>
#include <optional>

namespace ops_console {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// Each a partial or status index's count (0018_analyzer, 0011_gitforge, 0020_dashboards).
constexpr std::string_view kQueueDepths = R"sql(
  SELECT (SELECT count(*) FROM analysis_jobs WHERE status = 'queued'),
         (SELECT count(*) FROM agent_deliveries WHERE status = 'pending'),
         (SELECT count(*) FROM rmm_executions WHERE status = 'queued')
)sql";

constexpr std::array<std::string_view, 3> kCountedQueues = {"analyzer", "agent_delivery", "rmm_execution"};
using Depths = std::array<double, kCountedQueues.size()>;

class QueueDepths : public std::enable_shared_from_this<QueueDepths> {
 public:
  QueueDepths(core::db::Pool& db, asio::any_io_executor executor, std::chrono::milliseconds deadline,
              core::metrics::Counter& errors)
      : db_(db), executor_(executor), strand_(asio::make_strand(executor)), deadline_(deadline), errors_(errors) {}

  // Before a scrape: the depths within the deadline, or none.
  awaitable<void> refresh() {
    std::optional<Depths> fresh;
    if (!in_flight_.exchange(true)) {
      auto round = std::make_shared<Round>(strand_);
      asio::co_spawn(executor_, count(shared_from_this(), round), asio::detached);
      fresh = co_await asio::co_spawn(strand_, wait(round, deadline_), asio::use_awaitable);
    }
    if (!fresh) errors_.inc();  // late, failed, or the last one is still running
    std::lock_guard lock(mutex_);
    last_ = fresh;
  }

  void collect(core::metrics::Samples& out) const {
    std::lock_guard lock(mutex_);
    if (!last_) return;
    for (std::size_t i = 0; i < kCountedQueues.size(); ++i)
      out.add({{"queue", std::string(kCountedQueues[i])}}, (*last_)[i]);
  }

 private:
  // One refresh: its result and the timer its waiter sleeps on, both touched on the strand only.
  struct Round {
    explicit Round(asio::strand<asio::any_io_executor> strand) : timer(strand) {}
    asio::steady_timer timer;
    bool done = false;
    std::optional<Depths> depths;
  };

  static awaitable<void> count(std::shared_ptr<QueueDepths> self, std::shared_ptr<Round> round) {
    std::optional<Depths> depths;
    try {
      const auto rows = co_await self->db_.query(kQueueDepths);
      Depths d{};
      for (std::size_t i = 0; i < d.size(); ++i)
        d[i] = static_cast<double>(rows[0].get<std::int64_t>(static_cast<int>(i)));
      depths = d;
    } catch (const std::exception& e) {
      core::log::warn("the queue depths could not be counted", {{"error", e.what()}});
    }
    self->in_flight_ = false;
    asio::post(self->strand_, [round, depths] {
      round->done = true;
      round->depths = depths;
      round->timer.cancel();
    });
  }

  // On the strand.
  static awaitable<std::optional<Depths>> wait(std::shared_ptr<Round> round, std::chrono::milliseconds deadline) {
    if (!round->done) {
      round->timer.expires_after(deadline);
      boost::system::error_code ec;
      co_await round->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return round->done ? round->depths : std::nullopt;
  }

  core::db::Pool& db_;
  asio::any_io_executor executor_;
  asio::strand<asio::any_io_executor> strand_;
  std::chrono::milliseconds deadline_;
  core::metrics::Counter& errors_;
  std::atomic<bool> in_flight_{false};
  mutable std::mutex mutex_;
  std::optional<Depths> last_;
};

}  // namespace

void install_queue_metrics(core::app::Context& ctx, std::function<std::size_t()> intake_waiting,
                           std::chrono::milliseconds deadline) {
  auto& errors = ctx.metrics
                     .counter("ops_console_metrics_refresh_errors_total",
                              "Scrapes whose queue depths the database did not give in time (or at all)")
                     .get();
  auto depths = std::make_shared<QueueDepths>(ctx.db, ctx.executor, deadline, errors);
  ctx.metrics.callback("ops_console_queue_depth",
                       "Work waiting in a queue: analysis jobs, agent deliveries, script runs (counted in the "
                       "database at scrape time), PSA webhook callouts (in memory)",
                       core::metrics::Type::gauge, [depths, intake_waiting](core::metrics::Samples& out) {
                         depths->collect(out);
                         out.add({{"queue", "webhook_intake"}}, static_cast<double>(intake_waiting()));
                       });
  ctx.before_scrape.push_back([depths] { return depths->refresh(); });
}

}  // namespace ops_console
