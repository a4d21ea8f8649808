// The chat-completions fake: OpenAI's request rules and error bodies, schema-valid replies,
// refusals and unknown models.
#include "core/json/schema.hpp"
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <set>

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

namespace {

// What the ticket analyzer asks for: every keyword of the subset core/json/schema.hpp checks.
json analysis_schema() {
  return {
      {"type", "object"},
      {"properties",
       {{"category", {{"type", "string"}, {"enum", {"network", "hardware", "software", "account", "security"}}}},
        {"urgency", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"summary", {{"type", "string"}, {"minLength", 20}, {"maxLength", 120}}},
        {"nextSteps",
         {{"type", "array"}, {"minItems", 1}, {"maxItems", 5}, {"items", {{"type", "string"}, {"maxLength", 80}}}}},
        {"escalate", {{"type", "boolean"}}},
        {"owner", {{"type", {"string", "null"}}}},
        {"customer", {{"type", "object"}, {"properties", {{"tier", {{"const", "gold"}}}}}, {"required", {"tier"}}}}}},
      {"required", {"category", "urgency", "summary", "nextSteps"}},
      {"additionalProperties", false}};
}

json analysis_request(const std::string& ticket, const std::string& marker = "3f9a1c0b7d2e4f6a8b9c") {
  return {{"model", "gpt-4o-mini"},
          {"temperature", 0},
          {"messages",
           {{{"role", "system"}, {"content", "Analyse the ticket between the <<<TICKET " + marker + ">>> lines."}},
            {{"role", "user"},
             {"content", "<<<TICKET " + marker + ">>>\n" + ticket + "\n<<<END TICKET " + marker + ">>>"}}}},
          {"response_format",
           {{"type", "json_schema"},
            {"json_schema", {{"name", "ticket_analysis"}, {"strict", true}, {"schema", analysis_schema()}}}}}};
}

json content_of(const core::testing::HttpResponse& res) {
  return json::parse(res.json()["choices"][0]["message"]["content"].get<std::string>());
}

}  // namespace

TEST(ModelFake, AnswersAnyOtherSchemaWithAValueValidAgainstIt) {
  sandbox::InProcess fakes;
  const std::string ticket = "Title: VPN drops every hour\nDescription: Users at the Leeds office lose the VPN tunnel.";
  const auto res = http(fakes.port(), "POST", "/v1/chat/completions", analysis_request(ticket).dump());
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["object"], "chat.completion");
  EXPECT_EQ(res.json()["choices"][0]["finish_reason"], "stop");
  ASSERT_TRUE(res.json()["choices"][0]["message"]["content"].is_string());  // JSON in a string, as OpenAI sends it
  const auto reply = content_of(res);
  EXPECT_EQ(core::json::schema_errors(analysis_schema(), reply), std::vector<std::string>{}) << reply.dump();
  EXPECT_EQ(reply.size(), 8u);  // every property, required or not
  EXPECT_EQ(reply["nextSteps"].size(), 2u);
  EXPECT_EQ(reply["escalate"], false);
  EXPECT_EQ(reply["customer"]["tier"], "gold");
  // A sentence made of the ticket's words.
  const std::string user = analysis_request(ticket)["messages"][1]["content"];
  const std::string summary = reply["summary"];
  for (auto word : core::split(summary, ' ')) {
    while (!word.empty() && word.back() == '.') word.remove_suffix(1);
    EXPECT_NE(core::to_lower(user).find(core::to_lower(word)), std::string::npos) << reply["summary"];
  }

  // Usage: about four characters a token, of every message and of the reply.
  const auto request = analysis_request(ticket);
  const std::string prompt =
      request["messages"][0]["content"].get<std::string>() + request["messages"][1]["content"].get<std::string>();
  const std::string content = res.json()["choices"][0]["message"]["content"];
  EXPECT_EQ(res.json()["usage"]["prompt_tokens"], prompt.size() / 4 + 1);
  EXPECT_EQ(res.json()["usage"]["completion_tokens"], content.size() / 4 + 1);
  EXPECT_EQ(res.json()["usage"]["total_tokens"], prompt.size() / 4 + 1 + content.size() / 4 + 1);
}

TEST(ModelFake, TheSameTicketGetsTheSameAnswerAndTicketsDiffer) {
  sandbox::InProcess fakes;
  const std::string ticket = "Title: Printer offline\nDescription: The second-floor printer shows offline.";
  const auto first = http(fakes.port(), "POST", "/v1/chat/completions", analysis_request(ticket).dump());
  // A client draws a new boundary marker for every call; the answer stays the same.
  const auto again =
      http(fakes.port(), "POST", "/v1/chat/completions", analysis_request(ticket, "a81c93e0f4d2b7c65e10").dump());
  EXPECT_EQ(content_of(first), content_of(again));
  std::set<std::string> categories;
  for (int i = 0; i < 20; ++i) {
    const auto res =
        http(fakes.port(), "POST", "/v1/chat/completions",
             analysis_request("Title: ticket " + std::to_string(i) + "\nDescription: something broke").dump());
    categories.insert(content_of(res)["category"].get<std::string>());
  }
  EXPECT_GE(categories.size(), 3u);
}

