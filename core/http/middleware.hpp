#pragma once
// The middleware chain, built once at start-up and run for every request, early errors (413,
// 431) included:
//
//   Pipeline pipeline{request_id(), access_log(), problems(), <service middleware>...};
//   co_await pipeline.run(req, router);
//
// A middleware gets the request and `next` (the rest of the chain and the endpoint).
#include "core/http/message.hpp"

#include <vector>

namespace core::http {

using Middleware = std::function<boost::asio::awaitable<Response>(Request&, const Handler& next)>;

class Pipeline {
 public:
  Pipeline() = default;
  Pipeline(std::initializer_list<Middleware> mw) : middleware_(mw) {}
  void add(Middleware m) { middleware_.push_back(std::move(m)); }

  boost::asio::awaitable<Response> run(Request& req, const Handler& endpoint) const;

 private:
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
