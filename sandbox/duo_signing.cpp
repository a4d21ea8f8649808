// Duo's request signing (duo_signing.hpp).
#include "sandbox/duo_signing.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace sandbox::duo {

namespace {}  // namespace

std::string canon_params(const Params& params) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const auto& [name, value] : params) encoded.emplace_back(core::url_encode(name), core::url_encode(value));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

std::string canon_x_duo_headers(std::vector<std::pair<std::string, std::string>> headers) {
  for (auto& [name, value] : headers) name = core::to_lower(name);
  std::sort(headers.begin(), headers.end());
  std::string joined;
  bool first = true;
  for (const auto& [name, value] : headers) {
    if (!first) joined += '\0';
    first = false;
    joined += name;
    joined += '\0';
    joined += value;
  }
  return core::sha512_hex(joined);
}

std::string canonical_v2(std::string_view date, std::string_view method, std::string_view host, std::string_view path,
                         const Params& params) {
  std::string out(date);
  out += '\n';
  for (const char c : method) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out += '\n';
  out += core::to_lower(host);
  out += '\n';
  out += path;
  out += '\n';
  out += canon_params(params);
  return out;
}

std::string canonical_v5(std::string_view date, std::string_view method, std::string_view host, std::string_view path,
                         const Params& params, std::string_view body,
                         std::vector<std::pair<std::string, std::string>> x_duo_headers) {
  auto out = canonical_v2(date, method, host, path, params);
  out += '\n';
  out += core::sha512_hex(body);
  out += '\n';
  out += canon_x_duo_headers(std::move(x_duo_headers));
  return out;
}

std::string authorization(std::string_view ikey, std::string_view skey, std::string_view canonical) {
  return "Basic " + core::base64(std::string(ikey) + ":" + core::hmac_sha512_hex(skey, canonical));
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.empty()) return std::string();
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t pad = 0;
  while (pad < 2 && text[text.size() - 1 - pad] == '=') ++pad;
  for (std::size_t i = 0; i < text.size() - pad; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!(std::isalnum(c) || c == '+' || c == '/')) return std::nullopt;
  }
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - pad);  // EVP_DecodeBlock counts the padding as zero bytes
  return out;
}

namespace {

constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Reads 1..`most` digits at `s[i]`.
std::optional<int> digits(std::string_view s, std::size_t& i, std::size_t least, std::size_t most) {
  std::size_t n = 0;
  int v = 0;
  while (i < s.size() && n < most && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    ++i;
    ++n;
  }
  if (n < least) return std::nullopt;
  return v;
}

void spaces(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

}  // namespace

std::optional<std::chrono::sys_seconds> parse_rfc2822(std::string_view text) {
  const auto s = core::trim(text);
  std::size_t i = 0;
  // Optional day name and comma.
  if (const auto comma = s.find(','); comma != std::string_view::npos) {
    const auto day = core::trim(s.substr(0, comma));
    if (std::none_of(kDays.begin(), kDays.end(), [&](const char* d) { return core::iequals(day, d); }))
      return std::nullopt;
    i = comma + 1;
  }
  spaces(s, i);
  const auto day = digits(s, i, 1, 2);
  if (!day) return std::nullopt;
  spaces(s, i);
  if (i + 3 > s.size()) return std::nullopt;
  const auto month_name = s.substr(i, 3);
  const auto month =
      std::find_if(kMonths.begin(), kMonths.end(), [&](const char* m) { return core::iequals(month_name, m); });
  if (month == kMonths.end()) return std::nullopt;
  i += 3;
  spaces(s, i);
  const auto year = digits(s, i, 4, 4);
  if (!year) return std::nullopt;
  spaces(s, i);
  const auto hour = digits(s, i, 2, 2);
  if (!hour || i >= s.size() || s[i] != ':') return std::nullopt;
  ++i;
  const auto minute = digits(s, i, 2, 2);
  if (!minute) return std::nullopt;
  int second = 0;
  if (i < s.size() && s[i] == ':') {
    ++i;
    const auto sec = digits(s, i, 2, 2);
    if (!sec) return std::nullopt;
    second = *sec;
  }
  spaces(s, i);
  const auto zone = s.substr(i);
  int offset_minutes = 0;
  if (zone.size() == 5 && (zone[0] == '+' || zone[0] == '-')) {
    std::size_t j = 1;
    const auto hh = digits(zone, j, 2, 2);
    const auto mm = digits(zone, j, 2, 2);
    if (!hh || !mm || *mm > 59) return std::nullopt;
    offset_minutes = (*hh * 60 + *mm) * (zone[0] == '-' ? -1 : 1);
  } else if (!(core::iequals(zone, "GMT") || core::iequals(zone, "UT") || core::iequals(zone, "UTC") ||
               core::iequals(zone, "Z"))) {
    return std::nullopt;
  }
  if (*hour > 23 || *minute > 59 || second > 60) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*year),
                                        std::chrono::month(static_cast<unsigned>(month - kMonths.begin() + 1)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days(ymd) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         std::chrono::seconds(second) - std::chrono::minutes(offset_minutes);
}

std::string format_rfc2822(std::chrono::sys_seconds t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(t - day);
  const std::chrono::weekday wd(day);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02d:%02d:%02d -0000", kDays[wd.c_encoding()],
                static_cast<unsigned>(ymd.day()), kMonths[static_cast<unsigned>(ymd.month()) - 1],
                static_cast<int>(ymd.year()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  return buf;
}

}  // namespace sandbox::duo
