#include "ops_console/gitforge/dispatch.hpp"

#include "core/async/join.hpp"
#include "core/http/retry_after.hpp"
#include "core/log/log.hpp"
#include "core/util/standard_webhooks.hpp"
#include "ops_console/notify/destination.hpp"

#include <algorithm>

namespace ops_console::gitforge {

using boost::asio::awaitable;

namespace {

// The copies due now, leased to this pass: pending, their time come, nobody else's lease running.
constexpr std::string_view kClaim = R"sql(
  WITH due AS (
    SELECT id FROM agent_deliveries
    WHERE status = 'pending' AND next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
    ORDER BY next_attempt_at, id
    LIMIT $1
    FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE agent_deliveries d SET leased_until = now() + make_interval(secs => $2), attempts = d.attempts + 1
    FROM due WHERE d.id = due.id
    RETURNING d.id, d.agent_instance_id, d.delivery_id, d.attempts, d.webhook_id)
  SELECT c.id, c.webhook_id, c.attempts, i.url, i.signing_secret, i.enabled, g.envelope::text
  FROM claimed c
  JOIN agent_instances i ON i.id = c.agent_instance_id
  JOIN gitforge_deliveries g ON g.delivery_id = c.delivery_id
)sql";

// The outcomes of one step, in one statement (and one commit): $1 [{id, status, http_status,
// error, retry_in}], status 'delivered', 'pending' (sent again after retry_in seconds) or 'failed'.
constexpr std::string_view kRecord = R"sql(
  UPDATE agent_deliveries d
  SET status = o.status, leased_until = NULL, last_status = o.http_status, last_error = o.error,
      next_attempt_at = now() + make_interval(secs => o.retry_in),
      finished_at = CASE WHEN o.status = 'pending' THEN NULL ELSE now() END
  FROM jsonb_to_recordset($1::jsonb) AS o(id bigint, status text, http_status integer, error text, retry_in float8)
  WHERE d.id = o.id
)sql";

bool worth_retrying(int status) { return status == 429 || status >= 500; }

}  // namespace

struct AgentDispatcher::Copy {
  std::int64_t id = 0;
  std::string webhook_id;  // the same on every attempt (migration 0024)
  int attempts = 0;
  std::string url, secret;
  bool enabled = false;
  std::string body;
};

core::http::HeaderList copy_headers(std::string_view stored_secret, std::string_view webhook_id, std::int64_t timestamp,
                                    std::string_view body) {
  auto headers = core::standard_webhooks::headers(core::standard_webhooks::signing_key(stored_secret), webhook_id,
                                                  timestamp, body);
  headers.insert(headers.begin(), {{"Content-Type", "application/json"}, {"X-Ops-Event", "gitforge.push"}});
  return headers;
}

std::shared_ptr<AgentDispatcher> AgentDispatcher::start(std::string_view conninfo,
                                                        boost::asio::any_io_executor executor,
                                                        notify::NotifySettings settings, DispatchOptions options) {
  auto dispatcher = std::make_shared<AgentDispatcher>(conninfo, executor, std::move(settings), options);
  std::weak_ptr<AgentDispatcher> weak = dispatcher;
  dispatcher->schedule_ = core::async::Schedule::start(
      executor, options.poll,
      [weak]() -> awaitable<void> {
        if (auto self = weak.lock()) co_await self->run_due();
      },
      "agent deliveries");
  dispatcher->wake();  // copies left by an earlier run of the service go now
  return dispatcher;
}

AgentDispatcher::AgentDispatcher(std::string_view conninfo, boost::asio::any_io_executor executor,
                                 notify::NotifySettings settings, DispatchOptions options)
    : db_(executor, {.conninfo = std::string(conninfo), .max_size = options.connections}),
      executor_(executor),
      settings_(std::move(settings)),
      options_(options),
      client_(executor,
              core::http::ClientOptions{.connect_timeout = std::min(settings_.timeout, std::chrono::milliseconds(5000)),
                                        .total_timeout = settings_.timeout,
                                        .max_retries = 0,  // the queue retries, with its own backoff
                                        .user_agent = "msp-ops-console/0.1",
                                        .integration = "agent"}) {}

