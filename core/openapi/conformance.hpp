#pragma once
// Whether an answer is what the OpenAPI document says of its route: the API tests hold every
// response they receive to the document (core/testing: HttpClient), so that it cannot drift.
//
//   core::openapi::Conformance check(document);
//   for (const auto& e : check.errors("GET", "/api/rmm/executions?limit=5", 200, "application/json", body))
//     ADD_FAILURE() << e;
//
// The request's path is matched to the document's paths as the router matches templates (a
// literal segment wins over a parameter). A path or method the document does not have is not
// checked (the router's own 404 and 405, HEAD). Otherwise the status must be documented; a body of
// a JSON media type must parse and hold to the documented schema (core::json::schema_errors, with
// the document as the root of its $refs); any other body must come with a documented media type.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace core::openapi {

class Conformance {
 public:
  explicit Conformance(nlohmann::json document);

  // What is wrong with this answer, one line each, each starting with "METHOD /template STATUS: ";
  // empty when it is as documented or the route is not in the document.
  std::vector<std::string> errors(std::string_view method, std::string_view target, unsigned status,
                                  std::string_view content_type, std::string_view body) const;

  // The document's path template the target falls under ("/api/x/{id}"), or empty.
  std::string path_of(std::string_view target) const;

 private:
  nlohmann::json document_;
  std::vector<std::vector<std::string>> templates_;  // each path, split into segments
  std::vector<std::string> paths_;
};

}  // namespace core::openapi
