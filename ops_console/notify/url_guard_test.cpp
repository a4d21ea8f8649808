// The URL guard of outbound notifications: allowlist patterns, URL parsing, the address ranges
// refused, and the checks that need no DNS.
#include "ops_console/notify/url_guard.hpp"
#include "ops_console/notify/destination.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

namespace {

using namespace ops_console::notify;
using boost::asio::ip::make_address;

TEST(HostAllowlist, ExactWildcardAndAny) {
  const HostAllowlist list({"chat.googleapis.com", "*.webhook.office.com", " *.Logic.Azure.com "});
  EXPECT_TRUE(list.allows("chat.googleapis.com"));
  EXPECT_TRUE(list.allows("CHAT.googleapis.com"));
  EXPECT_FALSE(list.allows("evil.chat.googleapis.com"));  // exact means exact
  EXPECT_TRUE(list.allows("acme.webhook.office.com"));
  EXPECT_TRUE(list.allows("a.b.webhook.office.com"));
  EXPECT_FALSE(list.allows("webhook.office.com"));  // *. needs a subdomain
  EXPECT_FALSE(list.allows("evilwebhook.office.com"));
  EXPECT_FALSE(list.allows("webhook.office.com.evil.example"));
  EXPECT_TRUE(list.allows("prod-1.westeurope.logic.azure.com"));
  EXPECT_FALSE(HostAllowlist().allows("anything"));
  EXPECT_TRUE(HostAllowlist({"*"}).allows("anything.example"));
  EXPECT_EQ(list.describe(), "chat.googleapis.com, *.webhook.office.com, *.logic.azure.com");
}

TEST(ParseUrl, SchemeHostPort) {
  auto p = parse_url("https://Chat.GoogleAPIs.com/v1/spaces/A/messages?key=k");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->scheme, "https");
  EXPECT_EQ(p->host, "chat.googleapis.com");
  EXPECT_EQ(p->port, 443);
  p = parse_url("http://[::1]:8080/x");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host, "::1");
  EXPECT_EQ(p->port, 8080);
  for (const char* bad : {"", "chat.googleapis.com/x", "ftp://host/x", "https://", "https:///x", "https:/x.example/",
                          "javascript:alert(1)", "https://host:99999/"})
    EXPECT_FALSE(parse_url(bad)) << bad;
}

TEST(PublicAddress, RefusedRanges) {
  for (const char* refused :
       {"0.0.0.0",      "10.0.0.1",        "100.64.0.1",       "127.0.0.1", "127.8.9.10",      "169.254.169.254",
        "172.16.0.1",   "172.31.255.255",  "192.0.0.8",        "192.0.2.1", "192.168.1.1",     "198.18.0.1",
        "198.51.100.7", "203.0.113.9",     "224.0.0.1",        "240.0.0.1", "255.255.255.255", "::",
        "::1",          "::ffff:10.0.0.1", "::ffff:127.0.0.1", "fc00::1",   "fd12:3456::1",    "fe80::1",
        "ff02::1",      "2001:db8::1",     "64:ff9b::a00:1",   "::10.0.0.1"})
    EXPECT_FALSE(is_public_address(make_address(refused))) << refused;
  for (const char* allowed : {"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "142.250.185.74",
                              "2607:f8b0:4004:c07::66", "2a00:1450:4001:82b::200e", "::ffff:8.8.8.8"})
    EXPECT_TRUE(is_public_address(make_address(allowed))) << allowed;
}

TEST(StaticRefusal, WhatNeedsNoLookup) {
  const GuardRules chat{.allowlist = HostAllowlist({"chat.googleapis.com", "*"}), .allow_loopback = false};
  EXPECT_EQ(static_refusal("https://chat.googleapis.com/v1/x", chat), "");
  EXPECT_EQ(static_refusal("http://chat.googleapis.com/v1/x", chat), "must use https");
  EXPECT_EQ(static_refusal("nope", chat), "is not an absolute http(s) URL");
  EXPECT_EQ(static_refusal("https://10.0.0.5/x", chat), "10.0.0.5 is a private or reserved address");
  EXPECT_EQ(static_refusal("https://[::1]/x", chat), "::1 is a loopback address");
  EXPECT_EQ(static_refusal("https://127.0.0.1/x", chat), "127.0.0.1 is a loopback address");
  const GuardRules only{.allowlist = HostAllowlist({"chat.googleapis.com"})};
  EXPECT_EQ(static_refusal("https://evil.example/x", only),
            "host evil.example is not on the allowlist (chat.googleapis.com)");
  const GuardRules sandbox{.allowlist = HostAllowlist({"127.0.0.1"}), .allow_loopback = true};
  EXPECT_EQ(static_refusal("http://127.0.0.1:9000/x", sandbox), "");
  const GuardRules any_host{.allowlist = HostAllowlist({"*"}), .allow_loopback = true};
  EXPECT_EQ(static_refusal("http://10.0.0.1:9000/x", any_host),
            "10.0.0.1 is a private or reserved address");  // loopback allowed is not private allowed
}

TEST(ClearDestination, PinsWhatItChecked) {
  core::testing::IoThreads io{1};
  const GuardRules loopback{.allowlist = HostAllowlist({"localhost", "127.0.0.1"}), .allow_loopback = true};
  const auto cleared = io.run(clear_destination(io.executor(), "http://127.0.0.1:9/x", loopback));
  EXPECT_EQ(cleared.refusal, "");
  EXPECT_EQ(cleared.resolve, std::vector<std::string>{"127.0.0.1:9:127.0.0.1"});
  const auto by_name = io.run(clear_destination(io.executor(), "http://localhost:9/x", loopback));
  EXPECT_EQ(by_name.refusal, "");
  ASSERT_EQ(by_name.resolve.size(), 1u);
  EXPECT_EQ(by_name.resolve[0].rfind("localhost:9:", 0), 0u) << by_name.resolve[0];

  const GuardRules strict{.allowlist = HostAllowlist({"localhost"}), .allow_loopback = false};
  const auto refused = io.run(clear_destination(io.executor(), "https://localhost/x", strict));
  EXPECT_EQ(refused.refusal.rfind("localhost resolves to ", 0), 0u) << refused.refusal;
  EXPECT_TRUE(refused.resolve.empty());
}

}  // namespace
