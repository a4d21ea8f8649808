// The shared service contract (core/testing/service_contract.cpp) run against ops-console.
#include "ops_console/service.hpp"

#include "core/testing/service_contract.hpp"

using core::testing::ServiceContract;
using core::testing::ServiceUnderTest;

namespace {

// Work of the deployed role (docs/deploy.md) besides migrating and serving: the first
// administrator, a session, and a signed-in read.
void set_up_and_sign_in(std::uint16_t port, const std::string&) {
  const auto setup =
      core::testing::http(port, "POST", "/api/auth/setup",
                          R"({"email":"admin@msp.example","name":"Admin","password":"a deploy.md password"})");
  ASSERT_EQ(setup.status, 201u) << setup.body;
  const std::string cookie = setup.header("set-cookie");
  const auto me =
      core::testing::http(port, "GET", "/api/auth/me", "", {{"Cookie", cookie.substr(0, cookie.find(';'))}});
  EXPECT_EQ(me.status, 200u) << me.body;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(OpsConsole, ServiceContract,
                         ::testing::Values(ServiceUnderTest{&ops_console::definition(),
                                                            OPS_CONSOLE_BINARY,
                                                            {},
                                                            "/api/analyzer/jobs/918273",
                                                            "/api/analyzer/jobs/{id:int}",
                                                            false,
                                                            set_up_and_sign_in,
                                                            // a session looked up: none such
                                                            "/api/auth/me",
                                                            {{"Cookie", "ops_session=no-such-session"}},
                                                            401}));