void AgentDispatcher::wake() {
  if (schedule_) schedule_->wake();
}

void AgentDispatcher::stop() {
  if (schedule_) schedule_->stop();
  db_.close();
}

awaitable<std::size_t> AgentDispatcher::run_due() {
  std::size_t attempted = 0;
  for (;;) {
    const auto rows = co_await db_.query(kClaim, static_cast<std::int64_t>(options_.batch),
                                         static_cast<std::int64_t>(options_.lease.count()));
    if (rows.empty()) co_return attempted;
    std::vector<std::function<awaitable<void>()>> sends;
    auto outcomes = std::make_shared<std::vector<nlohmann::json>>(rows.size());
    for (const auto& r : rows) {
      Copy copy{.id = r.get<std::int64_t>(0),
                .webhook_id = std::string(r.text(1)),
                .attempts = static_cast<int>(r.get<std::int64_t>(2)),
                .url = std::string(r.text(3)),
                .secret = std::string(r.text(4)),
                .enabled = r.get<bool>(5),
                .body = std::string(r.text(6))};
      sends.push_back([this, copy = std::move(copy), outcomes, slot = sends.size()]() -> awaitable<void> {
        (*outcomes)[slot] = co_await send(copy);
      });
    }
    attempted += sends.size();
    co_await core::async::join_all(executor_, std::move(sends));
    co_await db_.query(kRecord, nlohmann::json(*outcomes));
  }
}

awaitable<nlohmann::json> AgentDispatcher::send(Copy copy) {
  std::string status = "failed";
  std::optional<int> http_status;
  std::string error;
  std::chrono::milliseconds retry_in{0};
  const auto backoff = [&] {
    const auto doubled = options_.base_backoff * (1LL << std::min(copy.attempts - 1, 20));
    return std::min<std::chrono::milliseconds>(doubled, options_.max_backoff);
  };
  if (!copy.enabled) {
    error = "the instance was disabled before the copy was sent";
  } else if (const auto refused = notify::static_refusal(copy.url, settings_.rules_for("webhook")); !refused.empty()) {
    error = "the URL is refused: " + refused;
  } else {
    const auto cleared = co_await notify::clear_destination(executor_, copy.url, settings_.rules_for("webhook"));
    if (!cleared.refusal.empty()) {  // a name that does not resolve now may resolve later
      error = cleared.refusal;
      status = "pending";
      retry_in = backoff();
    } else {
      core::http::OutboundRequest req{
          .method = "POST",
          .url = copy.url,
          .headers = copy_headers(copy.secret, copy.webhook_id, core::standard_webhooks::unix_now(), copy.body),
          .body = copy.body,
          .retry_transport_errors = false,
          .resolve = cleared.resolve};
      try {
        const auto res = co_await client_.send(std::move(req));
        http_status = res.status;
        if (res.ok()) {
          status = "delivered";
        } else {
          error = "HTTP " + std::to_string(res.status);
          if (worth_retrying(res.status)) {
            status = "pending";
            retry_in = backoff();
            if (const auto asked =
                    core::http::parse_retry_after(res.header("retry-after"), std::chrono::system_clock::now()))
              retry_in = std::min<std::chrono::milliseconds>(*asked, options_.max_backoff);
          }
        }
      } catch (const core::http::TransportError& e) {
        error = e.what();
        status = "pending";
        retry_in = backoff();
      }
    }
  }
  if (status == "pending" && copy.attempts >= options_.max_attempts) {
    status = "failed";
    error += " (after " + std::to_string(copy.attempts) + " attempts)";
  }
  if (status != "delivered")
    core::log::warn("agent copy not delivered", {{"copy", copy.id}, {"status", status}, {"error", error}});
  co_return nlohmann::json{{"id", copy.id},
                           {"status", status},
                           {"http_status", http_status ? nlohmann::json(*http_status) : nlohmann::json(nullptr)},
                           {"error", error.empty() ? nlohmann::json(nullptr) : nlohmann::json(error)},
                           {"retry_in", static_cast<double>(retry_in.count()) / 1000.0}};
}

}  // namespace ops_console::gitforge
