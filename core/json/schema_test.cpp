#include "core/json/schema.hpp"

#include <gtest/gtest.h>

using core::json::schema_errors;
using nlohmann::json;
using Messages = std::vector<std::string>;

namespace {

// The shape of a ticket analysis as a model is asked for it.
json analysis_schema() {
  return {
      {"type", "object"},
      {"properties",
       {{"category", {{"type", "string"}, {"enum", {"network", "hardware", "software", "account"}}}},
        {"urgency", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"summary", {{"type", "string"}, {"minLength", 1}, {"maxLength", 300}}},
        {"nextSteps",
         {{"type", "array"}, {"minItems", 1}, {"maxItems", 5}, {"items", {{"type", "string"}, {"maxLength", 300}}}}},
        {"escalate", {{"type", "boolean"}}},
        {"assignee", {{"type", {"string", "null"}}}}}},
      {"required", {"category", "urgency", "confidence", "summary", "nextSteps", "escalate", "assignee"}},
      {"additionalProperties", false}};
}

json valid_analysis() {
  return {{"category", "network"},
          {"urgency", 3},
          {"confidence", 0.8},
          {"summary", "The VPN drops every hour."},
          {"nextSteps", {"Check the tunnel logs", "Update the client"}},
          {"escalate", false},
          {"assignee", nullptr}};
}

}  // namespace

TEST(SchemaErrors, AValidReplyHasNone) {
  EXPECT_EQ(schema_errors(analysis_schema(), valid_analysis()), Messages{});
  auto named = valid_analysis();
  named["assignee"] = "Dana";  // a type array: string or null
  named["urgency"] = 2.0;      // an integer written as a float is still an integer
  EXPECT_EQ(schema_errors(analysis_schema(), named), Messages{});
}

TEST(SchemaErrors, MessagesNameTheJsonPointer) {
  auto reply = valid_analysis();
  reply["nextSteps"] = {"one", "two", std::string(301, 'x')};
  EXPECT_EQ(schema_errors(analysis_schema(), reply), Messages{"/nextSteps/2: is longer than 300 characters"});
  reply = valid_analysis();
  reply["category"] = "printer";
  reply["urgency"] = 2.5;
  reply["confidence"] = 1.5;
  reply.erase("summary");
  reply["extra"] = 1;
  EXPECT_EQ(
      schema_errors(analysis_schema(), reply),
      (Messages{
          "/summary: is required", "/category: must be one of \"network\", \"hardware\", \"software\", \"account\"",
          "/confidence: must be at most 1", "/urgency: must be an integer, not a number", "/extra: is not allowed"}));
}

TEST(SchemaErrors, TypesAndTheWholeValue) {
  EXPECT_EQ(schema_errors(analysis_schema(), json::array()), Messages{"/: must be an object, not an array"});
  EXPECT_EQ(schema_errors({{"type", {"string", "null"}}}, 3), Messages{"/: must be a string or null, not an integer"});
  EXPECT_EQ(schema_errors({{"type", "number"}}, 3), Messages{});  // an integer is a number
  EXPECT_EQ(schema_errors({{"type", "boolean"}}, "true"), Messages{"/: must be a boolean, not a string"});
  EXPECT_EQ(schema_errors({{"type", "null"}}, nullptr), Messages{});
  // A wrong type gets one message, not one per keyword besides.
  EXPECT_EQ(schema_errors({{"type", "string"}, {"maxLength", 1}, {"enum", {"a"}}}, 12).size(), 1u);
  EXPECT_EQ(schema_errors(true, json::object()), Messages{});
  EXPECT_EQ(schema_errors(false, 1), Messages{"/: is not allowed"});
}

TEST(SchemaErrors, LengthsCountCharactersNotBytes) {
  const json schema = {{"type", "string"}, {"minLength", 2}, {"maxLength", 5}};
  EXPECT_EQ(schema_errors(schema, "h\u00e9ll\u00f6"), Messages{});  // 5 characters, 7 bytes
  EXPECT_EQ(schema_errors(schema, "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"), Messages{"/: is longer than 5 characters"});
  EXPECT_EQ(schema_errors(schema, "x"), Messages{"/: is shorter than 2 characters"});
  EXPECT_EQ(schema_errors({{"minLength", 1}}, ""), Messages{"/: must not be empty"});
}

