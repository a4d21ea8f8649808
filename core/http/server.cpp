#include "core/http/server.hpp"

#include "core/http/problem.hpp"
#include "core/http/router.hpp"
#include "core/log/log.hpp"
#include "core/util/strings.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <exception>

namespace core::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

// What the server knows of one open connection. `stream` is touched only on the connection's
// strand; `busy` (a request's header is read and its answer not yet written) is written there and
// read by the accept loop, which picks a connection to close at the cap (`closing`: picked once);
// the map that holds it is guarded by the server's mutex.
struct Server::Connection {
  explicit Connection(async::Strand s) : strand(std::move(s)) {}
  async::Strand strand;
  beast::tcp_stream* stream = nullptr;
  std::atomic<bool> busy{false};
  std::atomic<bool> closing{false};
};

Server::Server(asio::any_io_executor executor, ServerOptions options, Pipeline pipeline, Handler endpoint)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      pipeline_(std::move(pipeline)),
      endpoint_(std::move(endpoint)),
      acceptor_(executor_) {}

Server::~Server() = default;

std::uint16_t Server::start() {
  const tcp::endpoint at(asio::ip::make_address(options_.bind_address), options_.port);
  acceptor_.open(at.protocol());
  acceptor_.set_option(asio::socket_base::reuse_address(true));
  acceptor_.bind(at);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
  accepting_ = true;
  asio::co_spawn(executor_, accept_loop(), [this](std::exception_ptr) { accepting_ = false; });
  return port_;
}

std::size_t Server::open_connections() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

awaitable<void> Server::accept_loop() {
  while (!stopping_) {
    beast::error_code ec;
    // The connection's socket, timers and coroutine run on one strand, which carries its request's
    // bounds (the pool reads them), set anew for each request.
    auto bounds = std::make_shared<async::Bounds>();
    auto strand = async::make_strand(executor_, bounds);
    tcp::socket socket = co_await acceptor_.async_accept(strand, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (stopping_ || ec == asio::error::operation_aborted) break;
      log::warn("accept failed", {{"error", ec.message()}});
      continue;  // e.g. EMFILE: keep serving the connections we have
    }
    if (open_connections() >= options_.max_connections && !make_room()) {
      ++refused_;
      asio::co_spawn(strand, refuse(std::move(socket)), asio::detached);
      continue;
    }
    auto conn = std::make_shared<Connection>(strand);
    std::uint64_t id;
    {
      std::lock_guard lock(mutex_);
      id = next_id_++;
      connections_.emplace(id, conn);
    }
    asio::co_spawn(strand, serve(std::move(socket), conn, bounds), [this, id](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          log::error("connection failed", {{"error", ex.what()}});
        }
      }
      std::lock_guard lock(mutex_);
      connections_.erase(id);
    });
  }
}

bool Server::make_room() {
  std::shared_ptr<Connection> oldest;
  {
    std::lock_guard lock(mutex_);
    std::uint64_t oldest_id = 0;
    for (const auto& [id, c] : connections_)
      if (!c->busy && !c->closing && (!oldest || id < oldest_id)) {
        oldest = c;
        oldest_id = id;
      }
    if (!oldest) return false;
    oldest->closing = true;
  }
  ++evicted_;
  // On its strand, and only if it has not started a request meanwhile (then it is let be: the new
  // connection is admitted one over the cap).
  asio::post(oldest->strand, [oldest] {
    if (!oldest->busy && oldest->stream) oldest->stream->cancel();
  });
  return true;
}

awaitable<void> Server::refuse(tcp::socket socket) {
  static const std::string body =
      R"({"type":"/problems/too-many-connections","title":"Service Unavailable","status":503,)"
      R"("detail":"the server has as many connections as it takes, each with a request in progress; try again shortly"})";
  static const std::string head =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n";
  beast::error_code ec;
  beast::tcp_stream stream(std::move(socket));
  stream.expires_after(std::chrono::seconds(1));
  const std::array<asio::const_buffer, 2> answer{asio::buffer(head), asio::buffer(body)};
  co_await asio::async_write(stream, answer, asio::redirect_error(use_awaitable, ec));
  if (ec) co_return;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  // Read what the client sends until it closes (at most a second), so that closing with its
  // request unread does not reset the connection before the answer is read.
  stream.expires_after(std::chrono::seconds(1));
  std::array<char, 4096> sink;
  while (!ec) co_await stream.async_read_some(asio::buffer(sink), asio::redirect_error(use_awaitable, ec));
}

awaitable<Response> Server::handle(Request& req) const { return pipeline_.run(req, endpoint_); }

awaitable<Response> Server::reject(Request& req, Problem problem) const {
  // A coroutine, so `thrower` (which the pipeline refers to) lives until the pipeline is done.
  const Handler thrower = [&problem](Request&) -> awaitable<Response> { throw problem; };
  co_return co_await pipeline_.run(req, thrower);
}

