// The sandbox binary: its command line, its health routes and a clean SIGTERM.
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

#include <csignal>

using namespace core::testing;

TEST(Sandbox, CommandLine) {
  Process help(SANDBOX_BINARY, {"--help"}, {});
  EXPECT_EQ(help.wait_exit(), 0);
  Process migrate(SANDBOX_BINARY, {"migrate"}, {});
  EXPECT_EQ(migrate.wait_exit(), 0);  // no database: nothing to do
  Process unknown(SANDBOX_BINARY, {"frobnicate"}, {});
  EXPECT_EQ(unknown.wait_exit(), 2);
  Process bad_port(SANDBOX_BINARY, {}, {{"PORT", "99999"}});
  EXPECT_EQ(bad_port.wait_exit(), 2);
  EXPECT_NE(bad_port.stderr_text().find("PORT: 99999 is outside 0..65535"), std::string::npos);
}

TEST(Sandbox, ServesHealthAndStopsOnSigterm) {
  Process sandbox(SANDBOX_BINARY, {}, {{"PORT", "0"}});
  const auto listening = sandbox.wait_for_log("listening");
  ASSERT_TRUE(listening) << sandbox.stderr_text();
  const auto port = (*listening)["port"].get<std::uint16_t>();
  EXPECT_EQ(http(port, "GET", "/healthz").json()["status"], "ok");
  EXPECT_EQ(http(port, "GET", "/readyz").json()["status"], "ready");
  EXPECT_TRUE(http(port, "GET", "/_sandbox").json()["fakes"].is_array());
  EXPECT_EQ(http(port, "GET", "/nowhere").header("content-type"), "application/problem+json");
  sandbox.signal(SIGTERM);
  EXPECT_EQ(sandbox.wait_exit(), 0);
}
