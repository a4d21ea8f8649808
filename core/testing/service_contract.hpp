#pragma once
// The behaviour every service binary shares (issue 2's contract): /healthz, /readyz against a
// real database (including across a database restart), problem bodies, --help, configuration
// errors, the migrate command, edited migrations, graceful SIGTERM, the metrics listener, running as
// the least-privileged role docs/deploy.md tells an operator to create. A service's test binary
// instantiates it:
//
//   INSTANTIATE_TEST_SUITE_P(MailTriage, ServiceContract,
//       ::testing::Values(ServiceUnderTest{&mail_triage::definition(), MAIL_TRIAGE_BINARY}));
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace core::testing {

struct ServiceUnderTest {
  const app::ServiceDefinition* definition;
  std::string binary;                     // path of the built executable
  config::Environment required_env = {};  // variables the service cannot start without
  // A request without credentials that the service answers 401, and the template of its route:
  // the metrics must count it under the template, never under its raw path.
  std::string unauthorized_target = {};
  std::string unauthorized_route = {};
  // The deployed role (docs/deploy.md, "Database roles"): whether the service's role needs
  // CREATEROLE, and what the service does with the privileges of that role beyond its migrations
  // and serving, driven against the running binary on `port` whose role connects with
  // `database_url` (mail-triage: a /dbusers user created and revoked). None: nothing more.
  bool creates_roles = false;
  std::function<void(std::uint16_t port, const std::string& database_url)> privileged_work = {};
  // A request the service answers from the database, with the status it gets while the database
  // answers: while the database hangs it must get a prompt 503 instead (DB_REQUEST_TIMEOUT_MS).
  std::string database_read_target = {};
  std::map<std::string, std::string> database_read_headers = {};
  unsigned database_read_status = 0;
};

inline void PrintTo(const ServiceUnderTest& s, std::ostream* os) { *os << s.definition->name; }

class ServiceContract : public ::testing::TestWithParam<ServiceUnderTest> {};

}  // namespace core::testing