namespace {

// The request as handlers see it; `malformed_query` says the query string has a malformed
// percent-escape (the route answers 400 after its access check: Router). The header's fields are
// moved out of the parser, not copied: what the server reads of them (Expect, keep-alive) it reads
// before.
Request request_from(bhttp::request_parser<bhttp::string_body>& parser, const tcp::endpoint& peer) {
  auto& msg = parser.get();
  Request req;
  req.method = msg.method();
  req.method_name = std::string(msg.method_string());
  req.target = std::string(msg.target());
  const auto [path, raw_query] = split_target(req.target);
  req.path = std::string(path);
  auto query = parse_query(raw_query);
  req.malformed_query = !query.has_value();
  if (query) req.query = std::move(*query);
  req.headers = std::move(static_cast<bhttp::fields&>(msg.base()));
  req.remote_address = peer.address().to_string();
  return req;
}

using RequestParser = bhttp::request_parser<bhttp::string_body>;

// The body of a streamed route (Router::BodyGate::stream), read from the connection as the handler
// asks for it: each read's bytes are moved out of the parser's body, which starts empty again.
class ParserBodyStream final : public BodyStream {
 public:
  ParserBodyStream(beast::tcp_stream& stream, beast::flat_buffer& buffer, RequestParser& parser,
                   std::chrono::steady_clock::duration read_timeout, std::size_t limit)
      : stream_(stream), buffer_(buffer), parser_(parser), read_timeout_(read_timeout), limit_(limit) {}

  awaitable<std::optional<std::string>> next() override {
    for (;;) {
      auto& body = parser_.get().body();
      if (!body.empty()) {
        std::string piece = std::move(body);
        body.clear();
        co_return piece;
      }
      if (parser_.is_done()) co_return std::nullopt;
      beast::error_code ec;
      stream_.expires_after(read_timeout_);
      co_await bhttp::async_read_some(stream_, buffer_, parser_, asio::redirect_error(use_awaitable, ec));
      stream_.expires_never();
      if (ec == bhttp::error::body_limit)
        throw Problem(Status::payload_too_large, "body-too-large",
                      "the request body exceeds " + std::to_string(limit_) + " bytes");
      if (ec) throw Problem::bad_request("the request body ended before it was complete");
    }
  }

 private:
  beast::tcp_stream& stream_;
  beast::flat_buffer& buffer_;
  RequestParser& parser_;
  std::chrono::steady_clock::duration read_timeout_;
  std::size_t limit_;
};

}  // namespace

