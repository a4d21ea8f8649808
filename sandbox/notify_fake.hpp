#pragma once
// Receivers for the four notification channel types, shaped like the services they stand for
// (../shared/vendors.md, "Notification channels"):
//
//   POST /chat/v1/spaces/{space}/messages?key=&token=   Google Chat incoming webhook: {"text"} → the message
//   POST /telegram/bot<token>/sendMessage               Telegram Bot API: {chat_id, text, parse_mode}
//                                                       → {ok: true, result: {message_id, chat, text}}
//   POST /ntfy/{topic}                                  ntfy publish: body is the message; Title, Priority,
//                                                       Tags headers → the message event
//   POST /webhook/{name}                                a generic JSON receiver (our signed webhooks)
//
// Control routes, under /_sandbox/notify:
//   GET    /_sandbox/notify/received?receiver=chat|telegram|ntfy|webhook
//          → [{receiver, path, headers: {lowercased name: value}, body}] oldest first (the last 1,000)
//   DELETE /_sandbox/notify/received
//   PUT    /_sandbox/notify/faults   {receiver, status, count, retry_after?}: the next `count` requests to
//          that receiver are refused with `status`, in that vendor's error shape (and recorded)
//   PUT    /_sandbox/notify/latency  {receiver, latency_ms}: every request to that receiver is recorded on
//          arrival and answered `latency_ms` later (0: at once); a sender killed meanwhile has sent it
#include "core/http/router.hpp"

#include <nlohmann/json.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace sandbox {

struct NotifyFault {
  int status = 500;
  int count = 0;
  int retry_after = 0;  // seconds; sent as Retry-After (and Telegram's parameters.retry_after) when > 0
};

class NotifyFake {
 public:
  void install(core::http::Router& router);

  // What arrived at `receiver` ("" for all), oldest first.
  nlohmann::json received(const std::string& receiver = "") const;
  void clear();
  void set_fault(const std::string& receiver, NotifyFault fault);
  void set_latency(const std::string& receiver, std::chrono::milliseconds latency);

 private:
  // Records the request; returns the fault to answer with, if one is armed.
  std::optional<NotifyFault> arrive(const std::string& receiver, const core::http::Request& req);
  // Waits the receiver's latency, if one is set.
  boost::asio::awaitable<void> linger(const std::string& receiver);

  mutable std::mutex mutex_;
  std::deque<nlohmann::json> received_;
  std::map<std::string, NotifyFault> faults_;
  std::map<std::string, std::chrono::milliseconds> latency_;
  long next_id_ = 1;
};

}  // namespace sandbox
