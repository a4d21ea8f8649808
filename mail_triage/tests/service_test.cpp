// The shared service contract (core/testing/service_contract.cpp) run against mail-triage.
#include "mail_triage/service.hpp"

#include "core/testing/service_contract.hpp"

using core::testing::ServiceContract;
using core::testing::ServiceUnderTest;

INSTANTIATE_TEST_SUITE_P(MailTriage, ServiceContract,
                         ::testing::Values(ServiceUnderTest{&mail_triage::definition(),
                                                            MAIL_TRIAGE_BINARY,
                                                            {{"API_KEYS", "contract-test-key"}},
                                                            "/api/v1/log/5d0c8f4e-2a7b-4c1e-9f3a-6b8d2e1c7a90",
                                                            "/api/v1/log/{entry_id:uuid}"}));
