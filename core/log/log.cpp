#include "core/log/log.hpp"

#include "core/util/secrets.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <iterator>
#include <mutex>
#include <thread>

namespace core::log {
namespace {

// Lines go to stderr in batches: one write(2) for many lines instead of one each, which is most of
// what an access-log line cost a request (bench/RESULTS.md). A line at warn or error writes out the
// batch at once (with the lines before it, in order); otherwise a batch waits at most kFlushAfter,
// or until it holds kBatchBytes. Lost on a crash: the info lines of the last kFlushAfter at most.
class BatchedStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  static constexpr std::size_t kBatchBytes = 64 * 1024;
  static constexpr auto kFlushAfter = std::chrono::milliseconds(100);

  BatchedStderrSink() : flusher_([this] { flush_when_due(); }) {}
  ~BatchedStderrSink() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    due_.notify_one();
    flusher_.join();
    write_out();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const bool was_empty = batch_.empty();
    batch_.append(msg.payload.data(), msg.payload.size());
    batch_ += '\n';
    if (msg.level >= spdlog::level::warn || batch_.size() >= kBatchBytes)
      write_out();
    else if (was_empty)
      due_.notify_one();
  }
  void flush_() override { write_out(); }

 private:
  // Under mutex_ (or alone, in the destructor). A failed write drops the batch: logging never
  // blocks or fails a request.
  void write_out() {
    std::size_t done = 0;
    while (done < batch_.size()) {
      const ssize_t n = ::write(STDERR_FILENO, batch_.data() + done, batch_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    batch_.clear();
  }

  void flush_when_due() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      due_.wait(lock, [&] { return stopping_ || !batch_.empty(); });
      if (stopping_) break;
      due_.wait_for(lock, kFlushAfter, [&] { return stopping_; });
      write_out();
    }
  }

  std::string batch_;
  bool stopping_ = false;
  std::condition_variable due_;
  std::thread flusher_;
};

spdlog::level::level_enum spdlog_level(Level l) {
  switch (l) {
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

struct State {
  std::mutex mutex;
  std::string service = "unnamed";
  Level threshold = Level::info;
  std::shared_ptr<spdlog::logger> logger;
};

State& state() {
  static State s;
  return s;
}

// Appends "2026-11-21T10:00:00.123Z". The part up to the seconds is formatted once per second per
// thread; the rest is three digits, with no allocation (the access log writes one per request).
void append_utc_now(std::string& out) {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  thread_local std::time_t cached_secs = -1;
  thread_local char cached[32];
  thread_local std::size_t cached_size = 0;
  if (secs != cached_secs) {
    std::tm tm{};
    gmtime_r(&secs, &tm);
    cached_size = std::strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
    cached_secs = secs;
  }
  const char fraction[] = {'.', static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                           static_cast<char>('0' + ms % 10), 'Z'};
  out.append(cached, cached_size).append(fraction, sizeof fraction);
}

std::string utc_now() {
  std::string out;
  append_utc_now(out);
  return out;
}

// Under the state's mutex.
spdlog::logger& logger_of(State& s) {
  if (!s.logger) {
    s.logger = std::make_shared<spdlog::logger>("json", std::make_shared<BatchedStderrSink>());
    s.logger->set_level(spdlog::level::trace);  // the threshold is State's
  }
  return *s.logger;
}

// The logger when `level` passes the threshold (and the service name), else null.
std::shared_ptr<spdlog::logger> logger_if(Level level, std::string* service) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (level < s.threshold) return nullptr;
  logger_of(s);
  *service = s.service;
  return s.logger;
}

constexpr const char* level_name(Level l) {
  switch (l) {
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warn:
      return "warn";
    case Level::error:
      return "error";
  }
  return "info";
}

}  // namespace

void init(std::string_view service, Level threshold) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.service = service;
  s.threshold = threshold;
  logger_of(s);
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::debug, Level::info, Level::warn, Level::error})
    if (name == level_name(l)) return l;
  return std::nullopt;
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {  // control characters, and bytes outside ASCII (never trusted as UTF-8)
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void access(const AccessEntry& e) {
  std::string service;
  const auto logger = logger_if(Level::info, &service);
  if (!logger) return;
  std::string line;
  line.reserve(256);
  line += "{\"service\":";
  append_json_string(line, service);
  line += ",\"ts\":\"";
  append_utc_now(line);
  line += "\",\"level\":\"info\",\"msg\":\"request\",\"method\":";
  append_json_string(line, e.method);
  line += ",\"path\":";
  append_json_string(line, e.path);
  // std::to_chars, not printf: the same digits ("%.3f"), without the locale and format parsing.
  char number[320];  // room for any double with three decimals
  line += ",\"status\":";
  line.append(number, std::to_chars(std::begin(number), std::end(number), e.status).ptr);
  line += ",\"duration_ms\":";
  line.append(number,
              std::to_chars(std::begin(number), std::end(number), e.duration_ms, std::chars_format::fixed, 3).ptr);
  line += ",\"request_id\":";
  append_json_string(line, e.request_id);
  line += ",\"remote\":";
  append_json_string(line, e.remote);
  line += '}';
  // Masked too: a path or a request id is the caller's text, and may carry a secret (a few finds
  // over a short line, with no lock: core/util/secrets.hpp).
  logger->info(core::secrets::mask(std::move(line)));
}

void write(Level level, std::string_view msg, nlohmann::json fields) {
  std::string service;
  const auto logger = logger_if(level, &service);
  if (!logger) return;
  nlohmann::json line = nlohmann::json::object();
  line["service"] = service;
  line["ts"] = utc_now();
  line["level"] = level_name(level);
  line["msg"] = msg;
  // A field named like one of the line's own keys would replace it (a "level" field turning a
  // warning into something a log shipper files elsewhere): it is kept as field_<name> instead.
  if (fields.is_object())
    for (auto& [k, v] : fields.items()) line[line.contains(k) ? "field_" + k : k] = std::move(v);
  // Masked whole: a secret may sit in the message or in any field (core/util/secrets.hpp).
  logger->log(spdlog_level(level),
              core::secrets::mask(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

void flush() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.logger) s.logger->flush();
}

}  // namespace core::log
