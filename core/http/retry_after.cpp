#include "core/http/retry_after.hpp"

#include "core/util/strings.hpp"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>

namespace core::http {

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    const auto secs = parse_int64(value);
    if (!secs || *secs > kMaxRetryAfterSeconds) return std::nullopt;
    return std::chrono::seconds(*secs);
  }
  // IMF-fixdate, the only form senders may generate: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  const std::string text(value);
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  // In seconds: a far date (year 4054) does not fit system_clock's nanoseconds, and converting it
  // overflowed (undefined; fuzz_retry_after, fuzz/corpus/retry_after/regression-year-4054). A
  // date more than a year away is refused, as delay-seconds over a year are.
  using namespace std::chrono;
  const std::int64_t when = timegm(&tm);
  const auto now_ms = duration_cast<milliseconds>(now.time_since_epoch()).count();
  const std::int64_t now_s = now_ms / 1000;
  if (when > now_s + kMaxRetryAfterSeconds) return std::nullopt;
  if (when <= now_s) return milliseconds(0);
  return milliseconds(std::max<std::int64_t>(0, when * 1000 - now_ms));
}

}  // namespace core::http
