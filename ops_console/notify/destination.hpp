#pragma once
// The full check of an outbound notification URL: url_guard.hpp's rules, then every address the
// host resolves to, pinned for the request so the name cannot resolve elsewhere meanwhile.
#include "ops_console/notify/url_guard.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace ops_console::notify {

struct Clearance {
  std::string refusal;               // empty: cleared
  std::vector<std::string> resolve;  // pins for core::http::OutboundRequest::resolve
};

// The full check, resolving the host. Never throws.
boost::asio::awaitable<Clearance> clear_destination(boost::asio::any_io_executor executor, std::string url,
                                                    GuardRules rules);

}  // namespace ops_console::notify
