#include "core/openapi/conformance.hpp"
#include "core/openapi/document.hpp"

#include <gtest/gtest.h>

using core::http::Router;
using core::http::Verb;
using core::openapi::Conformance;
using core::openapi::Description;
using nlohmann::json;
using Lines = std::vector<std::string>;

namespace {

core::http::Handler nothing() {
  return [](core::http::Request&) -> boost::asio::awaitable<core::http::Response> {
    co_return core::http::Response::empty();
  };
}

Router routes() {
  Router r;
  r.add(Verb::get, "/api/things", nothing(), "auth");
  r.add(Verb::post, "/api/things", nothing(), "admin");
  r.add(Verb::get, "/api/things/{id:uuid}", nothing(), "auth");
  r.add(Verb::get, "/api/things/mine", nothing(), "auth");
  r.add(Verb::get, "/api/items/{n:int}/notes/{name}", nothing(), "public");
  return r;
}

constexpr std::string_view kThings = R"({
  "tag": "Things",
  "schemas": {"Thing": {"type": "object", "required": ["id", "name"],
                        "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                       "size": {"type": ["integer", "null"]}},
                        "additionalProperties": false}},
  "routes": {
    "GET /api/things": {
      "summary": "Every thing",
      "query": {"limit": {"schema": {"type": "integer", "minimum": 1}, "description": "at most this many"}},
      "responses": {"200": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}},
                    "400": "a malformed limit"}},
    "POST /api/things": {
      "body": {"schema": {"$ref": "#/components/schemas/Thing"}},
      "responses": {"201": {"description": "made", "schema": {"$ref": "#/components/schemas/Thing"}},
                    "204": {"description": "it was there already"}}},
    "GET /api/things/{id:uuid}": {
      "responses": {"200": {"schema": {"$ref": "#/components/schemas/Thing"}}, "404": "no such thing"}},
    "GET /api/things/mine": {
      "responses": {"200": {"content": {"text/csv": {}}}}}
  }})";

Description described(std::span<const std::string_view> texts) {
  Description d{.title = "things", .version = "1.0.0", .summary = "what things there are"};
  d.access.schemes = {{"session", {{"type", "apiKey"}, {"in", "cookie"}, {"name", "s"}}}};
  d.access.security = [](std::string_view access) {
    return access == "public" ? json::array() : json::array({{{"session", json::array()}}});
  };
  d.access.responses = [](std::string_view access) {
    return access == "public" ? json::object() : json{{"401", "not signed in"}};
  };
  d.common = {{"503", "the database is down"}};
  d.texts = texts;
  return d;
}

}  // namespace

TEST(OpenApiDocument, EveryRouteIsAnOperationWithItsParametersSecurityAndAnswers) {
  const Router router = routes();
  const std::string_view texts[] = {kThings};
  const json doc = core::openapi::document(router, described(texts));
  EXPECT_EQ(doc["openapi"], "3.1.0");
  EXPECT_EQ(doc["info"]["title"], "things");
  EXPECT_EQ(doc["paths"].size(), 4u);  // GET and POST /api/things share a path

  const json& list = doc["paths"]["/api/things"]["get"];
  EXPECT_EQ(list["summary"], "Every thing");
  EXPECT_EQ(list["tags"], json::array({"Things"}));
  EXPECT_EQ(list["parameters"][0]["name"], "limit");
  EXPECT_EQ(list["parameters"][0]["in"], "query");
  EXPECT_EQ(list["security"], json::parse(R"([{"session": []}])"));
  EXPECT_EQ(list["responses"]["400"]["content"]["application/problem+json"]["schema"]["$ref"],
            "#/components/schemas/Problem");
  EXPECT_EQ(list["responses"]["401"]["description"], "not signed in");         // the access's answer
  EXPECT_EQ(list["responses"]["503"]["description"], "the database is down");  // any route's
  EXPECT_EQ(doc["paths"]["/api/things"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Thing");

  const json& one = doc["paths"]["/api/things/{id}"]["get"];
  EXPECT_EQ(one["parameters"][0], json::parse(R"({"name": "id", "in": "path", "required": true,
                                                   "schema": {"type": "string", "format": "uuid"}})"));
  EXPECT_TRUE(one["responses"].contains("400"));  // the router's answer to a malformed uuid

  // Undescribed: still an operation (path, parameters, security), marked so.
  const json& notes = doc["paths"]["/api/items/{n}/notes/{name}"]["get"];
  EXPECT_EQ(notes["security"], json::array());
  EXPECT_EQ(notes["parameters"][0]["schema"]["type"], "integer");
  EXPECT_EQ(notes["parameters"][1]["schema"]["type"], "string");
  EXPECT_TRUE(notes["x-undescribed"].get<bool>());
  EXPECT_TRUE(doc["components"]["schemas"].contains("Problem"));
  EXPECT_TRUE(doc["components"]["schemas"].contains("Thing"));
}

TEST(OpenApiDocument, GapsNameWhatIsUndescribedOrDescribedTwiceOrDangling) {
  const Router router = routes();
  const std::string_view texts[] = {kThings, R"({"routes": {
      "DELETE /api/things": {"responses": {"204": {}}},
      "GET /api/items/{n:int}/notes/{name}": {"responses": {"404": "none",
                                               "200": {"schema": {"$ref": "#/components/schemas/Note"}}}}}})"};
  EXPECT_EQ(core::openapi::gaps(router, described(texts)), (Lines{"DELETE /api/things: described, but no such route",
                                                                  "$ref #/components/schemas/Note names nothing"}));
  const std::string_view only_things[] = {kThings};
  EXPECT_EQ(core::openapi::gaps(router, described(only_things)),
            Lines{"GET /api/items/{n:int}/notes/{name}: no description"});
  const std::string_view broken[] = {"{\"routes\": 1}"};
  EXPECT_THROW(core::openapi::document(router, described(broken)), std::invalid_argument);
  const std::string_view twice[] = {kThings, kThings};
  EXPECT_THROW(core::openapi::document(router, described(twice)), std::invalid_argument);
}

