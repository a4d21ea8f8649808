// The shared service contract (core/testing/service_contract.cpp) run against ops-console.
#include "ops_console/service.hpp"

#include "core/testing/service_contract.hpp"

using core::testing::ServiceContract;
using core::testing::ServiceUnderTest;

INSTANTIATE_TEST_SUITE_P(OpsConsole, ServiceContract,
                         ::testing::Values(ServiceUnderTest{&ops_console::definition(),
                                                            OPS_CONSOLE_BINARY,
                                                            {},
                                                            "/api/analyzer/jobs/918273",
                                                            "/api/analyzer/jobs/{id:int}"}));
