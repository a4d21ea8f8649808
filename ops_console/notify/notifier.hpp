#pragma once
// Sends notifications and records every delivery.
//
//   co_await notifier.notify("ticket_escalated", {.title = "Ticket 123 escalated", .text = "..."});
//
// notify() sends to every enabled global channel and to every enabled personal channel whose
// owner has not switched the (event_key, channel_type) cell off; nothing when the event key is
// known and inactive. Each destination passes the URL guard (url_guard.hpp) first. An attempt
// has NOTIFY_TIMEOUT_SECONDS; a 429 or 5xx is retried once. Every outcome becomes a row of
// notification_deliveries, with the reason when it was not delivered. Nothing is thrown at the
// caller: a dead channel or a database fault is recorded or logged, never propagated.
#include "core/db/pool.hpp"
#include "core/http/client.hpp"
#include "ops_console/notify/channels.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ops_console::notify {

struct Message {
  std::string title;
  std::string text;
  std::string priority = "default";  // ntfy's names: min, low, default, high, urgent
  std::vector<std::string> tags;
};

struct Channel {
  std::int64_t id = 0;
  std::string type;
  std::string name;
  nlohmann::json config;
};

struct Delivery {
  std::int64_t channel_id = 0;
  std::string channel_type;
  bool delivered = false;
  int attempts = 0;
  std::optional<int> http_status;
  std::string reason;  // why not delivered

  // {delivered, attempts, http_status, reason}: what a test send answers.
  nlohmann::json to_json() const;
};

// The HTTP request that carries `message` to `channel` (no guard, no sending): one per vendor.
core::http::OutboundRequest build_request(const Channel& channel, const Message& message,
                                          const std::optional<std::string>& event_key, const NotifySettings& settings);

class Notifier {
 public:
  Notifier(core::db::Pool& db, boost::asio::any_io_executor executor, NotifySettings settings);

  boost::asio::awaitable<std::vector<Delivery>> notify(std::string event_key, Message message) const;

  // One delivery to one channel: the guard, the attempt and its one retry, the outcome. Nothing is
  // recorded: for a caller that keeps its own record (the morning summary's webhooks).
  boost::asio::awaitable<Delivery> send(const Channel& channel, const Message& message,
                                        const std::optional<std::string>& event_key) const;

  // The test message a channel gets when it is saved and on demand.
  boost::asio::awaitable<Delivery> send_test(Channel channel) const;

  const NotifySettings& settings() const { return settings_; }

 private:
  boost::asio::awaitable<Delivery> deliver(const Channel& channel, const Message& message,
                                           const std::optional<std::string>& event_key) const;
  boost::asio::awaitable<void> record(const Delivery& delivery, const std::optional<std::string>& event_key) const;

  core::db::Pool& db_;
  boost::asio::any_io_executor executor_;
  NotifySettings settings_;
  core::http::Client client_;
};

}  // namespace ops_console::notify
