#include "ops_console/mfa/duo_signature.hpp"

#include "core/util/digest.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <vector>

namespace ops_console::mfa {

namespace {

// Python's urllib.parse.quote(s, '~'): every byte but A-Z a-z 0-9 - _ . ~ as %XX (upper case).
std::string quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

}  // namespace

std::string duo_canon_params(const DuoParams& params) {
  // Sorted by the encoded name, then the encoded value (what duo_client sorts).
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const auto& [name, value] : params) encoded.emplace_back(quote(name), quote(value));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name + "=" + value;
  }
  return out;
}

std::string duo_canonical_v2(std::string_view date, std::string_view method, std::string_view host,
                             std::string_view path, const DuoParams& params) {
  return std::string(date) + "\n" + upper(method) + "\n" + lower(host) + "\n" + std::string(path) + "\n" +
         duo_canon_params(params);
}

std::string duo_canonical_v5(std::string_view date, std::string_view method, std::string_view host,
                             std::string_view path, const DuoParams& params, std::string_view body,
                             const std::map<std::string, std::string>& x_duo_headers) {
  std::map<std::string, std::string> lowered;
  for (const auto& [name, value] : x_duo_headers) lowered[lower(name)] = value;
  std::string headers;
  for (const auto& [name, value] : lowered) {
    if (!headers.empty()) headers += '\0';
    headers += name;
    headers += '\0';
    headers += value;
  }
  return duo_canonical_v2(date, method, host, path, params) + "\n" + core::sha512_hex(body) + "\n" +
         core::sha512_hex(headers);
}

std::string duo_authorization(std::string_view ikey, std::string_view skey, std::string_view canonical) {
  return "Basic " + core::base64(std::string(ikey) + ":" + core::hmac_sha512_hex(skey, canonical));
}

std::string duo_date_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S -0000", &tm);
  return buf;
}

}  // namespace ops_console::mfa
