#pragma once
// The fixture of mail-triage's end-to-end tests: the service against the Graph and model fakes
// (sandbox::InProcess) and a fresh migrated database. The service starts when the test calls
// start(), after it has filled the fake mailbox and the tables.
#include "core/testing/testing.hpp"
#include "mail_triage/service.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

namespace mail_triage::testing {

using core::testing::HttpResponse;
using nlohmann::json;

inline constexpr const char* kMailbox = "inbox@msp.example";

struct SandboxTest : ::testing::Test {
  sandbox::InProcess fakes;
  core::testing::TestDatabase database{mail_triage::definition().migrations};
  std::unique_ptr<core::testing::RunningService> svc;

  // The service's environment: Graph and the model server are the in-process fakes.
  core::config::Environment environment(const std::map<std::string, std::string>& extra = {}) {
    std::map<std::string, std::string> env = {
        {"API_KEYS", "k"},
        {"GRAPH_LOGIN_URL", fakes.url()},
        {"GRAPH_BASE_URL", fakes.url()},
        {"GRAPH_TENANT_ID", "contoso-tenant"},
        {"GRAPH_CLIENT_ID", "sandbox-client"},
        {"GRAPH_CLIENT_SECRET", "sandbox-secret"},
        {"GRAPH_MAILBOX", kMailbox},
        {"LLM_BASE_URL", fakes.url()},
        {"LLM_TIMEOUT_SECONDS", "5"},
    };
    for (auto& [k, v] : extra) env[k] = v;
    return core::config::Environment(env.begin(), env.end());
  }
  void start(const std::map<std::string, std::string>& extra = {}) {
    svc =
        std::make_unique<core::testing::RunningService>(mail_triage::definition(), database.url(), environment(extra));
  }
  HttpResponse process() { return post("/api/v1/process"); }
  HttpResponse post(const std::string& path, const std::string& body = "") {
    return core::testing::http(svc->port(), "POST", path, body, {{"Authorization", "Bearer k"}});
  }
  std::string sql(const std::string& s) { return core::testing::sql(database.url(), s); }
  std::string add(std::string subject, std::string from, std::string body = "", int hours_ago = 1, bool read = false) {
    sandbox::FakeMessage m;
    m.subject = std::move(subject);
    m.from_address = std::move(from);
    m.from_name = "Someone";
    m.body = std::move(body);
    m.received_at = core::now() - std::chrono::hours(hours_ago);
    m.is_read = read;
    return fakes.graph().add_message(kMailbox, std::move(m));
  }
  sandbox::FakeMessage in_mailbox(const std::string& id) {
    for (const auto& m : fakes.graph().messages(kMailbox))
      if (m.id == id) return m;
    ADD_FAILURE() << "message " << id << " is gone";
    return {};
  }
  // status|sender_type|classification|action of the entry for a message id
  std::string entry(const std::string& id) {
    return sql(
        "SELECT concat_ws('|', status, sender_type, coalesce(llm_classification, '-'), coalesce(final_action, '-')) "
        "FROM email_log WHERE message_id = '" +
        id + "'");
  }
};

}  // namespace mail_triage::testing