TEST(SchemaErrors, ArraysAndTheirItems) {
  const json schema = {{"type", "array"}, {"minItems", 2}, {"maxItems", 3}, {"items", {{"type", "string"}}}};
  EXPECT_EQ(schema_errors(schema, {"a", "b"}), Messages{});
  EXPECT_EQ(schema_errors(schema, {"a"}), Messages{"/: has 1 item, at least 2 required"});
  EXPECT_EQ(schema_errors(schema, {"a", "b", 3, "d"}),
            (Messages{"/: has 4 items, at most 3 allowed", "/2: must be a string, not an integer"}));
}

TEST(SchemaErrors, NumbersCompareExactly) {
  EXPECT_EQ(schema_errors({{"minimum", 0}, {"maximum", 1}}, 0.5), Messages{});
  EXPECT_EQ(schema_errors({{"minimum", 0}}, -0.01), Messages{"/: must be at least 0"});
  EXPECT_EQ(schema_errors({{"maximum", 9007199254740992}}, 9007199254740993u),
            Messages{"/: must be at most 9007199254740992"});
  EXPECT_EQ(schema_errors({{"minimum", -5}}, 18446744073709551615u), Messages{});
  EXPECT_EQ(schema_errors({{"maximum", -5}}, 3u), Messages{"/: must be at most -5"});
  EXPECT_EQ(schema_errors({{"maximum", 1.5}}, 2), Messages{"/: must be at most 1.5"});
}

TEST(SchemaErrors, EnumConstAndNestedObjects) {
  const json schema = {{"type", "object"},
                       {"properties",
                        {{"kind", {{"const", "ticket"}}},
                         {"owner",
                          {{"type", "object"},
                           {"properties", {{"id", {{"type", "integer"}}}}},
                           {"required", {"id"}},
                           {"additionalProperties", {{"type", "string"}}}}}}}};
  EXPECT_EQ(schema_errors(schema, {{"kind", "ticket"}, {"owner", {{"id", 7}, {"note", "x"}}}}), Messages{});
  EXPECT_EQ(schema_errors(schema, {{"kind", "task"}, {"owner", {{"note", 5}}}}),
            (Messages{"/kind: must be \"ticket\"", "/owner/id: is required",
                      "/owner/note: must be a string, not an integer"}));
  EXPECT_EQ(schema_errors({{"enum", {1, "two", nullptr}}}, nullptr), Messages{});
  EXPECT_EQ(schema_errors({{"enum", {1, "two"}}}, 2), Messages{"/: must be one of 1, \"two\""});
}

TEST(SchemaErrors, UnknownKeywordsAreIgnored) {
  const json schema = {{"type", "string"}, {"pattern", "^x$"}, {"format", "email"}, {"maxLength", "ten"}};
  EXPECT_EQ(schema_errors(schema, "not an email and much longer than ten"), Messages{});
}

