#pragma once
// The behaviour every service binary shares (issue 2's contract): /healthz, /readyz against a
// real database (including across a database restart), problem bodies, --help, configuration
// errors, the migrate command, edited migrations, graceful SIGTERM, the metrics listener. A service's test binary
// instantiates it:
//
//   INSTANTIATE_TEST_SUITE_P(MailTriage, ServiceContract,
//       ::testing::Values(ServiceUnderTest{&mail_triage::definition(), MAIL_TRIAGE_BINARY}));
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

namespace core::testing {

struct ServiceUnderTest {
  const app::ServiceDefinition* definition;
  std::string binary;                     // path of the built executable
  config::Environment required_env = {};  // variables the service cannot start without
  // A request without credentials that the service answers 401, and the template of its route:
  // the metrics must count it under the template, never under its raw path.
  std::string unauthorized_target = {};
  std::string unauthorized_route = {};
};

inline void PrintTo(const ServiceUnderTest& s, std::ostream* os) { *os << s.definition->name; }

class ServiceContract : public ::testing::TestWithParam<ServiceUnderTest> {};

}  // namespace core::testing
