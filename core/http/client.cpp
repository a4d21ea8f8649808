#include "core/http/client.hpp"

#include "core/async/blocking_pool.hpp"
#include "core/http/retry_after.hpp"
#include "core/metrics/metrics.hpp"
#include "core/util/strings.hpp"

#include <curl/curl.h>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <map>
#include <memory>
#include <random>

namespace core::http {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};

// libcurl (and OpenSSL under it) is initialised before the pool exists, so at exit the pool's
// threads are joined before OpenSSL cleans up: each thread's OpenSSL state is then freed.
async::BlockingPool& blocking_pool() {
  static CurlGlobal init;
  static async::BlockingPool pool(kMaxAttemptsInFlight, kIdleThreadLimit);
  return pool;
}

// One easy handle per pool thread: connections to the same host are reused across requests. A
// thread that ends (idle for kIdleThreadLimit) frees its handle, connections and buffers.
CURL* thread_handle() {
  thread_local std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), curl_easy_cleanup);
  curl_easy_reset(handle.get());
  return handle.get();
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* out) {
  auto* headers = static_cast<HeaderList*>(out);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) headers->clear();  // a new response (after 100 Continue or a redirect)
  const auto colon = line.find(':');
  if (colon != std::string_view::npos)
    headers->emplace_back(to_lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  return size * n;
}

struct Attempt {
  OutboundResponse response;
  std::string transport_error;  // set when no response arrived
  bool timed_out = false;       // ... because the attempt ran out of time
};

Attempt perform_blocking(const OutboundRequest& req, const ClientOptions& opt) {
  // Pinned addresses enter a handle's DNS cache and outlive the request: such a request gets a
  // handle of its own, so no later request on this thread inherits them.
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> own(req.resolve.empty() ? nullptr : curl_easy_init(),
                                                          curl_easy_cleanup);
  CURL* h = own ? own.get() : thread_handle();
  Attempt a;
  curl_slist* pins = nullptr;
  for (const auto& pin : req.resolve) pins = curl_slist_append(pins, pin.c_str());
  if (pins) curl_easy_setopt(h, CURLOPT_RESOLVE, pins);
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  if (req.method == "HEAD") curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_USERAGENT, opt.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout.value_or(opt.total_timeout).count()));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &a.response.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &a.response.headers);
  const CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  curl_slist_free_all(pins);
  if (rc != CURLE_OK) {
    a.transport_error = curl_easy_strerror(rc);
    a.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    return a;
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  a.response.status = static_cast<int>(status);
  return a;
}

// One attempt on the blocking pool; the caller's coroutine resumes on its own executor, which
// counts the attempt as outstanding work until then.
awaitable<Attempt> perform(const OutboundRequest& req, const ClientOptions& opt) {
  return asio::async_initiate<decltype(use_awaitable), void(Attempt)>(
      [&req, &opt](auto handler) {
        auto resume = std::make_shared<decltype(handler)>(std::move(handler));
        auto home = asio::prefer(asio::get_associated_executor(*resume), asio::execution::outstanding_work.tracked);
        blocking_pool().post([resume, home = std::move(home), &req, &opt]() mutable {
          asio::post(home, [resume, a = perform_blocking(req, opt)]() mutable { (*resume)(std::move(a)); });
        });
      },
      use_awaitable);
}

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS";
}

std::chrono::milliseconds backoff(const ClientOptions& opt, int retry) {
  thread_local std::mt19937 rng{std::random_device{}()};
  const auto exp = opt.base_backoff * (1LL << std::min(retry, 16));
  const auto capped = std::min<std::chrono::milliseconds>(exp, opt.max_backoff);
  std::uniform_int_distribution<long long> jitter(capped.count() / 2, capped.count());  // "equal jitter"
  return std::chrono::milliseconds(jitter(rng));
}

}  // namespace

bool is_retryable_status(int status) { return status == 429 || status == 502 || status == 503 || status == 504; }

std::string_view OutboundResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

nlohmann::json OutboundResponse::json() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error("HTTP " + std::to_string(status) + " response is not JSON");
  return j;
}

// The series of one integration, found once when the client is made.
struct Client::Counted {
  std::map<std::string, metrics::Counter*, std::less<>> by_outcome;
  metrics::Histogram* duration = nullptr;
};

