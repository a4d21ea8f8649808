// The echo switch of every vendor fake (sandbox/echo.hpp, issue 31): set through each fake's control
// route, an error answer quotes the credential the request carried, in the vendor's own error shape,
// with the filler after it; the fake lists what it echoed and counts it; a malformed switch is a 400;
// and with the switch off the same errors quote nothing.
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace {

using core::testing::HttpResponse;
using nlohmann::json;

// One fake: its faults route, a request its gate or token route refuses (carrying `credential`),
// where its error body keeps the message, and what it says it echoed.
struct EchoCase {
  const char* fake;
  std::string credential;
  std::function<HttpResponse(std::uint16_t port)> refused;
  std::function<std::string(const json& body)> message;
  std::function<std::vector<std::string>(sandbox::InProcess&)> echoed;
};

std::vector<EchoCase> echo_cases() {
  const auto form = [](std::uint16_t port, const std::string& path, const std::string& body,
                       std::map<std::string, std::string> headers = {}) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    return core::testing::http(port, "POST", path, body, std::move(headers));
  };
  return {
      {"autotask", "wrong-autotask-secret",
       [](std::uint16_t port) {
         return core::testing::http(port, "GET", "/autotask/atservicesrest/V1.0/Tickets/1", "",
                                    {{"ApiIntegrationCode", "sandbox-integration"},
                                     {"UserName", "api@msp.example"},
                                     {"Secret", "wrong-autotask-secret"}});
       },
       [](const json& b) { return b["errors"][0].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.autotask().echoed(); }},
      {"pax8", "wrong-pax8-secret",
       [](std::uint16_t port) {
         return core::testing::http(port, "POST", "/pax8/v1/token",
                                    json{{"client_id", "sandbox-distributor"},
                                         {"client_secret", "wrong-pax8-secret"},
                                         {"audience", "https://api.pax8.com"},
                                         {"grant_type", "client_credentials"}}
                                        .dump(),
                                    {{"Content-Type", "application/json"}});
       },
       [](const json& b) { return b["error_description"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.pax8().echoed(); }},
      {"xero", core::base64("sandbox-accounting:wrong-xero-secret"),
       [form](std::uint16_t port) {
         return form(port, "/xero/identity/connect/token", "grant_type=refresh_token&refresh_token=some-refresh-token",
                     {{"Authorization", "Basic " + core::base64("sandbox-accounting:wrong-xero-secret")}});
       },
       [](const json& b) { return b["error_description"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.xero().echoed(); }},
      {"graph", "wrong-graph-secret",
       [form](std::uint16_t port) {
         return form(port, "/contoso/oauth2/v2.0/token",
                     "client_id=sandbox-client&client_secret=wrong-graph-secret&grant_type=client_credentials&scope=" +
                         core::url_encode("https://graph.microsoft.com/.default"));
       },
       [](const json& b) { return b["error_description"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.graph().echoed(); }},
      {"model", "sk-wrong-model-key-1234",
       [](std::uint16_t port) {
         return core::testing::http(
             port, "POST", "/v1/chat/completions",
             json{{"model", "gpt-4o-mini"}, {"messages", {{{"role", "user"}, {"content", "hello"}}}}}.dump(),
             {{"Authorization", "Bearer sk-wrong-model-key-1234"}, {"Content-Type", "application/json"}});
       },
       [](const json& b) { return b["error"]["message"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.model().echoed(); }},
      {"duo", core::base64("DIWRONGIKEY000000000:0123456789abcdef"),
       [](std::uint16_t port) {
         return core::testing::http(
             port, "GET", "/duo/admin/v1/users", "",
             {{"Authorization", "Basic " + core::base64("DIWRONGIKEY000000000:0123456789abcdef")},
              {"Date", "Tue, 21 Apr 2026 10:00:00 -0000"}});
       },
       [](const json& b) { return b["message"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.duo().echoed(); }},
      {"sentinelone", "wrong-sentinelone-token",
       [](std::uint16_t port) {
         return core::testing::http(port, "GET", "/sentinelone/web/api/v2.1/sites", "",
                                    {{"Authorization", "ApiToken wrong-sentinelone-token"}});
       },
       [](const json& b) {
         return b["errors"][0]["detail"].is_string() ? b["errors"][0]["detail"].get<std::string>() : std::string();
       },
       [](sandbox::InProcess& f) { return f.sentinelone().echoed(); }},
      {"mimecast", "wrong-mimecast-secret",
       [form](std::uint16_t port) {
         return form(port, "/mimecast/oauth/token",
                     "grant_type=client_credentials&client_id=sandbox-mailsec&client_secret=wrong-mimecast-secret");
       },
       [](const json& b) { return b["fail"][0]["message"].get<std::string>(); },
       [](sandbox::InProcess& f) { return f.mimecast().echoed(); }},
  };
}

}  // namespace

TEST(EchoSwitch, EveryFakeQuotesTheCredentialItReceivedWhenAsked) {
  sandbox::InProcess fakes({}, {.api_key = "sk-the-right-model-key-0000"});  // the model refuses another key
  for (const auto& c : echo_cases()) {
    SCOPED_TRACE(c.fake);
    const std::string faults = std::string("/_sandbox/") + c.fake + "/faults";
    const auto quiet = c.refused(fakes.port());  // the switch off: nothing quoted
    ASSERT_GE(quiet.status, 400u) << quiet.body;
    EXPECT_EQ(quiet.body.find(c.credential), std::string::npos) << quiet.body;

    EXPECT_EQ(core::testing::http(fakes.port(), "PUT", faults, R"({"echo_credentials": "yes"})").status, 400u);
    EXPECT_EQ(core::testing::http(fakes.port(), "PUT", faults, R"({"error_padding": -1})").status, 400u);
    const auto set =
        core::testing::http(fakes.port(), "PUT", faults, R"({"echo_credentials": true, "error_padding": 64})");
    ASSERT_LT(set.status, 300u) << set.body;
    const auto loud = c.refused(fakes.port());
    ASSERT_EQ(loud.status, quiet.status) << loud.body;
    const std::string message = c.message(loud.json());  // in the vendor's own error shape
    EXPECT_NE(message.find(c.credential), std::string::npos) << message;
    EXPECT_NE(message.find(std::string(64, 'x')), std::string::npos) << message;
    const auto echoed = c.echoed(fakes);
    EXPECT_NE(std::find(echoed.begin(), echoed.end(), c.credential), echoed.end());
    EXPECT_EQ(core::testing::http(fakes.port(), "PUT", faults, "{}").status / 100, 2u);  // off again
  }
  EXPECT_EQ(core::testing::http(fakes.port(), "GET", "/_sandbox/pax8/stats").json()["echoed"], 1);
}

// The API side of a token vendor: a fault's error quotes the bearer token of the request.
TEST(EchoSwitch, AFaultErrorQuotesTheBearerToken) {
  sandbox::InProcess fakes;
  const auto token = core::testing::http(fakes.port(), "POST", "/pax8/v1/token",
                                         json{{"client_id", "sandbox-distributor"},
                                              {"client_secret", "sandbox-distributor-secret"},
                                              {"audience", "https://api.pax8.com"},
                                              {"grant_type", "client_credentials"}}
                                             .dump(),
                                         {{"Content-Type", "application/json"}})
                         .json()["access_token"]
                         .get<std::string>();
  fakes.pax8().set_faults({.server_errors = 1, .status = 500, .echo = {.credentials = true}});
  const auto failed =
      core::testing::http(fakes.port(), "GET", "/pax8/v1/companies", "", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(failed.status, 500u);
  EXPECT_NE(failed.json()["message"].get<std::string>().find(token), std::string::npos) << failed.body;
  EXPECT_EQ(fakes.pax8().echoed(), std::vector<std::string>{token});
  fakes.pax8().reset();
  EXPECT_TRUE(fakes.pax8().echoed().empty());
}
