#pragma once
// Structured logging: one JSON object per line on stderr, e.g.
//   {"ts":"2026-11-21T10:00:00.123Z","level":"info","service":"mail-triage","msg":"listening","port":8080}
#include <nlohmann/json.hpp>

#include <string_view>

namespace core::log {

enum class Level { debug, info, warn, error };

// Names the service in every line and sets the threshold. Safe to call again (tests do).
void init(std::string_view service, Level threshold = Level::info);
std::optional<Level> parse_level(std::string_view name);

// Lines are written to stderr in batches: a warn or error line at once (with every line before
// it), others within 100 ms. flush() writes out what waits (a test reading the log calls it).
void flush();

void write(Level level, std::string_view msg, nlohmann::json fields = nlohmann::json::object());
inline void debug(std::string_view m, nlohmann::json f = nlohmann::json::object()) {
  write(Level::debug, m, std::move(f));
}
inline void info(std::string_view m, nlohmann::json f = nlohmann::json::object()) {
  write(Level::info, m, std::move(f));
}
inline void warn(std::string_view m, nlohmann::json f = nlohmann::json::object()) {
  write(Level::warn, m, std::move(f));
}
inline void error(std::string_view m, nlohmann::json f = nlohmann::json::object()) {
  write(Level::error, m, std::move(f));
}

// The access-log line, on the hot path of every request: written without building a JSON
// object (same shape as write(): ts, level, service, msg "request", then these fields).
struct AccessEntry {
  std::string_view method;
  std::string_view path;
  unsigned status;
  double duration_ms;
  std::string_view request_id;
  std::string_view remote;
};
void access(const AccessEntry& entry);

// Appends `text` to `out` as a JSON string literal (quotes included), escaping as RFC 8259 asks.
void append_json_string(std::string& out, std::string_view text);

}  // namespace core::log
