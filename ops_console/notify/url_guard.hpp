#pragma once
// Where outbound notifications may go. A destination URL passes when
//   - its scheme is https (plain http only to loopback, and only when loopback is allowed),
//   - its host matches the allowlist of its channel type, and
//   - every address its host resolves to is public: no private, loopback, link-local, shared,
//     documentation, multicast or reserved range (loopback passes when allowed: the sandbox).
// These checks are pure (no I/O); destination.hpp adds the DNS resolution and pins the
// addresses it checked for the request (OutboundRequest::resolve), so the name cannot resolve
// elsewhere between the check and the connection.
#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ops_console::notify {

// Host patterns: "chat.googleapis.com" matches that host only, "*.webhook.office.com" any host
// below it (not the bare domain), "*" any host. Case-insensitive.
class HostAllowlist {
 public:
  HostAllowlist() = default;
  explicit HostAllowlist(std::vector<std::string> patterns);
  bool allows(std::string_view host) const;
  std::string describe() const;  // "chat.googleapis.com, *.webhook.office.com"

 private:
  std::vector<std::string> patterns_;
};

struct UrlParts {
  std::string scheme;  // lowercased
  std::string host;    // lowercased; an IPv6 literal without brackets
  std::uint16_t port = 0;
};

// nullopt when `url` is not an absolute http(s) URL with a host.
std::optional<UrlParts> parse_url(std::string_view url);

// The URL with its path and query dropped, "https://chat.googleapis.com/…" ("the destination" when
// it does not parse): what logs, errors and lists show of a destination, whose path may carry a
// token (Telegram's bot token, a chat webhook's key).
std::string redacted_url(std::string_view url);

// True for addresses on the public internet; false for the ranges listed above.
bool is_public_address(const boost::asio::ip::address& address);
// 127.0.0.0/8, ::1, and their IPv4-mapped forms.
bool is_loopback_address(const boost::asio::ip::address& address);

struct GuardRules {
  HostAllowlist allowlist;
  bool allow_loopback = false;
};

// Empty when `address` (what `host` names or resolves to) may be connected to under `rules`;
// else why not.
std::string address_refusal(const std::string& host, const boost::asio::ip::address& address, const GuardRules& rules);

// What can be told without a DNS lookup: a malformed URL, another scheme, a host off the
// allowlist, an address literal in a refused range. Empty when nothing is wrong so far.
std::string static_refusal(std::string_view url, const GuardRules& rules);

}  // namespace ops_console::notify
