#pragma once
// Outbound HTTP on libcurl, for the clients of external systems.
//
//   core::http::Client client(executor, {.total_timeout = 20s});
//   OutboundRequest req{.method = "POST", .url = url, .body = body_json};
//   auto res = co_await client.send(std::move(req));
//   auto data = res.json();
//
// Each attempt runs on a shared pool of threads (libcurl's easy interface blocks; started as needed
// and ended when idle: core/async/blocking_pool.hpp), so the caller's
// I/O thread never waits on the network; the pool's size, kMaxAttemptsInFlight, bounds the
// attempts in flight across the whole process (more wait their turn). Responses 429, 502, 503 and 504 are retried up to
// `max_retries` times, after the Retry-After the server asked for (seconds or HTTP date) or else
// an exponential backoff with jitter; a Retry-After longer than `max_retry_after` is not waited
// for (the response is returned as is). Connection failures and timeouts are retried only for
// idempotent methods, unless the request says otherwise. Statuses are returned, never thrown:
// only a transport failure after the last attempt throws TransportError.
//
// Every send() is counted once, retries included, by the client's integration and its outcome: ok
// (below 400), 4xx, 429, 5xx, timeout or error (no answer), with its duration.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace core::metrics {
class Registry;
}

namespace core::http {

using namespace std::chrono_literals;

// Outbound attempts in flight at once, process-wide: the blocking pool's threads. A thread that
// waits on the network costs little, and concurrency settings of the services (LLM_CONCURRENCY,
// four Graph requests per mailbox) must fit under it, or they are silently capped.
inline constexpr std::size_t kMaxAttemptsInFlight = 64;
// A pool thread idle this long ends, with its curl handle (core/async/blocking_pool.hpp): after a
// burst, the process gives back what the burst's threads held.
inline constexpr std::chrono::seconds kIdleThreadLimit{30};

struct ClientOptions {
  std::chrono::milliseconds connect_timeout = 5s;
  std::chrono::milliseconds total_timeout = 30s;  // one attempt, connect to last byte
  int max_retries = 3;
  std::chrono::milliseconds base_backoff = 200ms;
  std::chrono::milliseconds max_backoff = 10s;
  std::chrono::milliseconds max_retry_after = 60s;
  std::string user_agent = "msp-tools/0.1";
  // The integration the client talks to ("psa", "backup", "llm"): the label of its calls in the
  // metrics (upstream_requests_total, upstream_request_duration_seconds; docs/metrics.md). A fixed
  // word of the code, never a URL or a host.
  std::string integration = "other";
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct OutboundRequest {
  std::string method = "GET";
  std::string url;
  HeaderList headers;
  std::string body;
  std::optional<std::chrono::milliseconds> timeout;  // overrides total_timeout
  std::optional<bool> retry_transport_errors;        // default: idempotent methods only
  // When set, also asked before a 429/502/503/504 is retried: false returns the response as is
  // (a 429 that means "quota exhausted" rather than "slow down", say).
  std::function<bool(const struct OutboundResponse&)> retry_if;
  // Which statuses are retried at all; unset: is_retryable_status (429, 502, 503, 504).
  std::function<bool(int status)> retry_status;
  // Pinned addresses, curl's CURLOPT_RESOLVE form "host:port:address[,address]": the request
  // connects only there, so a name checked before sending cannot resolve elsewhere meanwhile.
  std::vector<std::string> resolve;
};

struct OutboundResponse {
  int status = 0;
  HeaderList headers;  // names lowercased
  std::string body;
  int attempts = 1;
  std::vector<std::chrono::milliseconds> retry_delays;  // what was waited before each retry

  std::string_view header(std::string_view name) const;  // case-insensitive; empty if absent
  bool ok() const { return status >= 200 && status < 300; }
  // Parses the body; throws std::runtime_error naming the status when it is not JSON.
  nlohmann::json json() const;
};

// Declares the families every outside call is counted in (upstream_requests_total,
// upstream_request_duration_seconds; docs/metrics.md), as each Client does when it is made. A
// service declares them at start, so that its scrape names them before its first outside call,
// also when no client is configured (the dashboards' and alerts' queries then find 0, not nothing).
void declare_upstream_metrics(metrics::Registry& registry);

struct TransportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Client {
 public:
  explicit Client(boost::asio::any_io_executor executor, ClientOptions options = {});

  boost::asio::awaitable<OutboundResponse> send(OutboundRequest request) const;

  // JSON conveniences: set Accept (and Content-Type for a body) to application/json. Overloads,
  // not defaulted parameters: a coroutine takes none of class type (docs/conventions.md).
  boost::asio::awaitable<OutboundResponse> get(std::string url) const;
  boost::asio::awaitable<OutboundResponse> get(std::string url, HeaderList headers) const;
  boost::asio::awaitable<OutboundResponse> post_json(std::string url, const nlohmann::json& body) const;
  boost::asio::awaitable<OutboundResponse> post_json(std::string url, const nlohmann::json& body,
                                                     HeaderList headers) const;

  const ClientOptions& options() const { return options_; }

 private:
  struct Counted;
  void count(std::string_view outcome, std::chrono::steady_clock::time_point started) const;

  boost::asio::any_io_executor executor_;
  ClientOptions options_;
  std::shared_ptr<const Counted> counted_;
};

bool is_retryable_status(int status);

}  // namespace core::http
