// The chat-completions fake: OpenAI's request rules and error bodies, schema-valid replies.
#include "core/testing/testing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

using core::testing::http;
using nlohmann::json;

namespace {

json request(const std::string& format, const std::string& user) {
  json body = {
      {"model", "gpt-4o-mini"},
      {"temperature", 0},
      {"messages", {{{"role", "system"}, {"content", "Classify the mail."}}, {{"role", "user"}, {"content", user}}}}};
  if (format == "json_schema")
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema",
         {{"name", "triage"},
          {"strict", true},
          {"schema",
           {{"type", "object"}, {"properties", {{"label", {{"type", "string"}, {"enum", {"billing", "other"}}}}}}}}}}};
  else if (format == "json_object")
    body["response_format"] = {{"type", "json_object"}};
  return body;
}

}  // namespace

TEST(ModelFake, AnswersWithALabelTheSchemaAllows) {
  sandbox::InProcess fakes;
  const auto res =
      http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "Invoice INV-1 attached").dump());
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto reply = json::parse(res.json()["choices"][0]["message"]["content"].get<std::string>());
  EXPECT_EQ(reply["label"], "billing");
  EXPECT_GT(reply["confidence"].get<double>(), 0.5);
  EXPECT_GT(res.json()["usage"]["prompt_tokens"].get<int>(), 0);
  // a label outside the schema's enum is never returned
  const auto other =
      http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "You won, claim your prize").dump());
  EXPECT_EQ(json::parse(other.json()["choices"][0]["message"]["content"].get<std::string>())["label"], "other");
  EXPECT_EQ(fakes.model().request_count(), 2);
}

TEST(ModelFake, FollowsOpenAIsRequestRules) {
  sandbox::InProcess fakes({}, {.api_key = "sk-test"});
  EXPECT_EQ(http(fakes.port(), "POST", "/v1/chat/completions", request("", "x").dump()).json()["error"]["code"],
            "invalid_api_key");
  const std::map<std::string, std::string> auth{{"Authorization", "Bearer sk-test"}};
  const auto no_json_word =
      http(fakes.port(), "POST", "/v1/chat/completions", request("json_object", "hello").dump(), auth);
  EXPECT_EQ(no_json_word.status, 400u);
  EXPECT_EQ(no_json_word.json()["error"]["param"], "messages");
  EXPECT_EQ(
      http(fakes.port(), "POST", "/v1/chat/completions", request("json_object", "reply in JSON").dump(), auth).status,
      200u);
  fakes.model().set_faults({.reject_json_schema = true});
  EXPECT_EQ(http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "x").dump(), auth)
                .json()["error"]["param"],
            "response_format");
}

TEST(ModelFake, FaultsOnRequest) {
  sandbox::InProcess fakes;
  fakes.model().set_faults({.fail = 1, .status = 429, .retry_after = 3, .invalid_json = 1});
  const auto limited = http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "x").dump());
  EXPECT_EQ(limited.status, 429u);
  EXPECT_EQ(limited.header("retry-after"), "3");
  const auto garbled = http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "x").dump());
  EXPECT_EQ(garbled.status, 200u);
  EXPECT_FALSE(json::accept(garbled.json()["choices"][0]["message"]["content"].get<std::string>()));
  const auto fine = http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "x").dump());
  EXPECT_TRUE(json::accept(fine.json()["choices"][0]["message"]["content"].get<std::string>()));
}
