// No secret in a log line or an answer (issue 31, part 4): the mail platform and the model echo the
// credential or token they received in their error bodies, followed by 240 KB of filler
// (sandbox/echo.hpp), and a processing run meets their errors: the token endpoint's refusal (the
// client secret), a mailbox list and a message's move (the bearer token), a classification (the
// model's key). Neither the log at debug level, nor the database (email_log's errors), nor the
// run's answer holds any of them, or the filler whole.
#include "mail_triage/tests/sandbox_fixture.hpp"

namespace {

using core::testing::HttpResponse;
using mail_triage::testing::kMailbox;
using mail_triage::testing::SandboxTest;

constexpr const char* kTriageModelKey = "sk-proj-mail-triage-key-0123456789abcdef";
constexpr sandbox::EchoSwitch kTriageEcho{.credentials = true, .padding = 240'000};

struct TriageSecretsTest : SandboxTest {
  core::testing::CapturedLog log;
  std::vector<HttpResponse> answers;

  void start_debug(std::map<std::string, std::string> extra = {}) {
    extra["LOG_LEVEL"] = "debug";
    extra.emplace("LLM_API_KEY", kTriageModelKey);
    start(extra);
  }
  HttpResponse run() {
    answers.push_back(process());
    return answers.back();
  }
  void expect_nothing_leaked(const std::vector<std::string>& echoed, const std::vector<std::string>& configured) {
    svc.reset();
    core::testing::expect_no_secret(core::testing::said(log.text(), database.url(), answers), echoed, configured);
  }
};

}  // namespace

// Graph: the token endpoint's refusal quotes the client secret (the run is a 502 naming what the
// platform said); a 500 on the mailbox list and on a move quotes the bearer token.
TEST_F(TriageSecretsTest, TheMailPlatformsTokenEndpointListAndActions) {
  fakes.graph().create_mailbox(kMailbox);
  const auto news = add("November newsletter", "news@cloud.example", "In this issue: five things.");
  fakes.graph().set_faults({.echo = kTriageEcho});
  start_debug({{"GRAPH_CLIENT_SECRET", "refused-triage-graph-secret-4d1"}});
  EXPECT_EQ(run().status, 502u);

  start_debug();
  fakes.graph().set_faults({.server_errors = 1000, .status = 500, .echo = kTriageEcho});
  EXPECT_EQ(run().status, 502u);
  // The list is read, the move to the archive fails: the entry's stored error.
  fakes.graph().set_faults({.server_errors = 1000, .status = 500, .method = "POST", .echo = kTriageEcho});
  EXPECT_EQ(run().status, 200u);
  EXPECT_EQ(sql("SELECT status FROM email_log WHERE message_id = '" + news + "'"), "failed");
  expect_nothing_leaked(fakes.graph().echoed(), {"sandbox-secret", "refused-triage-graph-secret-4d1"});
}

// The model: a 500 that quotes the key in full (as a proxy might); the entry's stored error.
TEST_F(TriageSecretsTest, TheModelsKey) {
  fakes.graph().create_mailbox(kMailbox);
  const auto support = add("Printer not working", "a@contoso.example", "help");
  start_debug();
  fakes.model().set_faults({.fail = 1000, .status = 500, .echo = kTriageEcho});
  EXPECT_EQ(run().status, 200u);
  EXPECT_EQ(sql("SELECT status FROM email_log WHERE message_id = '" + support + "'"), "failed");
  expect_nothing_leaked(fakes.model().echoed(), {kTriageModelKey});
}
