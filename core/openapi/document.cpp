#include "core/openapi/document.hpp"

#include <boost/beast/http/verb.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace core::openapi {

using nlohmann::json;

namespace {

constexpr std::string_view kProblemRef = "#/components/schemas/Problem";

// RFC 9457's document as every route of the project renders it (core/http/problem.hpp); an
// extension member (an estimate a refusal names) may come besides.
json problem_schema() {
  return json::parse(R"({
    "type": "object",
    "description": "RFC 9457 problem details: every error answer of the service.",
    "required": ["type", "title", "status"],
    "properties": {
      "type": {"type": "string", "description": "/problems/<code>: the kind of problem"},
      "title": {"type": "string", "description": "the status's reason phrase"},
      "status": {"type": "integer", "minimum": 400, "maximum": 599},
      "detail": {"type": "string", "description": "what went wrong, for the caller"},
      "request_id": {"type": "string", "description": "the X-Request-Id of the request, for the logs"},
      "errors": {
        "type": "array",
        "description": "each field of the request that was refused, and why",
        "items": {"type": "object", "required": ["field", "message"],
                  "properties": {"field": {"type": "string"}, "message": {"type": "string"}}}}
    }
  })");
}

json problem_response(const std::string& why) {
  return {{"description", why},
          {"content", {{"application/problem+json", {{"schema", {{"$ref", std::string(kProblemRef)}}}}}}}};
}

std::string method_key(core::http::Verb verb) {
  std::string m(boost::beast::http::to_string(verb));
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return m;
}

std::string route_key(core::http::Verb verb, std::string_view path) {
  return std::string(boost::beast::http::to_string(verb)) + " " + std::string(path);
}

struct Described {
  json operation;   // as written in the description
  std::string tag;  // its description's tag
};

// Every description's routes by "METHOD /template", and their schemas, checked for shape.
struct Descriptions {
  std::map<std::string, Described> routes;
  json schemas = json::object();
};

Descriptions read(const Description& d) {
  Descriptions out;
  for (std::size_t i = 0; i < d.texts.size(); ++i) {
    const std::string which = "API description " + std::to_string(i + 1);
    const json text = json::parse(d.texts[i], nullptr, false);
    if (!text.is_object()) throw std::invalid_argument(which + " is not a JSON object");
    const std::string tag = text.value("tag", "");
    if (const auto s = text.find("schemas"); s != text.end()) {
      if (!s->is_object()) throw std::invalid_argument(which + ": schemas is not an object");
      for (const auto& [name, schema] : s->items()) {
        if (out.schemas.contains(name)) throw std::invalid_argument(which + ": schema " + name + " is described twice");
        out.schemas[name] = schema;
      }
    }
    const auto r = text.find("routes");
    if (r == text.end() || !r->is_object()) throw std::invalid_argument(which + " has no routes object");
    for (const auto& [key, operation] : r->items()) {
      if (!operation.is_object()) throw std::invalid_argument(which + ": " + key + " is not an object");
      if (out.routes.contains(key)) throw std::invalid_argument(which + ": " + key + " is described twice");
      out.routes[key] = {operation, tag};
    }
  }
  return out;
}

json response_of(const json& spec, const std::string& status, const std::string& where) {
  if (spec.is_string()) return problem_response(spec.get<std::string>());
  if (!spec.is_object()) throw std::invalid_argument(where + ": response " + status + " is neither text nor an object");
  json out = {{"description", spec.value("description", status.starts_with("2") ? "success" : status)}};
  if (const auto s = spec.find("schema"); s != spec.end()) out["content"] = {{"application/json", {{"schema", *s}}}};
  if (const auto c = spec.find("content"); c != spec.end()) out["content"] = *c;
  if (const auto h = spec.find("headers"); h != spec.end()) out["headers"] = *h;
  return out;
}

// The path parameters of a template, from its typed segments.
json path_parameters(std::string_view path_template) {
  json out = json::array();
  std::size_t at = 0;
  while ((at = path_template.find('{', at)) != std::string_view::npos) {
    const auto end = path_template.find('}', at);
    const auto inner = path_template.substr(at + 1, end - at - 1);
    const auto colon = inner.find(':');
    const std::string name(inner.substr(0, colon));
    const std::string type(colon == std::string_view::npos ? "" : inner.substr(colon + 1));
    json schema = {{"type", "string"}};
    if (type == "uuid") schema["format"] = "uuid";
    if (type == "int") schema = {{"type", "integer"}, {"format", "int64"}};
    out.push_back({{"name", name}, {"in", "path"}, {"required", true}, {"schema", schema}});
    at = end + 1;
  }
  return out;
}

