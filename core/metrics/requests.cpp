#include "core/metrics/requests.hpp"

namespace core::metrics {

namespace {

using boost::beast::http::verb;

constexpr std::string_view kRequestMethodNames[] = {"GET",   "HEAD",   "POST",    "PUT",
                                                    "PATCH", "DELETE", "OPTIONS", "other"};
constexpr std::string_view kStatusClassNames[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};

std::size_t request_method_index(verb method) {
  switch (method) {
    case verb::get:
      return 0;
    case verb::head:
      return 1;
    case verb::post:
      return 2;
    case verb::put:
      return 3;
    case verb::patch:
      return 4;
    case verb::delete_:
      return 5;
    case verb::options:
      return 6;
    default:
      return 7;
  }
}

}  // namespace

RequestMetrics::Series::Series() : latency(latency_buckets()) {}

RequestMetrics::RequestMetrics(std::vector<std::string> routes)
    : routes_(std::move(routes)),
      slots_count_((routes_.size() + 1) * kMethods),
      slots_(std::make_unique<std::atomic<Series*>[]>(slots_count_)) {}

RequestMetrics::~RequestMetrics() {
  for (std::size_t i = 0; i < slots_count_; ++i) delete slots_[i].load();
}

RequestMetrics::Series& RequestMetrics::series(std::size_t slot) {
  Series* s = slots_[slot].load(std::memory_order_acquire);
  if (s) return *s;
  auto fresh = std::make_unique<Series>();
  if (slots_[slot].compare_exchange_strong(s, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
  return *s;  // another thread's came first
}

void RequestMetrics::observe(int route, verb method, unsigned status, double seconds) {
  const std::size_t r = route < 0 || static_cast<std::size_t>(route) >= routes_.size() ? 0 : route + 1;
  auto& s = series(r * kMethods + request_method_index(method));
  const std::size_t c = status < 100 ? 4 : std::min<std::size_t>(status / 100 - 1, kClasses - 1);
  s.by_class[c].fetch_add(1, std::memory_order_relaxed);
  s.latency.observe(seconds);
}

void RequestMetrics::register_in(Registry& registry) {
  const auto labels_of = [this](std::size_t slot) {
    const std::size_t r = slot / kMethods;
    return Labels{{"method", std::string(kRequestMethodNames[slot % kMethods])},
                  {"route", r == 0 ? std::string("unmatched") : routes_[r - 1]}};
  };
  registry.callback("http_requests_total",
                    "HTTP requests answered on the public port, by method, route template and status class",
                    Type::counter, [this, labels_of](Samples& out) {
                      for (std::size_t i = 0; i < slots_count_; ++i) {
                        const Series* s = slots_[i].load(std::memory_order_acquire);
                        if (!s) continue;
                        for (std::size_t c = 0; c < kClasses; ++c) {
                          const auto n = s->by_class[c].load(std::memory_order_relaxed);
                          if (n == 0) continue;
                          auto labels = labels_of(i);
                          labels.emplace_back("status", std::string(kStatusClassNames[c]));
                          out.add(std::move(labels), static_cast<double>(n));
                        }
                      }
                    });
  registry.callback("http_request_duration_seconds",
                    "Time from a request's header read to its answer being handed to the socket, by method and "
                    "route template",
                    Type::histogram, [this, labels_of](Samples& out) {
                      for (std::size_t i = 0; i < slots_count_; ++i)
                        if (const Series* s = slots_[i].load(std::memory_order_acquire))
                          out.add(labels_of(i), s->latency);
                    });
}

}  // namespace core::metrics
