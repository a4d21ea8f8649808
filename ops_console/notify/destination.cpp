#include "ops_console/notify/destination.hpp"

#include "core/util/strings.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ops_console::notify {

namespace asio = boost::asio;
using asio::ip::address;

asio::awaitable<Clearance> clear_destination(asio::any_io_executor executor, std::string url, GuardRules rules) {
  Clearance out;
  out.refusal = static_refusal(url, rules);
  if (!out.refusal.empty()) co_return out;
  const UrlParts parts = *parse_url(url);
  asio::ip::tcp::resolver resolver(executor);
  boost::system::error_code ec;
  const std::string service = std::to_string(parts.port);
  const auto results =
      co_await resolver.async_resolve(parts.host, service, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || results.empty()) {
    out.refusal = "cannot resolve " + parts.host + (ec ? ": " + ec.message() : "");
    co_return out;
  }
  std::vector<std::string> addresses;
  bool all_loopback = true;
  for (const auto& entry : results) {
    const address a = entry.endpoint().address();
    if (auto why = address_refusal(parts.host, a, rules); !why.empty()) {
      out.refusal = std::move(why);
      co_return out;
    }
    all_loopback = all_loopback && is_loopback_address(a);
    addresses.push_back(a.is_v6() ? "[" + a.to_string() + "]" : a.to_string());
  }
  if (parts.scheme != "https" && !all_loopback) {
    out.refusal = "must use https (plain http is allowed to loopback only)";
    co_return out;
  }
  const std::string host = parts.host.find(':') != std::string::npos ? "[" + parts.host + "]" : parts.host;
  out.resolve.push_back(host + ":" + std::to_string(parts.port) + ":" + core::join(addresses, ","));
  co_return out;
}

}  // namespace ops_console::notify
