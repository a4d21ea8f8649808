#pragma once
// A service's OpenAPI 3.1 document, from its router and the API descriptions beside its handlers.
//
// The router gives every operation: its method, its path (typed parameters become path
// parameters: `{id:uuid}` a string of format uuid, `{id:int}` an integer) and its declared access,
// which the service's Access turns into a security requirement and the answers its guard gives.
// What the router cannot know comes from the service's descriptions: JSON texts (a module's
// `*.api.json`, embedded at build time: cmake/embed_api_descriptions.cmake), each
//
//   {"tag": "Remote management",                      // the operations' tag (optional)
//    "schemas": {"RmmExecution": {...}},              // shared schemas: #/components/schemas/<name>
//    "routes": {
//      "GET /api/rmm/executions": {
//        "summary": "...", "description": "...",
//        "query": {"limit": {"schema": {"type": "integer"}, "description": "..."}},
//        "responses": {
//          "200": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/RmmExecution"}}},
//          "400": "a malformed limit"}},             // a string: a problem+json answer, and why
//      "POST /api/rmm/executions": {
//        "body": {"schema": {...}},                   // application/json; or {"content": {...}}
//        "security": [{"uploadToken": []}],           // instead of what its access gives
//        "responses": {"201": {"description": "queued", "schema": {...}},
//                      "204": {"description": "nothing to do"},            // no body
//                      "302": {"description": "...", "headers": {...}},
//                      "200": {"content": {"text/csv": {}}}}}}}          // OpenAPI's own content
//
// Every operation also gets the answers any route can give (the service's `common` responses,
// e.g. 500 and 503) and those of its access (401, 403), unless it says them itself.
// docs/openapi.md says how to write one and how the tests hold the code to it.
#include "core/http/router.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace core::openapi {

// How a service's access words (RouteInfo::access) are documented.
struct Access {
  nlohmann::json schemes = nlohmann::json::object();  // components.securitySchemes
  // The security requirement of a route with this access: an empty array for a public route,
  // e.g. [{"session": []}] for a signed-in one.
  std::function<nlohmann::json(std::string_view access)> security;
  // The answers its guard gives, by status: {"401": "not signed in", "403": "..."}.
  std::function<nlohmann::json(std::string_view access)> responses;
};

struct Description {
  std::string title;
  std::string version;
  std::string summary;  // info.description
  Access access;
  nlohmann::json common = nlohmann::json::object();  // answers any route can give, by status
  std::span<const std::string_view> texts;           // the API descriptions (JSON)
};

// The document. Throws std::invalid_argument for a description that is not JSON or not shaped as
// above (naming it), so that a build with a broken description fails its first test.
nlohmann::json document(const http::Router& router, const Description& description);

// What is wrong between the routes and the descriptions, one line each: a route with no
// description, a description of no route, an operation without a 2xx or 3xx answer, a $ref to
// no schema. Empty when the document is whole.
std::vector<std::string> gaps(const http::Router& router, const Description& description);

// The OpenAPI path of a router template: "/api/x/{id:uuid}" -> "/api/x/{id}".
std::string openapi_path(std::string_view path_template);

}  // namespace core::openapi