TEST(OpenApiConformance, AnswersAreHeldToTheirRoutesDocumentation) {
  const Router router = routes();
  const std::string_view texts[] = {kThings};
  const Conformance check(core::openapi::document(router, described(texts)));
  const std::string json_type = "application/json";
  EXPECT_EQ(check.path_of("/api/things/mine?x=1"), "/api/things/mine");  // the literal wins
  EXPECT_EQ(check.path_of("/api/things/7f1c"), "/api/things/{id}");
  EXPECT_EQ(check.path_of("/nowhere"), "");

  EXPECT_EQ(check.errors("GET", "/api/things?limit=2", 200, json_type, R"([{"id": "a", "name": "b", "size": null}])"),
            Lines{});
  EXPECT_EQ(check.errors("GET", "/api/things", 200, json_type, R"([{"id": "a", "size": 1.5, "colour": "red"}])"),
            (Lines{"GET /api/things 200: /0/name: is required",
                   "GET /api/things 200: /0/size: must be an integer or null, not a number",
                   "GET /api/things 200: /0/colour: is not allowed"}));
  EXPECT_EQ(check.errors("GET", "/api/things", 418, json_type, "{}"),
            Lines{"GET /api/things 418: this status is not documented"});
  EXPECT_EQ(check.errors("GET", "/api/things", 503, "application/problem+json; charset=utf-8",
                         R"({"type": "/problems/unavailable", "title": "Service Unavailable", "status": 503})"),
            Lines{});
  EXPECT_EQ(check.errors("GET", "/api/things", 401, "application/problem+json", R"({"title": "x"})"),
            (Lines{"GET /api/things 401: /type: is required", "GET /api/things 401: /status: is required"}));
  EXPECT_EQ(check.errors("GET", "/api/things", 200, json_type, "[1,"),
            Lines{"GET /api/things 200: the body is not JSON"});
  EXPECT_EQ(check.errors("GET", "/api/things", 200, "text/html", "<p>"),
            Lines{"GET /api/things 200: media type text/html is not documented"});
  EXPECT_EQ(check.errors("POST", "/api/things", 204, "", ""), Lines{});
  EXPECT_EQ(check.errors("POST", "/api/things", 204, json_type, "{}"),
            Lines{"POST /api/things 204: a body came where none is documented"});
  EXPECT_EQ(check.errors("GET", "/api/things/mine", 200, "text/csv", "a,b\n"), Lines{});
  // Not the document's to judge: the router's 404 and 405, HEAD, and an undescribed route.
  EXPECT_EQ(check.errors("GET", "/nowhere", 404, json_type, "{}"), Lines{});
  EXPECT_EQ(check.errors("DELETE", "/api/things", 405, json_type, "{}"), Lines{});
  EXPECT_EQ(check.errors("HEAD", "/api/things", 200, json_type, ""), Lines{});
  EXPECT_EQ(check.errors("GET", "/api/items/1/notes/x", 200, json_type, "1"), Lines{});
}