TEST(SchemaErrors, RefsResolveInTheRootDocumentAndAlternativesAreWeighed) {
  // As in an OpenAPI document: schemas under components, named by JSON pointers.
  const json root = json::parse(R"({"components": {"schemas": {
    "Problem": {"type": "object", "required": ["title", "status"],
                "properties": {"title": {"type": "string"}, "status": {"type": "integer"}}},
    "Id": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "minLength": 1}]},
    "Maybe": {"anyOf": [{"type": "null"}, {"$ref": "#/components/schemas/Problem"}]},
    "Loop": {"$ref": "#/components/schemas/Loop"}}}})");
  const json problem = {{"$ref", "#/components/schemas/Problem"}};
  EXPECT_EQ(schema_errors(problem, {{"title", "Not Found"}, {"status", 404}}, 10, &root), Messages{});
  EXPECT_EQ(schema_errors(problem, {{"title", "Not Found"}}, 10, &root), Messages{"/status: is required"});
  const json id = {{"$ref", "#/components/schemas/Id"}};
  EXPECT_EQ(schema_errors(id, 7, 10, &root), Messages{});
  EXPECT_EQ(schema_errors(id, "x", 10, &root), Messages{});
  EXPECT_EQ(schema_errors(id, 0, 10, &root),
            (Messages{"/: matches none of the 2 alternatives; the closest says:", "/:   /: must be at least 1"}));
  const json both = {{"oneOf", {{{"type", "integer"}}, {{"type", "number"}}}}};
  EXPECT_EQ(schema_errors(both, 3, 10, &root), Messages{"/: matches 2 of the alternatives, where exactly one must"});
  const json maybe = {{"type", "object"}, {"properties", {{"error", {{"$ref", "#/components/schemas/Maybe"}}}}}};
  EXPECT_EQ(schema_errors(maybe, {{"error", nullptr}}, 10, &root), Messages{});
  EXPECT_EQ(schema_errors(maybe, {{"error", {{"title", 1}, {"status", 500}}}}, 10, &root),
            (Messages{"/error: matches none of the 2 alternatives; the closest says:",
                      "/error:   /error/title: must be a string, not an integer"}));
  const json all = {{"allOf", {problem, {{"required", {"detail"}}}}}};
  EXPECT_EQ(schema_errors(all, {{"title", "t"}, {"status", 400}}, 10, &root), Messages{"/detail: is required"});
  // A reference to nothing, or with no document to look in, is said; a loop stops at the depth limit.
  EXPECT_EQ(schema_errors({{"$ref", "#/components/schemas/None"}}, 1, 10, &root),
            Messages{"/: the schema's $ref #/components/schemas/None names nothing"});
  EXPECT_EQ(schema_errors(problem, 1), Messages{"/: the schema's $ref #/components/schemas/Problem names nothing"});
  EXPECT_EQ(schema_errors({{"$ref", "#/components/schemas/Loop"}}, 1, 10, &root).size(), 1u);
}

TEST(SchemaErrors, PointersEscapeAndHostileNamesAreCut) {
  const json schema = {{"type", "object"}, {"additionalProperties", false}};
  EXPECT_EQ(schema_errors(schema, {{"a/b~c", 1}}), Messages{"/a~1b~0c: is not allowed"});
  const std::string long_name(10'000, 'k');
  const auto errors = schema_errors(schema, {{long_name, 1}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "/" + std::string(64, 'k') + "\u2026: is not allowed");
  // A multi-byte name is cut between characters, so the message stays valid UTF-8.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\u00e9";
  const auto cut = schema_errors(schema, {{accents, 1}});
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_NO_THROW((void)json(cut[0]).dump());
}

TEST(SchemaErrors, StopsAtMaxErrors) {
  const json schema = {{"type", "array"}, {"items", {{"type", "string"}}}};
  const json many = json(std::vector<int>(100'000, 1));
  EXPECT_EQ(schema_errors(schema, many).size(), 10u);
  EXPECT_EQ(schema_errors(schema, many, 3).size(), 3u);
  EXPECT_EQ(schema_errors(schema, many, 0).size(), 1u);  // at least one
}

TEST(SchemaErrors, DepthFollowsTheSchemaAndIsBounded) {
  // A deeply nested value under a shallow schema is looked at only as deep as the schema goes.
  json deep = "leaf";
  for (int i = 0; i < 1000; ++i) {
    json wrapped = json::array();
    wrapped.push_back(std::move(deep));
    deep = std::move(wrapped);
  }
  EXPECT_EQ(schema_errors({{"type", "array"}, {"items", {{"type", "array"}}}}, deep), Messages{});
  // A schema deeper than 64 levels stops with a message.
  json schema = {{"type", "string"}};
  for (int i = 0; i < 100; ++i) schema = {{"type", "array"}, {"items", schema}};
  const auto errors = schema_errors(schema, deep);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("nested deeper than 64 levels"), std::string::npos) << errors[0];
}