json operation_of(const http::RouteInfo& route, const Described* described, const Description& d) {
  const std::string key = route_key(route.method, route.path);
  json op = json::object();
  const json spec = described ? described->operation : json::object();
  for (const char* field : {"summary", "description", "deprecated"})
    if (spec.contains(field)) op[field] = spec[field];
  if (described && !described->tag.empty()) op["tags"] = {described->tag};
  op["operationId"] = key;

  json parameters = path_parameters(route.path);
  if (const auto q = spec.find("query"); q != spec.end()) {
    if (!q->is_object()) throw std::invalid_argument(key + ": query is not an object");
    for (const auto& [name, p] : q->items()) {
      json parameter = {{"name", name}, {"in", "query"}};
      parameter["schema"] = p.value("schema", json{{"type", "string"}});
      for (const char* field : {"description", "required", "style", "explode"})
        if (p.contains(field)) parameter[field] = p[field];
      parameters.push_back(parameter);
    }
  }
  if (const auto h = spec.find("headers"); h != spec.end())
    for (const auto& [name, p] : h->items()) {
      json parameter = {{"name", name}, {"in", "header"}, {"schema", p.value("schema", json{{"type", "string"}})}};
      for (const char* field : {"description", "required"})
        if (p.contains(field)) parameter[field] = p[field];
      parameters.push_back(parameter);
    }
  if (!parameters.empty()) op["parameters"] = parameters;

  if (const auto b = spec.find("body"); b != spec.end()) {
    json body = {{"required", b->value("required", true)}};
    if (b->contains("description")) body["description"] = (*b)["description"];
    if (b->contains("content"))
      body["content"] = (*b)["content"];
    else if (b->contains("schema"))
      body["content"] = {{"application/json", {{"schema", (*b)["schema"]}}}};
    else
      throw std::invalid_argument(key + ": body has neither schema nor content");
    op["requestBody"] = body;
  }

  json responses = json::object();
  if (const auto r = spec.find("responses"); r != spec.end()) {
    if (!r->is_object()) throw std::invalid_argument(key + ": responses is not an object");
    for (const auto& [status, answer] : r->items()) responses[status] = response_of(answer, status, key);
  }
  // A typed path parameter that does not parse is the router's 400.
  if (route.path.find(':') != std::string::npos && !responses.contains("400"))
    responses["400"] = problem_response("a path parameter is malformed (the problem names it)");
  if (d.access.responses) {
    const json guard = d.access.responses(route.access);
    for (const auto& [status, why] : guard.items())
      if (!responses.contains(status)) responses[status] = problem_response(why.get<std::string>());
  }
  for (const auto& [status, why] : d.common.items())
    if (!responses.contains(status)) responses[status] = problem_response(why.get<std::string>());
  op["responses"] = responses;
  // A public route that checks a signature or a token itself says so in its description.
  op["security"] = spec.contains("security") ? spec["security"]
                   : d.access.security       ? d.access.security(route.access)
                                             : json::array();
  if (!route.access.empty()) op["x-access"] = route.access;
  if (!described) op["x-undescribed"] = true;
  return op;
}

// Every "$ref" string under `value`.
void collect_refs(const json& value, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [k, v] : value.items()) {
      if (k == "$ref" && v.is_string()) out.insert(v.get<std::string>());
      collect_refs(v, out);
    }
  } else if (value.is_array()) {
    for (const auto& v : value) collect_refs(v, out);
  }
}

}  // namespace

std::string openapi_path(std::string_view path_template) {
  std::string out;
  bool in_parameter = false, in_type = false;
  for (const char c : path_template) {
    if (c == '{') in_parameter = true;
    if (in_parameter && c == ':') in_type = true;
    if (c == '}') in_parameter = in_type = false;
    if (!in_type) out += c;
  }
  return out;
}

json document(const http::Router& router, const Description& d) {
  const auto descriptions = read(d);
  json paths = json::object();
  for (const auto& route : router.routes()) {
    const auto it = descriptions.routes.find(route_key(route.method, route.path));
    paths[openapi_path(route.path)][method_key(route.method)] =
        operation_of(route, it == descriptions.routes.end() ? nullptr : &it->second, d);
  }
  json schemas = descriptions.schemas;
  schemas["Problem"] = problem_schema();
  json doc = {{"openapi", "3.1.0"},
              {"info", {{"title", d.title}, {"version", d.version}, {"description", d.summary}}},
              {"paths", paths},
              {"components", {{"schemas", schemas}, {"securitySchemes", d.access.schemes}}}};
  std::set<std::string> tags;
  for (const auto& [key, described] : descriptions.routes)
    if (!described.tag.empty()) tags.insert(described.tag);
  if (!tags.empty()) {
    doc["tags"] = json::array();
    for (const auto& t : tags) doc["tags"].push_back({{"name", t}});
  }
  return doc;
}

std::vector<std::string> gaps(const http::Router& router, const Description& d) {
  std::vector<std::string> out;
  const auto descriptions = read(d);
  std::set<std::string> routed;
  for (const auto& route : router.routes()) {
    const auto key = route_key(route.method, route.path);
    routed.insert(key);
    const auto it = descriptions.routes.find(key);
    if (it == descriptions.routes.end()) {
      out.push_back(key + ": no description");
      continue;
    }
    const json responses = it->second.operation.value("responses", json::object());
    bool success = false;
    for (const auto& [status, answer] : responses.items())
      success = success || status.starts_with("2") || status.starts_with("3");
    if (!success) out.push_back(key + ": no 2xx or 3xx answer described");
  }
  for (const auto& [key, described] : descriptions.routes)
    if (!routed.contains(key)) out.push_back(key + ": described, but no such route");
  const json doc = document(router, d);
  std::set<std::string> refs;
  collect_refs(doc, refs);
  for (const auto& ref : refs) {
    bool found = false;
    try {
      found = ref.starts_with("#/") && doc.contains(json::json_pointer(ref.substr(1)));
    } catch (const json::exception&) {
      // not a JSON pointer
    }
    if (!found) out.push_back("$ref " + ref + " names nothing");
  }
  return out;
}

}  // namespace core::openapi
