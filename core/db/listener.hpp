#pragma once
// Receives PostgreSQL notifications (LISTEN/NOTIFY) on one channel, on a connection of its own.
//
//   core::db::Listener listener(executor, {.conninfo = url, .channel = "jobs"},
//                               [&](const std::string& payload) { wake(payload); },
//                               [&] { rescan_everything(); });
//   listener.start();
//   ...
//   listener.stop();  // or destroy it
//
// Notifications sent while the listener is disconnected are lost, so on_connected() runs after
// every (re)connect, once LISTEN is in place: the caller treats it as "anything may have
// changed". on_lost(), when given, runs each time a connection ends or an attempt fails (before
// the wait to retry): a caller that answers from what the notifications keep fresh stops trusting
// it until the next on_connected(). A connection is known lost when its socket says so (the server
// closed it, or terminated its backend); one that dies silently is noticed only when TCP gives up.
// When the connection fails (the server restarts, the backend is terminated) or cannot
// be made, the listener logs a warning and tries again, waiting between retry_min and retry_max
// (doubling after each failure, back to retry_min after a success). A callback that throws is
// handled the same way.
//
// Callbacks run one at a time on an I/O thread of `executor`; they should return quickly. Once
// stop() has returned, none runs or will run: stop() waits for a running one to finish (a callback
// may call stop() itself). The loop then ends promptly, except while a connection is being made:
// that attempt finishes first (at most connect_timeout). Destroy the listener before its
// io_context.
#include "core/db/connection.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace core::db {

struct ListenerOptions {
  std::string conninfo;  // a libpq URL or key=value string
  std::string channel;   // exactly as NOTIFY names it (quoted for LISTEN, so case matters)
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds retry_min{200};
  std::chrono::milliseconds retry_max{10000};
};

class Listener {
 public:
  Listener(boost::asio::any_io_executor ex, ListenerOptions o,
           std::function<void(const std::string& payload)> on_notify, std::function<void()> on_connected,
           std::function<void()> on_lost = {});
  ~Listener();  // stop()
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  void start();  // once
  void stop();   // from any thread; idempotent

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the loop, which may outlive the listener briefly
};

}  // namespace core::db
