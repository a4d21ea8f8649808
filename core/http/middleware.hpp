#pragma once
// The middleware chain, built once at start-up and run for every request, early errors (413,
// 431) included:
//
//   Pipeline pipeline{request_id(), access_log(), problems(), <service middleware>...};
//   co_await pipeline.run(req, router);
//
// A middleware gets the request and `next` (the rest of the chain and the endpoint), by value:
//
//   [](Request& req, Next next) -> awaitable<Response> { ...; co_return co_await next(req); }
#include "core/http/message.hpp"

#include <vector>

namespace core::http {

class Pipeline;

// The rest of the chain after a middleware: three words, kept in the middleware's own coroutine
// frame (so a step of the chain is one frame, not two). Move-only, so that it cannot turn into a
// `const Handler&` parameter by accident: that would be a temporary std::function, gone before the
// middleware's coroutine first runs.
class Next {
 public:
  Next(Next&&) noexcept = default;
  Next(const Next&) = delete;
  Next& operator=(const Next&) = delete;
  boost::asio::awaitable<Response> operator()(Request& req) const;

 private:
  friend class Pipeline;
  Next(const Pipeline* pipeline, std::size_t i, const Handler* endpoint)
      : pipeline_(pipeline), i_(i), endpoint_(endpoint) {}
  const Pipeline* pipeline_;
  std::size_t i_;
  const Handler* endpoint_;
};

using Middleware = std::function<boost::asio::awaitable<Response>(Request&, Next next)>;

class Pipeline {
 public:
  Pipeline() = default;
  Pipeline(std::initializer_list<Middleware> mw) : middleware_(mw) {}
  void add(Middleware m) { middleware_.push_back(std::move(m)); }

  // `endpoint` lives until the returned awaitable has completed.
  boost::asio::awaitable<Response> run(Request& req, const Handler& endpoint) const;

 private:
  friend class Next;
  boost::asio::awaitable<Response> step(std::size_t i, Request& req, const Handler& endpoint) const;
  std::vector<Middleware> middleware_;
};

// Keeps a well-formed X-Request-Id from the caller (1-128 of [A-Za-z0-9._:-]) or makes one
// (a random per-process prefix and a counter); echoes it on the response.
Middleware request_id();

// One JSON log line per request: method, path (no query: it may carry secrets), status,
// duration_ms, request_id, remote address.
Middleware access_log();

// Maps every failure to RFC 9457 problem+json: a thrown Problem as is; database unavailable or
// timed out → 503; anything else → 500 with a generic detail and the request id (the real error
// is logged). An error response (>= 400) a handler built without a body gets a problem body too.
Middleware problems();

// Refuses a state-changing request (any method but GET, HEAD and OPTIONS) that a browser sent
// from another site: 403 when its `Origin` names another host than the request's `Host` (or the
// `X-Forwarded-Host` a proxy in front set), or is `null`, or when `Sec-Fetch-Site` says
// `cross-site`. Defence in depth beside SameSite cookies; programs that send no Origin (webhook
// senders, curl) pass. Runs before routing, so a refused request reaches no guard or handler.
Middleware same_origin_writes();

// The host[:port] of an Origin header value ("https://console.example:8443" →
// "console.example:8443"); empty when it is no http(s) origin. A default port is dropped.
std::string origin_authority(std::string_view origin);

}  // namespace core::http