namespace {

constexpr std::string_view kUpstreamOutcomes[] = {"ok", "4xx", "429", "5xx", "timeout", "error"};

std::string_view upstream_outcome_of(int status) {
  if (status == 429) return "429";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "ok";
}

metrics::Family<metrics::Counter>& upstream_calls(metrics::Registry& registry) {
  return registry.counter("upstream_requests_total",
                          "Calls to external systems, retries included, by integration and outcome (ok, 4xx, 429, "
                          "5xx, timeout, error)",
                          {"integration", "outcome"});
}

metrics::Family<metrics::Histogram>& upstream_durations(metrics::Registry& registry) {
  return registry.histogram("upstream_request_duration_seconds",
                            "How long calls to external systems took, retries included, by integration",
                            {"integration"}, metrics::latency_buckets());
}

}  // namespace

void declare_upstream_metrics(metrics::Registry& registry) {
  upstream_calls(registry);
  upstream_durations(registry);
}

Client::Client(asio::any_io_executor executor, ClientOptions options)
    : executor_(std::move(executor)), options_(std::move(options)) {
  auto& registry = metrics::process_registry();
  auto& calls = upstream_calls(registry);
  auto counted = std::make_shared<Counted>();
  for (auto outcome : kUpstreamOutcomes)
    counted->by_outcome.emplace(std::string(outcome), &calls.with({options_.integration, std::string(outcome)}));
  counted->duration = &upstream_durations(registry).with({options_.integration});
  counted_ = std::move(counted);
}

void Client::count(std::string_view outcome, std::chrono::steady_clock::time_point started) const {
  counted_->by_outcome.find(outcome)->second->inc();
  counted_->duration->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

awaitable<OutboundResponse> Client::send(OutboundRequest req) const {
  const bool retry_transport = req.retry_transport_errors.value_or(idempotent(req.method));
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::chrono::milliseconds> delays;
  for (int attempt = 0;; ++attempt) {
    Attempt a = co_await perform(req, options_);
    const bool last = attempt >= options_.max_retries;
    std::chrono::milliseconds delay{};
    if (!a.transport_error.empty()) {
      if (last || !retry_transport) {
        count(a.timed_out ? "timeout" : "error", started);
        throw TransportError(req.method + " " + req.url + " failed after " + std::to_string(attempt + 1) +
                             " attempt(s): " + a.transport_error);
      }
      delay = backoff(options_, attempt);
    } else if (!last &&
               (req.retry_status ? req.retry_status(a.response.status) : is_retryable_status(a.response.status)) &&
               (!req.retry_if || req.retry_if(a.response))) {
      const auto asked = parse_retry_after(a.response.header("retry-after"), std::chrono::system_clock::now());
      if (asked && *asked > options_.max_retry_after) {
        a.response.attempts = attempt + 1;
        a.response.retry_delays = delays;
        count(upstream_outcome_of(a.response.status), started);
        co_return a.response;  // the server asks for longer than we may wait: let the caller decide
      }
      delay = asked.value_or(backoff(options_, attempt));
    } else {
      a.response.attempts = attempt + 1;
      a.response.retry_delays = std::move(delays);
      count(upstream_outcome_of(a.response.status), started);
      co_return a.response;
    }
    delays.push_back(delay);
    asio::steady_timer timer(executor_, delay);
    co_await timer.async_wait(use_awaitable);
  }
}

// Not coroutines: the callee takes the empty list by value into its own frame.
awaitable<OutboundResponse> Client::get(std::string url) const { return get(std::move(url), HeaderList()); }

awaitable<OutboundResponse> Client::post_json(std::string url, const nlohmann::json& body) const {
  return post_json(std::move(url), body, HeaderList());
}

awaitable<OutboundResponse> Client::get(std::string url, HeaderList headers) const {
  headers.emplace_back("Accept", "application/json");
  OutboundRequest request{.method = "GET", .url = std::move(url), .headers = std::move(headers)};
  co_return co_await send(std::move(request));
}

awaitable<OutboundResponse> Client::post_json(std::string url, const nlohmann::json& body, HeaderList headers) const {
  headers.emplace_back("Accept", "application/json");
  headers.emplace_back("Content-Type", "application/json");
  OutboundRequest request{.method = "POST",
                          .url = std::move(url),
                          .headers = std::move(headers),
                          .body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  co_return co_await send(std::move(request));
}

}  // namespace core::http