awaitable<void> Server::serve(tcp::socket socket, std::shared_ptr<Connection> conn,
                              std::shared_ptr<async::Bounds> bounds) {
  beast::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  // Non-blocking, so that the response's synchronous write (below) returns would_block, not waits.
  if (socket.non_blocking(true, ec); ec) co_return;
  beast::tcp_stream stream(std::move(socket));
  conn->stream = &stream;
  beast::flat_buffer buffer;

  while (!stopping_) {
    conn->busy = false;
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options_.header_limit));
    // A gated route may take more than body_limit: the header may announce up to its limit.
    const std::size_t announced_limit =
        std::max(options_.body_limit, options_.body_gates ? options_.body_gates->largest_gated_body() : 0);
    parser.body_limit(announced_limit);
    std::size_t limit = options_.body_limit;

    // The idle timeout runs until the request's first byte, the header timeout from there to the
    // header's end (bytes of a pipelined request may be in the buffer already).
    stream.expires_after(options_.idle_timeout);
    if (buffer.size() == 0) {
      const auto got = co_await stream.async_read_some(buffer.prepare(4096), asio::redirect_error(use_awaitable, ec));
      buffer.commit(got);
      if (ec) break;  // closed by the peer, idle timeout, or closed to make room at the cap
    }
    stream.expires_after(options_.header_timeout);
    // The whole header is nearly always in the buffer by now: parsed here, without a composed read
    // (whose completion would be one more trip through the scheduler, often waking the other I/O
    // thread). A header not complete yet (need_more) is read on as before.
    if (buffer.size() > 0) {
      buffer.consume(parser.put(buffer.data(), ec));
      if (ec == bhttp::error::need_more) ec = {};
    }
    if (!ec && !parser.is_header_done())
      co_await bhttp::async_read_header(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
    conn->busy = !ec;
    const bool asks_keep_alive = !ec && parser.get().keep_alive();
    const bool expects_continue = !ec && iequals(parser.get()[bhttp::field::expect], "100-continue");
    *bounds = options_.request_bounds;  // a route that lifted them did so for its own request only
    std::optional<Problem> early;
    std::exception_ptr gate_failure;
    bool streamed = false;  // the handler reads the body (ParserBodyStream)
    const Router::BodyGate* gate = nullptr;
    Request req;
    const auto too_large = [&] {
      return Problem(Status::payload_too_large, "body-too-large",
                     "the request body exceeds " + std::to_string(limit) + " bytes");
    };
    if (ec == bhttp::error::header_limit) {
      early.emplace(Status::request_header_fields_too_large, "header-too-large",
                    "the request header exceeds " + std::to_string(options_.header_limit) + " bytes");
    } else if (ec == bhttp::error::body_limit) {
      early.emplace(too_large());
    } else if (ec) {
      break;  // closed by the peer, idle timeout, or a request we cannot parse
    } else {
      req = request_from(parser, peer);
      // A gated route admits the caller before its body is read (Router::gate_body).
      gate = options_.body_gates ? options_.body_gates->body_gate(req) : nullptr;
      if (gate) {
        limit = gate->limit;
        try {
          co_await gate->admit(req);
        } catch (const Problem& refused) {
          early.emplace(refused);
        } catch (...) {  // the database, say: the pipeline maps it as a handler's (503, 500), body unread
          gate_failure = std::current_exception();
        }
      }
      const auto length = parser.content_length();
      if (!early && !gate_failure && length && *length > limit) early.emplace(too_large());
      if (!early && !gate_failure) {
        parser.body_limit(limit);
        if (expects_continue) {
          bhttp::response<bhttp::empty_body> cont{Status::continue_, 11};
          co_await bhttp::async_write(stream, cont, asio::redirect_error(use_awaitable, ec));
          if (ec) break;
        }
        if (gate && gate->stream) {
          streamed = true;
        } else if (!parser.is_done()) {  // a request without a body is complete with its header
          stream.expires_after(options_.read_timeout);
          co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
          if (ec == bhttp::error::body_limit) {
            early.emplace(too_large());
          } else if (ec) {
            break;
          }
        }
      }
    }

    if (req.method == Verb::unknown && req.method_name.empty()) req = request_from(parser, peer);
    bool keep_alive = !early && !gate_failure && asks_keep_alive;
    Response res;
    stream.expires_never();  // the handler may take its time; the write has its own timeout
    if (gate_failure) {
      const Handler rethrow = [gate_failure](Request&) -> awaitable<Response> { std::rethrow_exception(gate_failure); };
      res = co_await pipeline_.run(req, rethrow);
    } else if (early) {
      res = co_await reject(req, std::move(*early));
    } else if (streamed) {
      ParserBodyStream body(stream, buffer, parser, options_.read_timeout, limit);
      req.body_stream = &body;
      res = co_await handle(req);
      req.body_stream = nullptr;
      if (!parser.is_done()) keep_alive = false;  // the rest of the body is not read: close
    } else {
      req.body = std::move(parser.get().body());
      res = co_await handle(req);
    }
    if (stopping_) keep_alive = false;
    if (options_.observe) options_.observe(req, res);

    bhttp::response<bhttp::string_body> out{res.status, parser.get().version()};
    static_cast<bhttp::fields&>(out.base()) = std::move(res.headers);  // every field, a repeated Set-Cookie too
    out.body() = std::move(res.body);
    out.keep_alive(keep_alive);
    if (out.find(bhttp::field::content_length) == out.end() || !out.body().empty()) out.prepare_payload();
    // The response nearly always fits the socket's send buffer: written at once (the socket is
    // non-blocking), without a composed write whose completion is one more trip through the
    // scheduler. What does not fit is written on asynchronously, under the write timeout.
    bhttp::response_serializer<bhttp::string_body> serializer(out);
    bhttp::write(stream.socket(), serializer, ec);
    if (ec == asio::error::would_block) {
      ec = {};
      stream.expires_after(options_.write_timeout);
      co_await bhttp::async_write(stream, serializer, asio::redirect_error(use_awaitable, ec));
    }
    if (ec || !keep_alive) break;
  }
  conn->busy = false;
  conn->stream = nullptr;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

void Server::for_each_connection(const std::function<void(Connection&)>& action) {
  std::vector<std::shared_ptr<Connection>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [_, c] : connections_) all.push_back(c);
  }
  for (auto& c : all) asio::post(c->strand, [c, action] { action(*c); });
}

awaitable<void> Server::stop() {
  stopping_ = true;
  beast::error_code ec;
  acceptor_.close(ec);
  // Idle connections are waiting for a header that may never come: close them now. A busy one
  // sees `stopping_` after writing its response.
  for_each_connection([](Connection& c) {
    if (!c.busy && c.stream) c.stream->cancel();
  });

  asio::steady_timer timer(executor_);
  const auto deadline = std::chrono::steady_clock::now() + options_.shutdown_timeout;
  while ((accepting_ || open_connections() > 0) && std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(std::chrono::milliseconds(10));
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  if (const auto left = open_connections(); left > 0 || accepting_) {
    log::warn("shutdown deadline reached; closing connections", {{"open", left}});
    for_each_connection([](Connection& c) {
      if (c.stream) c.stream->close();
    });
    // A handler still running keeps its connection's coroutine (which refers to this server)
    // alive until it returns; its response can no longer be written. Wait for all of them, so
    // the server may be destroyed when stop() completes.
    auto next_report = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (accepting_ || open_connections() > 0) {
      timer.expires_after(std::chrono::milliseconds(10));
      co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
      if (std::chrono::steady_clock::now() >= next_report) {
        log::warn("still waiting for handlers to return", {{"open", open_connections()}});
        next_report += std::chrono::seconds(5);
      }
    }
  }
}

}  // namespace core::http
