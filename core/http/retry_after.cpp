#include "core/http/retry_after.hpp"

#include "core/util/strings.hpp"

#include <ctime>
#include <string>

namespace core::http {

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    const auto secs = parse_int64(value);
    if (!secs || *secs > 365LL * 24 * 3600) return std::nullopt;
    return std::chrono::seconds(*secs);
  }
  // IMF-fixdate, the only form senders may generate: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  const std::string text(value);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  const auto when = std::chrono::system_clock::from_time_t(timegm(&tm));
  if (when <= now) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(when - now);
}

}  // namespace core::http
