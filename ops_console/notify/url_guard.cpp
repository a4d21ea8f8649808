#include "ops_console/notify/url_guard.hpp"

#include "core/util/strings.hpp"

#include <curl/curl.h>

#include <memory>

namespace ops_console::notify {

namespace asio = boost::asio;
using asio::ip::address;

HostAllowlist::HostAllowlist(std::vector<std::string> patterns) {
  for (auto& p : patterns) {
    std::string lowered = core::to_lower(core::trim(p));
    if (!lowered.empty()) patterns_.push_back(std::move(lowered));
  }
}

bool HostAllowlist::allows(std::string_view host) const {
  const std::string h = core::to_lower(host);
  for (const auto& p : patterns_) {
    if (p == "*" || p == h) return true;
    if (p.starts_with("*.") && h.size() > p.size() - 1 && h.ends_with(std::string_view(p).substr(1))) return true;
  }
  return false;
}

std::string HostAllowlist::describe() const { return patterns_.empty() ? "(none)" : core::join(patterns_, ", "); }

std::optional<UrlParts> parse_url(std::string_view url) {
  // libcurl forgives "https:///host" and "https:host"; we want the authority where it belongs.
  const auto authority = url.find("://");
  if (authority == std::string_view::npos || authority + 3 >= url.size() || url[authority + 3] == '/')
    return std::nullopt;
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (curl_url_set(u.get(), CURLUPART_URL, std::string(url).c_str(), 0) != CURLUE_OK) return std::nullopt;
  auto part = [&](CURLUPart which, unsigned flags = 0) -> std::optional<std::string> {
    char* value = nullptr;
    if (curl_url_get(u.get(), which, &value, flags) != CURLUE_OK) return std::nullopt;
    std::string out(value);
    curl_free(value);
    return out;
  };
  const auto scheme = part(CURLUPART_SCHEME);
  auto host = part(CURLUPART_HOST);
  const auto port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
  if (!scheme || !host || host->empty() || !port) return std::nullopt;
  UrlParts parts{.scheme = core::to_lower(*scheme), .host = core::to_lower(*host)};
  if (parts.scheme != "http" && parts.scheme != "https") return std::nullopt;
  if (parts.host.front() == '[' && parts.host.back() == ']') parts.host = parts.host.substr(1, parts.host.size() - 2);
  const auto p = core::parse_int64(*port);
  if (!p || *p < 1 || *p > 65535) return std::nullopt;
  parts.port = static_cast<std::uint16_t>(*p);
  return parts;
}

std::string redacted_url(std::string_view url) {
  const auto parts = parse_url(url);
  return parts ? parts->scheme + "://" + parts->host + "/…" : "the destination";
}

namespace {

bool in_v4(std::uint32_t a, std::uint32_t net, int bits) {
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (a & mask) == (net & mask);
}

constexpr std::uint32_t v4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

bool public_v4(const asio::ip::address_v4& address) {
  const std::uint32_t a = address.to_uint();
  static constexpr struct {
    std::uint32_t net;
    int bits;
  } refused[] = {
      {v4(0, 0, 0, 0), 8},      {v4(10, 0, 0, 0), 8},     {v4(100, 64, 0, 0), 10}, {v4(127, 0, 0, 0), 8},
      {v4(169, 254, 0, 0), 16}, {v4(172, 16, 0, 0), 12},  {v4(192, 0, 0, 0), 24},  {v4(192, 0, 2, 0), 24},
      {v4(192, 88, 99, 0), 24}, {v4(192, 168, 0, 0), 16}, {v4(198, 18, 0, 0), 15}, {v4(198, 51, 100, 0), 24},
      {v4(203, 0, 113, 0), 24}, {v4(224, 0, 0, 0), 4},    {v4(240, 0, 0, 0), 4},
  };
  for (const auto& r : refused)
    if (in_v4(a, r.net, r.bits)) return false;
  return true;
}

bool public_v6(const asio::ip::address_v6& address) {
  if (address.is_v4_mapped()) return public_v4(asio::ip::make_address_v4(asio::ip::v4_mapped, address));
  const auto b = address.to_bytes();
  if (address.is_unspecified() || address.is_loopback() || address.is_multicast()) return false;
  if ((b[0] & 0xfe) == 0xfc) return false;                                         // fc00::/7 unique local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return false;                         // fe80::/10 link-local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return false;                         // fec0::/10 site-local (deprecated)
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return false;  // 2001:db8::/32 documentation
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) return false;  // 64:ff9b::/96 NAT64
  if (b[0] == 0x20 && b[1] == 0x02) return false;                                  // 2002::/16 6to4
  bool v4_compatible = true;                                                       // ::/96, deprecated
  for (int i = 0; i < 12; ++i) v4_compatible = v4_compatible && b[i] == 0;
  return !v4_compatible;
}

}  // namespace

bool is_public_address(const address& a) { return a.is_v4() ? public_v4(a.to_v4()) : public_v6(a.to_v6()); }

bool is_loopback_address(const address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).is_loopback();
  return a.is_loopback();
}

std::string address_refusal(const std::string& host, const address& a, const GuardRules& rules) {
  if (is_public_address(a) || (rules.allow_loopback && is_loopback_address(a))) return {};
  const std::string what = is_loopback_address(a) ? "a loopback" : "a private or reserved";
  return host == a.to_string() ? host + " is " + what + " address"
                               : host + " resolves to " + a.to_string() + ", " + what + " address";
}

std::string static_refusal(std::string_view url, const GuardRules& rules) {
  const auto parts = parse_url(url);
  if (!parts) return "is not an absolute http(s) URL";
  if (parts->scheme != "https" && !rules.allow_loopback) return "must use https";
  if (!rules.allowlist.allows(parts->host))
    return "host " + parts->host + " is not on the allowlist (" + rules.allowlist.describe() + ")";
  boost::system::error_code ec;
  const address literal = asio::ip::make_address(parts->host, ec);
  if (!ec) return address_refusal(parts->host, literal, rules);
  return {};
}

}  // namespace ops_console::notify
