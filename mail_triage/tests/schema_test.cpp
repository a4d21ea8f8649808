// The schema's own guarantees (migrations 0002-0005), asserted against PostgreSQL.
#include "mail_triage/service.hpp"

#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

using namespace core::testing;

namespace {

struct SchemaTest : ::testing::Test {
  TestDatabase database{mail_triage::definition().migrations};
  std::string run(const std::string& statement) { return sql(database.url(), statement); }
  void expect_rejected(const std::string& statement, const std::string& constraint) {
    try {
      run(statement);
      ADD_FAILURE() << "accepted: " << statement;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(constraint), std::string::npos) << e.what();
    }
  }
};

constexpr const char* kLogRow =
    "INSERT INTO email_log (mailbox, message_id, sender_address, received_at) "
    "VALUES ('inbox@msp.example', 'AAMk-1', 'a@b.example', now())";

}  // namespace

TEST_F(SchemaTest, MigrationFiveCreatesDbApiUsers) {
  EXPECT_EQ(run("SELECT count(*) FROM schema_migrations WHERE name = '0005_db_api_users.sql'"), "1");
  EXPECT_EQ(run("SELECT to_regclass('db_api_users') IS NOT NULL"), "t");
}

TEST_F(SchemaTest, AMessageIsLoggedOnce) {
  run(kLogRow);
  expect_rejected(kLogRow, "email_log_message_once");
  run("INSERT INTO email_log (mailbox, message_id, sender_address, received_at) "
      "VALUES ('other@msp.example', 'AAMk-1', 'a@b.example', now())");  // another mailbox's copy
  EXPECT_EQ(run("SELECT status || '/' || sender_type FROM email_log LIMIT 1"), "pending/unknown");
}

TEST_F(SchemaTest, EnumsAndRangesAreEnforced) {
  expect_rejected(
      "INSERT INTO email_log (mailbox, message_id, sender_address, received_at, status) "
      "VALUES ('m', '1', 'a@b', now(), 'done')",
      "email_log_status_check");
  expect_rejected(
      "INSERT INTO email_log (mailbox, message_id, sender_address, received_at, llm_confidence) "
      "VALUES ('m', '1', 'a@b', now(), 1.5)",
      "email_log_llm_confidence_check");
  expect_rejected("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('a@b', 0)",
                  "purge_rules_older_than_days_check");
  expect_rejected("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('a@b', 3651)",
                  "purge_rules_older_than_days_check");
  run("INSERT INTO purge_rules (email_address, older_than_days) VALUES ('a@b', 3650)");
  expect_rejected("INSERT INTO sender_profiles (email_address, sender_type) VALUES ('a@b', 'partner')",
                  "sender_profiles_sender_type_check");
}

TEST_F(SchemaTest, AddressesAreStoredLowercase) {
  expect_rejected("INSERT INTO sender_profiles (email_address, sender_type) VALUES ('A@b.example', 'vendor')",
                  "sender_profiles_email_address_check");
  expect_rejected("INSERT INTO whitelist (domain) VALUES ('Example.COM')", "whitelist_domain_check");
  expect_rejected("INSERT INTO customers (domain) VALUES ('Client.example')", "customers_domain_check");
}

TEST_F(SchemaTest, WhitelistNeedsASenderAndHasOneActiveEntryEach) {
  expect_rejected("INSERT INTO whitelist (description) VALUES ('nobody')", "whitelist_names_a_sender");
  run("INSERT INTO whitelist (domain) VALUES ('example.com')");
  expect_rejected("INSERT INTO whitelist (domain) VALUES ('example.com')", "whitelist_active_once");
  run("UPDATE whitelist SET is_active = false");
  run("INSERT INTO whitelist (domain) VALUES ('example.com')");  // a deactivated one does not count
  EXPECT_EQ(run("SELECT count(*) FROM whitelist"), "2");
}

TEST_F(SchemaTest, DbApiUsersRules) {
  run("INSERT INTO db_api_users (username, role_name, permission_level) VALUES ('reporting', 'svc_reporting', "
      "'read_only')");
  expect_rejected("INSERT INTO db_api_users (username, role_name, permission_level) VALUES ('ab', 'svc_ab', 'full')",
                  "db_api_users_username_check");
  expect_rejected(
      "INSERT INTO db_api_users (username, role_name, permission_level) VALUES ('Upper', 'svc_Upper', 'full')",
      "db_api_users_username_check");
  expect_rejected(
      "INSERT INTO db_api_users (username, role_name, permission_level) VALUES ('etl_job', 'etl_job', 'full')",
      "db_api_users_check");
  expect_rejected(
      "INSERT INTO db_api_users (username, role_name, permission_level) VALUES ('etl_job', 'svc_etl_job', 'admin')",
      "db_api_users_permission_level_check");
  expect_rejected("UPDATE db_api_users SET is_active = false", "db_api_users_revocation");
  run("UPDATE db_api_users SET is_active = false, revoked_at = now(), revoked_by = 'admin'");
}
