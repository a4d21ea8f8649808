#pragma once
// Sends the signed copies of pushes to the agent instances (issue 18), from the queue the intake
// fills (agent_deliveries, one row per push and enabled instance).
//
//   auto dispatcher = AgentDispatcher::start(conninfo, executor, notify_settings);
//   dispatcher->wake();     // a push was stored: send now rather than at the next poll
//   dispatcher->stop();
//
// The dispatcher has its own small pool of connections: its polls and records never wait behind
// requests, nor requests behind them. A pass takes the due copies with FOR UPDATE SKIP LOCKED and a lease, so instances sharing the
// database never send one copy twice at once, and a copy whose sender died is taken again when
// its lease ends. Each copy is a JSON POST signed for the instance by Standard Webhooks
// (ops_console/README.md, "Copies to agent instances"; core/util/standard_webhooks.hpp):
// webhook-id (the copy's own, migration 0024, the same on every attempt), webhook-timestamp,
// webhook-signature, and X-Ops-Event. 2xx: delivered. 429, 5xx, a network error or a timeout: tried again
// after a backoff (or the Retry-After asked for), up to `max_attempts`, then failed. Another
// status, or a URL the notifications' guard refuses: failed at once. Every outcome is recorded
// on the row (status, attempts, last status, last error), a step's outcomes in one statement.
#include "core/async/schedule.hpp"
#include "core/db/pool.hpp"
#include "core/http/client.hpp"
#include "ops_console/notify/channels.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>

namespace ops_console::gitforge {

struct DispatchOptions {
  std::chrono::milliseconds poll{2'000};           // how often due retries are looked for
  std::chrono::seconds lease{60};                  // a copy's sender holds it this long at most
  int max_attempts = 8;                            // then the copy is failed
  std::chrono::milliseconds base_backoff{1'000};   // doubled after each attempt ...
  std::chrono::milliseconds max_backoff{300'000};  // ... up to this
  std::size_t batch = 50;                          // copies taken, sent at once and recorded together, per step
  std::size_t connections = 2;                     // the dispatcher's own pool
};

// The headers of one attempt of a copy: Content-Type, X-Ops-Event, then webhook-id, webhook-timestamp
// and webhook-signature under the instance's stored secret (a whsec_ secret's key, or an older
// secret's own bytes: core::standard_webhooks::signing_key).
core::http::HeaderList copy_headers(std::string_view stored_secret, std::string_view webhook_id, std::int64_t timestamp,
                                    std::string_view body);

class AgentDispatcher : public std::enable_shared_from_this<AgentDispatcher> {
 public:
  static std::shared_ptr<AgentDispatcher> start(std::string_view conninfo, boost::asio::any_io_executor executor,
                                                notify::NotifySettings settings, DispatchOptions options = {});
  AgentDispatcher(std::string_view conninfo, boost::asio::any_io_executor executor, notify::NotifySettings settings,
                  DispatchOptions options);

  void wake();
  void stop();

  // Sends every copy due now (in steps of `batch`); answers how many were attempted.
  boost::asio::awaitable<std::size_t> run_due();

 private:
  struct Copy;
  // One attempt; answers its outcome as kRecord reads it (dispatch.cpp).
  boost::asio::awaitable<nlohmann::json> send(Copy copy);

  core::db::Pool db_;
  boost::asio::any_io_executor executor_;
  notify::NotifySettings settings_;
  DispatchOptions options_;
  core::http::Client client_;
  std::shared_ptr<core::async::Schedule> schedule_;
};

}  // namespace ops_console::gitforge
