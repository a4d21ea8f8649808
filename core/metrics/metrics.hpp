#pragma once
// Prometheus metrics: counters, gauges and histograms with fixed buckets, and the text exposition
// format 0.0.4 (docs/metrics.md lists every metric the services report).
//
//   auto& runs = registry.counter("job_runs_total", "Runs of a background job", {"job", "outcome"});
//   auto& ok = runs.with({"psa sync", "ok"});        // once, where the job is set up (a mutex)
//   ok.inc();                                       // on every run: one relaxed atomic add
//
//   registry.callback("db_pool_open_connections", "Open connections", Type::gauge,
//                     [&pool](Samples& out) { out.add({}, pool.stats().open); });   // read at scrape time
//
//   std::string text = registry.expose();
//
// Label sets are bounded: a family refuses more than `max_children` label sets (with() throws), so
// a caller that put a raw path or an id in a label would fail loudly in its tests instead of
// growing the scrape without end. Updating a metric never locks; only with() and expose() take the
// registry's mutex.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::metrics {

enum class Type { counter, gauge, histogram };

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void inc(double by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void inc(double by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  void dec(double by = 1) { value_.fetch_sub(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Upper bounds of buckets, ascending, without +Inf (which every histogram has).
using Buckets = std::vector<double>;
// Seconds, from a millisecond to ten seconds: requests, statements, upstream calls.
const Buckets& latency_buckets();
// Seconds, from ten milliseconds to ten minutes: background runs.
const Buckets& run_buckets();

class Histogram {
 public:
  explicit Histogram(const Buckets& bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Lock-free: a search of the bounds and three relaxed atomic adds.
  void observe(double value);

  struct Snapshot {
    std::vector<std::uint64_t> cumulative;  // per bound, then +Inf (== count)
    std::uint64_t count = 0;
    double sum = 0;
  };
  Snapshot snapshot() const;
  const Buckets& bounds() const { return bounds_; }

 private:
  Buckets bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bound, then +Inf; not cumulative
  std::atomic<double> sum_{0};
};

// What a callback (or a family) contributes at scrape time: its samples, in order.
class Samples {
 public:
  // `suffix` is appended to the metric's name ("_bucket", "_sum", "_count"; empty for the value).
  void add(Labels labels, double value, std::string_view suffix = {});
  // The _bucket, _sum and _count samples of a histogram.
  void add(const Labels& labels, const Histogram& histogram);

  struct Sample {
    std::string suffix;
    Labels labels;
    double value = 0;
  };
  const std::vector<Sample>& all() const { return samples_; }

 private:
  std::vector<Sample> samples_;
};

template <class T>
class Family {
 public:
  // The metric of these label values (in the order of the family's label names), created on
  // first use. Throws std::invalid_argument for the wrong number of values, std::length_error past
  // the family's cap.
  T& with(const std::vector<std::string>& values);
  // The metric without labels (a family declared with none).
  T& get() { return with({}); }

 private:
  friend class Registry;
  Family(std::vector<std::string> names, std::size_t max_children, std::function<std::unique_ptr<T>()> make,
         std::mutex& mutex)
      : names_(std::move(names)), max_children_(max_children), make_(std::move(make)), mutex_(mutex) {}
  void collect(Samples& out) const;

  std::vector<std::string> names_;
  std::size_t max_children_;
  std::function<std::unique_ptr<T>()> make_;
  std::mutex& mutex_;
  std::map<std::vector<std::string>, std::unique_ptr<T>> children_;
};

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  static constexpr std::size_t kDefaultMaxChildren = 200;

  // A name registered twice is the same family when its type and labels agree (two clients of one
  // integration share their counters); otherwise std::invalid_argument.
  Family<Counter>& counter(std::string name, std::string help, std::vector<std::string> labels = {},
                           std::size_t max_children = kDefaultMaxChildren);
  Family<Gauge>& gauge(std::string name, std::string help, std::vector<std::string> labels = {},
                       std::size_t max_children = kDefaultMaxChildren);
  Family<Histogram>& histogram(std::string name, std::string help, std::vector<std::string> labels,
                               const Buckets& buckets, std::size_t max_children = kDefaultMaxChildren);

  // A metric whose samples are read when scraped (a pool's figures, /proc/self). The callback
  // runs under the registry's mutex, on the scraping thread, and must not block.
  using Collect = std::function<void(Samples&)>;
  void callback(std::string name, std::string help, Type type, Collect collect);

  // Every metric in the text format 0.0.4, in the order registered.
  std::string expose() const;

 private:
  struct Entry {
    std::string name;
    std::string help;
    Type type;
    std::vector<std::string> labels;
    std::shared_ptr<void> family;  // the Family<T>, kept alive here
    Collect collect;
  };
  template <class T>
  Family<T>& family(std::string name, std::string help, Type type, std::vector<std::string> labels,
                    std::size_t max_children, std::function<std::unique_ptr<T>()> make);

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

// The registry of what belongs to the process rather than to one service instance: background job
// runs and upstream calls (core/async/schedule.cpp, core/http/client.cpp). A service's scrape
// shows it after the service's own registry.
Registry& process_registry();

// Text format helpers, exposed for tests.
std::string escape_help(std::string_view text);
std::string escape_label_value(std::string_view text);
std::string format_value(double value);
// Whether `name` is a valid metric or label name ([a-zA-Z_:][a-zA-Z0-9_:]*; labels without ':').
bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);

// The content type of the exposition.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace core::metrics
