#include "core/metrics/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace core::metrics {

const Buckets& latency_buckets() {
  static const Buckets buckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return buckets;
}

const Buckets& run_buckets() {
  static const Buckets buckets{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600};
  return buckets;
}

Histogram::Histogram(const Buckets& bounds)
    : bounds_(bounds), counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds.size() + 1)) {
  if (!std::is_sorted(bounds_.begin(), bounds_.end()) ||
      std::adjacent_find(bounds_.begin(), bounds_.end()) != bounds_.end())
    throw std::invalid_argument("histogram buckets must ascend");
}

void Histogram::observe(double value) {
  // The first bound >= value: Prometheus buckets are "less than or equal".
  const auto at = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  counts_[at].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.cumulative.reserve(bounds_.size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

void Samples::add(Labels labels, double value, std::string_view suffix) {
  samples_.push_back({std::string(suffix), std::move(labels), value});
}

void Samples::add(const Labels& labels, const Histogram& histogram) {
  const auto snap = histogram.snapshot();
  const auto& bounds = histogram.bounds();
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    Labels with_le = labels;
    with_le.emplace_back("le", i < bounds.size() ? format_value(bounds[i]) : "+Inf");
    add(std::move(with_le), static_cast<double>(snap.cumulative[i]), "_bucket");
  }
  add(labels, snap.sum, "_sum");
  add(labels, static_cast<double>(snap.count), "_count");
}

template <class T>
T& Family<T>::with(const std::vector<std::string>& values) {
  if (values.size() != names_.size())
    throw std::invalid_argument("a metric needs " + std::to_string(names_.size()) + " label values, got " +
                                std::to_string(values.size()));
  std::lock_guard lock(mutex_);
  auto it = children_.find(values);
  if (it != children_.end()) return *it->second;
  if (children_.size() >= max_children_)
    throw std::length_error("a metric family passed its cap of " + std::to_string(max_children_) + " label sets");
  return *children_.emplace(values, make_()).first->second;
}

namespace {

Labels labels_of_values(const std::vector<std::string>& names, const std::vector<std::string>& values) {
  Labels labels;
  labels.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) labels.emplace_back(names[i], values[i]);
  return labels;
}

void collect_one(Samples& out, const Labels& labels, const Counter& c) { out.add(labels, c.value()); }
void collect_one(Samples& out, const Labels& labels, const Gauge& g) { out.add(labels, g.value()); }
void collect_one(Samples& out, const Labels& labels, const Histogram& h) { out.add(labels, h); }

std::string_view metric_type_name(Type t) {
  switch (t) {
    case Type::counter:
      return "counter";
    case Type::gauge:
      return "gauge";
    case Type::histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

// Under the registry's mutex (expose()).
template <class T>
void Family<T>::collect(Samples& out) const {
  for (const auto& [values, metric] : children_) collect_one(out, labels_of_values(names_, values), *metric);
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

template <class T>
Family<T>& Registry::family(std::string name, std::string help, Type type, std::vector<std::string> labels,
                            std::size_t max_children, std::function<std::unique_ptr<T>()> make) {
  if (!valid_metric_name(name)) throw std::invalid_argument("invalid metric name: " + name);
  for (const auto& l : labels)
    if (!valid_label_name(l) || l.starts_with("__") || l == "le" || l == "quantile")
      throw std::invalid_argument("invalid label name for " + name + ": " + l);
  std::lock_guard lock(mutex_);
  for (auto& e : entries_) {
    if (e.name != name) continue;
    if (e.type != type || e.labels != labels || !e.family)
      throw std::invalid_argument("metric registered twice with another type or labels: " + name);
    return *static_cast<Family<T>*>(e.family.get());
  }
  std::shared_ptr<Family<T>> f(new Family<T>(labels, max_children, std::move(make), mutex_));
  Entry entry{std::move(name), std::move(help), type, std::move(labels), f, {}};
  entry.collect = [raw = f.get()](Samples& out) { raw->collect(out); };
  entries_.push_back(std::move(entry));
  return *f;
}

Family<Counter>& Registry::counter(std::string name, std::string help, std::vector<std::string> labels,
                                   std::size_t max_children) {
  return family<Counter>(std::move(name), std::move(help), Type::counter, std::move(labels), max_children,
                         [] { return std::make_unique<Counter>(); });
}

Family<Gauge>& Registry::gauge(std::string name, std::string help, std::vector<std::string> labels,
                               std::size_t max_children) {
  return family<Gauge>(std::move(name), std::move(help), Type::gauge, std::move(labels), max_children,
                       [] { return std::make_unique<Gauge>(); });
}

Family<Histogram>& Registry::histogram(std::string name, std::string help, std::vector<std::string> labels,
                                       const Buckets& buckets, std::size_t max_children) {
  Histogram check(buckets);  // refuses unordered buckets here, not at first use
  return family<Histogram>(std::move(name), std::move(help), Type::histogram, std::move(labels), max_children,
                           [buckets] { return std::make_unique<Histogram>(buckets); });
}

void Registry::callback(std::string name, std::string help, Type type, Collect collect) {
  if (!valid_metric_name(name)) throw std::invalid_argument("invalid metric name: " + name);
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e.name == name) throw std::invalid_argument("metric registered twice: " + name);
  entries_.push_back({std::move(name), std::move(help), type, {}, nullptr, std::move(collect)});
}

std::string Registry::expose() const {
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_) {
    Samples samples;
    e.collect(samples);
    out += "# HELP " + e.name + " " + escape_help(e.help) + "\n";
    out += "# TYPE " + e.name + " " + std::string(metric_type_name(e.type)) + "\n";
    for (const auto& s : samples.all()) {
      out += e.name;
      out += s.suffix;
      if (!s.labels.empty()) {
        out += '{';
        for (std::size_t i = 0; i < s.labels.size(); ++i) {
          if (i) out += ',';
          out += s.labels[i].first + "=\"" + escape_label_value(s.labels[i].second) + "\"";
        }
        out += '}';
      }
      out += ' ';
      out += format_value(s.value);
      out += '\n';
    }
  }
  return out;
}

Registry& process_registry() {
  static Registry registry;
  return registry;
}

namespace {

// The text format's escapes: backslash and newline; in label values also the double quote.
std::string exposition_escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\' || (quote && c == '"')) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_help(std::string_view text) { return exposition_escaped(text, false); }
std::string escape_label_value(std::string_view text) { return exposition_escaped(text, true); }

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);  // the shortest text that reads back
  return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

namespace {

bool metric_name_char(char c, bool first, bool colon) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

bool valid_metric_or_label_name(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!metric_name_char(name[i], i == 0, colon)) return false;
  return true;
}

}  // namespace

bool valid_metric_name(std::string_view name) { return valid_metric_or_label_name(name, true); }
bool valid_label_name(std::string_view name) { return valid_metric_or_label_name(name, false); }

}  // namespace core::metrics
