#pragma once
// The HTTP request figures of one service: http_requests_total{method, route, status} and
// http_request_duration_seconds{method, route} (docs/metrics.md).
//
// `route` is the template of the route that answered (Router: RouteInfo::path), or "unmatched" for
// a request no route took (404, 405, an early 413/431): never the raw path. The series of a
// (route, method) pair are allocated on its first request and found by index afterwards, so
// observe() takes no lock: an array index, a few relaxed atomic adds and a bucket search.
#include "core/metrics/metrics.hpp"

#include <boost/beast/http/verb.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace core::metrics {

class RequestMetrics {
 public:
  static constexpr int kUnmatched = -1;

  // `routes`: the templates by route index (Router::routes()), fixed from now on.
  explicit RequestMetrics(std::vector<std::string> routes);
  ~RequestMetrics();
  RequestMetrics(const RequestMetrics&) = delete;
  RequestMetrics& operator=(const RequestMetrics&) = delete;

  // One answered request: `route` is its index in `routes`, or kUnmatched.
  void observe(int route, boost::beast::http::verb method, unsigned status, double seconds);

  // Adds both metrics to `registry` (callbacks reading this object, which must outlive it).
  void register_in(Registry& registry);

 private:
  static constexpr std::size_t kMethods = 8;  // GET HEAD POST PUT PATCH DELETE OPTIONS other
  static constexpr std::size_t kClasses = 5;  // 1xx .. 5xx
  struct Series {
    Series();
    std::atomic<std::uint64_t> by_class[kClasses] = {};
    Histogram latency;
  };
  Series& series(std::size_t slot);

  std::vector<std::string> routes_;
  std::size_t slots_count_;
  std::unique_ptr<std::atomic<Series*>[]> slots_;  // (route + 1) * kMethods + method
};

}  // namespace core::metrics