TEST(ModelFake, SchemaValuesKeepEveryBound) {
  const std::vector<json> schemas = {
      {{"type", "array"}, {"maxItems", 1}, {"items", {{"type", "integer"}, {"minimum", 10}, {"maximum", 10}}}},
      {{"type", "array"}, {"minItems", 4}, {"items", {{"type", "number"}, {"maximum", -3.5}}}},
      {{"type", "string"}, {"minLength", 300}, {"maxLength", 310}},
      {{"type", "string"}, {"maxLength", 3}},
      {{"type", "integer"}, {"minimum", -7}},
      {{"type", "number"}, {"minimum", 0.1}, {"maximum", 0.3}},
      {{"type", {"null", "boolean"}}},
      {{"type", "object"},
       {"properties", {{"a", {{"type", "object"}, {"properties", {{"b", {{"enum", {1, 2, 3}}}}}}}}}}},
      {{"properties", {{"untyped", json::object()}}}, {"required", {"untyped", "unlisted"}}}};
  for (const std::string user : {"", "Short.", "Ünïcödé text with àccents, repeated: ünïcödé ünïcödé ünïcödé ünïcödé"})
    for (const auto& schema : schemas) {
      const auto value = sandbox::fake_from_schema(schema, user);
      EXPECT_EQ(core::json::schema_errors(schema, value), std::vector<std::string>{})
          << schema.dump() << " -> " << value.dump();
      EXPECT_NO_THROW((void)value.dump());  // valid UTF-8 when cut
    }
}

TEST(ModelFake, RefusesOnRequestAsStructuredOutputsDo) {
  sandbox::InProcess fakes;
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"refuse": 1})").status, 204u);
  const auto refused = http(fakes.port(), "POST", "/v1/chat/completions", analysis_request("Title: x").dump());
  ASSERT_EQ(refused.status, 200u) << refused.body;
  const auto message = refused.json()["choices"][0]["message"];
  EXPECT_TRUE(message["content"].is_null());
  EXPECT_EQ(message["refusal"], "I'm sorry, I cannot assist with that request.");
  EXPECT_EQ(message["role"], "assistant");
  EXPECT_EQ(refused.json()["usage"]["completion_tokens"], message["refusal"].get<std::string>().size() / 4 + 1);
  // Only the next N calls.
  const auto fine = http(fakes.port(), "POST", "/v1/chat/completions", analysis_request("Title: x").dump());
  EXPECT_TRUE(fine.json()["choices"][0]["message"]["content"].is_string());
  EXPECT_TRUE(fine.json()["choices"][0]["message"]["refusal"].is_null());
  // mail-triage's requests are refused the same way.
  fakes.model().set_faults({.refuse = 1});
  EXPECT_TRUE(http(fakes.port(), "POST", "/v1/chat/completions", request("json_schema", "x").dump())
                  .json()["choices"][0]["message"]["content"]
                  .is_null());
}

TEST(ModelFake, AnUnknownModelIs404ModelNotFound) {
  sandbox::InProcess fakes;
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"unknown_models": ["gpt-9-preview"], "refuse": 1})")
                .status,
            204u);
  auto body = analysis_request("Title: x");
  body["model"] = "gpt-9-preview";
  const auto missing = http(fakes.port(), "POST", "/v1/chat/completions", body.dump());
  EXPECT_EQ(missing.status, 404u);
  EXPECT_EQ(
      missing.json(),
      json::parse(R"({"error": {"message": "The model `gpt-9-preview` does not exist or you do not have access to it.",
                                                       "type": "invalid_request_error", "param": null, "code": "model_not_found"}})"));
  // Another model answers, and the 404 used up none of the counts.
  const auto other = http(fakes.port(), "POST", "/v1/chat/completions", analysis_request("Title: x").dump());
  EXPECT_EQ(other.status, 200u);
  EXPECT_TRUE(other.json()["choices"][0]["message"]["content"].is_null());
  EXPECT_EQ(fakes.model().requests()["requests"][0]["model"], "gpt-9-preview");  // still recorded
}

TEST(ModelFake, TheFaultsRouteChecksItsBody) {
  sandbox::InProcess fakes;
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"refuse": "two"})").status, 400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"unknown_models": "gpt-4o"})").status, 400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"status": 200, "fail": 1})").status, 400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/model/faults", R"({"fail": 1, "status": 503})").status, 204u);
  EXPECT_EQ(http(fakes.port(), "POST", "/v1/chat/completions", analysis_request("x").dump()).status, 503u);
}
