// The shared service contract (core/testing/service_contract.cpp) run against mail-triage.
#include "mail_triage/service.hpp"

#include "core/testing/service_contract.hpp"
#include "core/util/strings.hpp"
#include "mail_triage/tests/console_browser.hpp"
#include "mail_triage/tests/created_roles.hpp"

using core::testing::ServiceContract;
using core::testing::ServiceUnderTest;

namespace {

// What mail-triage's role needs CREATEROLE for (docs/deploy.md): the /dbusers console, signed in
// with the API key, creates a database user who connects with the password shown and reads, and
// revokes it: its sessions ended, its role dropped.
void create_and_revoke_a_database_user(std::uint16_t port, const std::string& database_url) {
  using mail_triage::testing::csrf_of;
  mail_triage::testing::Browser b{.port = port};
  const auto form = b.get("/dbusers/login");
  ASSERT_EQ(b.post("/dbusers/login", {{"csrf", csrf_of(form.body)}, {"key", "contract-test-key"}}).status, 303u);
  const std::string name = "deploy_" + core::random_hex(4);
  mail_triage::testing::CreatedRoles roles{database_url};  // dropped should the revoke not do it
  roles.push_back("svc_" + name);
  const auto list = b.get("/dbusers");
  const auto shown = b.post("/dbusers/users", {{"csrf", csrf_of(list.body)},
                                               {"username", name},
                                               {"permission_level", "read_only"},
                                               {"description", "deploy.md"}});
  ASSERT_EQ(shown.status, 201u) << shown.body;
  const std::string password = mail_triage::testing::element(shown.body, "password");
  const auto at = database_url.find("://") + 3;
  const std::string as_user =
      database_url.substr(0, at) + "svc_" + name + ":" + password + database_url.substr(database_url.find('@'));
  EXPECT_EQ(core::testing::sql(as_user, "SELECT count(*) FROM email_log"), "0");

  const std::string id =
      core::testing::sql(database_url, "SELECT id FROM db_api_users WHERE username = '" + name + "'");
  const auto revoked = b.post("/dbusers/users/" + id + "/revoke", {{"csrf", csrf_of(b.get("/dbusers").body)}});
  EXPECT_EQ(revoked.status, 200u) << revoked.body;
  EXPECT_EQ(core::testing::sql(database_url, "SELECT count(*) FROM pg_roles WHERE rolname = 'svc_" + name + "'"), "0");
  EXPECT_THROW(core::testing::sql(as_user, "SELECT 1"), std::runtime_error);
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(MailTriage, ServiceContract,
                         ::testing::Values(ServiceUnderTest{&mail_triage::definition(),
                                                            MAIL_TRIAGE_BINARY,
                                                            {{"API_KEYS", "contract-test-key"}},
                                                            "/api/v1/log/5d0c8f4e-2a7b-4c1e-9f3a-6b8d2e1c7a90",
                                                            "/api/v1/log/{entry_id:uuid}",
                                                            true,
                                                            create_and_revoke_a_database_user,
                                                            "/api/v1/log/5d0c8f4e-2a7b-4c1e-9f3a-6b8d2e1c7a90",
                                                            {{"Authorization", "Bearer contract-test-key"}},
                                                            404}));
