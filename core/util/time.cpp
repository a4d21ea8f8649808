#include "core/util/time.hpp"

#include <cstdint>
#include <cstdio>

namespace core {

namespace {

// Reads exactly `width` digits at `pos`, advancing it.
bool digits(std::string_view s, std::size_t& pos, int width, int& out) {
  if (pos + width > s.size()) return false;
  out = 0;
  for (int i = 0; i < width; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  pos += width;
  return true;
}

bool literal(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<Timestamp> parse_rfc3339(std::string_view s) {
  using namespace std::chrono;
  std::size_t pos = 0;
  int y, mo, d, h, mi, sec;
  if (!digits(s, pos, 4, y) || !literal(s, pos, '-') || !digits(s, pos, 2, mo) || !literal(s, pos, '-') ||
      !digits(s, pos, 2, d))
    return std::nullopt;
  if (pos >= s.size() || (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ')) return std::nullopt;
  ++pos;
  if (!digits(s, pos, 2, h) || !literal(s, pos, ':') || !digits(s, pos, 2, mi) || !literal(s, pos, ':') ||
      !digits(s, pos, 2, sec))
    return std::nullopt;

  std::int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (n < 6) micros = micros * 10 + (s[pos] - '0');
      ++n;
      ++pos;
    }
    if (n == 0) return std::nullopt;
    for (; n < 6; ++n) micros *= 10;
  }

  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!digits(s, pos, 2, oh) || !literal(s, pos, ':') || !digits(s, pos, 2, om)) return std::nullopt;
    if (oh > 23 || om > 59) return std::nullopt;
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;

  const year_month_day date{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (y < 1 || !date.ok() || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  return Timestamp{sys_days{date}} + hours{h} + minutes{mi} + seconds{sec} + microseconds{micros} -
         minutes{offset_minutes};
}

std::string format_rfc3339(Timestamp t) {
  using namespace std::chrono;
  const auto day_start = floor<days>(t);
  const year_month_day date{day_start};
  const hh_mm_ss<microseconds> time{t - day_start};
  char out[40];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT%02d:%02d:%02d.%06lldZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()), static_cast<long long>(time.subseconds().count()));
  return out;
}

}  // namespace core
