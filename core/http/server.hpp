#pragma once
// HTTP/1.1 server on Boost.Beast with one coroutine per connection, each on its own strand.
//
// Requests on a connection are read, handled and answered one after another, so pipelined
// requests are answered in order. Limits: header bytes (431) and body bytes (413), after which
// the connection is closed. Timeouts: idle (waiting for the first byte of the next request),
// header (from that byte to the header's end: a client that trickles its header is cut off), read
// (receiving the rest of a request), and write.
//
// Connections are capped (max_connections). A connection past the cap first makes room by closing
// the oldest connection that has no request in progress (silent, keep-alive between requests, or
// still sending a header), so idle and slow clients cannot keep others out; only when every
// connection is busy with a request is the new one refused: 503 problem+json with Retry-After
// and Connection: close, written before its request is read.
//
// stop() is graceful: the acceptor closes at once, idle connections are closed, a connection
// busy with a request finishes it (answering with Connection: close); whatever is still open at
// the deadline is closed by force (a handler still running finishes, but its response is lost).
// The returned awaitable completes when the accept loop and every connection's coroutine have
// ended, so the server may be destroyed then.
#include "core/async/bounded_executor.hpp"
#include "core/http/middleware.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace core::http {

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free port; start() returns it
  std::size_t header_limit = 16 * 1024;
  std::size_t body_limit = 1024 * 1024;
  std::size_t max_connections = 4096;
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds read_timeout{30'000};
  // A response is written at once when the socket takes it whole; the rest of a larger one is
  // written as the client reads, and a client that stops reading is cut off after this long.
  std::chrono::milliseconds write_timeout{30'000};
  std::chrono::milliseconds shutdown_timeout{20'000};
  // What each request may wait for (core/async/bounded_executor.hpp): set on the connection's
  // executor before its handler runs, read by the database pool. The default bounds nothing.
  async::Bounds request_bounds{};
  // The routes that admit their body themselves (Router::gate_body), or nullptr.
  const class Router* body_gates = nullptr;
  // Told of every answer before it is written (the request metrics, core/metrics/requests.hpp); it
  // runs on the connection's strand for every request, so it must be cheap and must not throw.
  std::function<void(const Request&, const Response&)> observe;
};

class Server {
 public:
  Server(boost::asio::any_io_executor executor, ServerOptions options, Pipeline pipeline, Handler endpoint);
  ~Server();

  // Binds and listens; throws std::system_error when the address cannot be bound.
  std::uint16_t start();
  boost::asio::awaitable<void> stop();

  std::uint16_t port() const { return port_; }
  std::size_t open_connections() const;
  // Connections refused at the cap (503) and closed to make room at it, since start.
  std::uint64_t refused_connections() const { return refused_; }
  std::uint64_t evicted_connections() const { return evicted_; }

 private:
  struct Connection;
  boost::asio::awaitable<void> accept_loop();
  boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket, std::shared_ptr<Connection> conn,
                                     std::shared_ptr<async::Bounds> bounds);
  // At the cap: closes the oldest connection without a request in progress; false when none is.
  bool make_room();
  static boost::asio::awaitable<void> refuse(boost::asio::ip::tcp::socket socket);
  boost::asio::awaitable<Response> handle(Request& req) const;
  boost::asio::awaitable<Response> reject(Request& req, class Problem problem) const;
  void for_each_connection(const std::function<void(Connection&)>& action);

  boost::asio::any_io_executor executor_;
  ServerOptions options_;
  Pipeline pipeline_;
  Handler endpoint_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> accepting_{false};  // the accept loop's coroutine has not ended yet

  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> connections_;
  std::uint64_t next_id_ = 0;
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> evicted_{0};
};

}  // namespace core::http
