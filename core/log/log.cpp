#include "core/log/log.hpp"

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

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

constexpr const char* level_name(Level l) {
  switch (l) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warn: return "warn";
    case Level::error: return "error";
  }
  return "info";
}

}  // namespace

void init(std::string_view service, Level threshold) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.service = service;
  s.threshold = threshold;
  if (!s.logger) {
    s.logger = std::make_shared<spdlog::logger>("json", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    s.logger->set_pattern("%v");
    s.logger->flush_on(spdlog::level::trace);
  }
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::debug, Level::info, Level::warn, Level::error})
    if (name == level_name(l)) return l;
  return std::nullopt;
}

void write(Level level, std::string_view msg, nlohmann::json fields) {
  auto& s = state();
  std::shared_ptr<spdlog::logger> logger;
  nlohmann::json line = nlohmann::json::object();
  {
    std::lock_guard lock(s.mutex);
    if (level < s.threshold) return;
    if (!s.logger) {
      s.logger = std::make_shared<spdlog::logger>("json", std::make_shared<spdlog::sinks::stderr_sink_mt>());
      s.logger->set_pattern("%v");
    }
    logger = s.logger;
    line["service"] = s.service;
  }
  line["ts"] = utc_now();
  line["level"] = level_name(level);
  line["msg"] = msg;
  if (fields.is_object())
    for (auto& [k, v] : fields.items()) line[k] = std::move(v);
  logger->info(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace core::log
