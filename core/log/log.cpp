#include "core/log/log.hpp"

#include "core/util/secrets.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <mutex>

namespace core::log {
namespace {

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

// "2026-11-21T10:00:00.123Z". The part up to the seconds is formatted once per second per thread.
std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  thread_local std::time_t cached_secs = -1;
  thread_local char cached[32];
  if (secs != cached_secs) {
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
    cached_secs = secs;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s.%03dZ", cached, static_cast<int>(ms));
  return buf;
}

// Under the state's mutex.
spdlog::logger& logger_of(State& s) {
  if (!s.logger) {
    s.logger = std::make_shared<spdlog::logger>("json", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    s.logger->set_pattern("%v");
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
  line += ",\"ts\":\"" + utc_now() + "\",\"level\":\"info\",\"msg\":\"request\",\"method\":";
  append_json_string(line, e.method);
  line += ",\"path\":";
  append_json_string(line, e.path);
  char numbers[64];
  std::snprintf(numbers, sizeof numbers, ",\"status\":%u,\"duration_ms\":%.3f", e.status, e.duration_ms);
  line += numbers;
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
  if (fields.is_object())
    for (auto& [k, v] : fields.items()) line[k] = std::move(v);
  // Masked whole: a secret may sit in the message or in any field (core/util/secrets.hpp).
  logger->info(core::secrets::mask(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

}  // namespace core::log
