#include "core/openapi/conformance.hpp"

#include "core/json/schema.hpp"

#include <algorithm>

namespace core::openapi {

using nlohmann::json;

namespace {

std::vector<std::string> segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool is_parameter(const std::string& segment) { return segment.size() > 1 && segment.front() == '{'; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "application/json; charset=utf-8" -> "application/json"
std::string media_type(std::string_view content_type) {
  const auto semicolon = content_type.find(';');
  auto type = content_type.substr(0, semicolon);
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return lower(type);
}

bool is_json(const std::string& media) { return media == "application/json" || media.ends_with("+json"); }

}  // namespace

Conformance::Conformance(json document) : document_(std::move(document)) {
  const json paths = document_.value("paths", json::object());
  for (const auto& [path, item] : paths.items()) {
    paths_.push_back(path);
    templates_.push_back(segments(path));
  }
}

std::string Conformance::path_of(std::string_view target) const {
  const auto path = target.substr(0, target.find('?'));
  const auto asked = segments(path);
  std::string best;
  int best_literals = -1;
  for (std::size_t i = 0; i < templates_.size(); ++i) {
    const auto& t = templates_[i];
    if (t.size() != asked.size()) continue;
    int literals = 0;
    bool matches = true;
    for (std::size_t k = 0; k < t.size() && matches; ++k) {
      if (is_parameter(t[k]))
        matches = !asked[k].empty();
      else if (t[k] == asked[k])
        ++literals;
      else
        matches = false;
    }
    // The router prefers a literal at the first position where two templates differ; counting
    // literals picks the same template for every route set the services register.
    if (matches && literals > best_literals) {
      best = paths_[i];
      best_literals = literals;
    }
  }
  return best;
}

std::vector<std::string> Conformance::errors(std::string_view method, std::string_view target, unsigned status,
                                             std::string_view content_type, std::string_view body) const {
  const std::string path = path_of(target);
  if (path.empty()) return {};
  const auto& item = document_["paths"][path];
  const auto operation = item.find(lower(method));
  if (operation == item.end() || operation->value("x-undescribed", false)) return {};
  const std::string where = std::string(method) + " " + path + " " + std::to_string(status) + ": ";
  const auto& responses = (*operation)["responses"];
  const auto response = responses.find(std::to_string(status));
  if (response == responses.end()) {
    if (!responses.contains("default")) return {where + "this status is not documented"};
    return {};
  }
  const auto content = response->find("content");
  if (content == response->end() || content->empty()) {
    if (!body.empty()) return {where + "a body came where none is documented"};
    return {};
  }
  if (body.empty() && status == 304) return {};
  const std::string media = media_type(content_type);
  const auto documented = content->find(media);
  if (documented == content->end()) return {where + "media type " + media + " is not documented"};
  if (!is_json(media)) return {};
  const json value = json::parse(body, nullptr, false);
  if (value.is_discarded()) return {where + "the body is not JSON"};
  const auto schema = documented->find("schema");
  if (schema == documented->end()) return {};
  std::vector<std::string> out;
  for (const auto& e : core::json::schema_errors(*schema, value, 10, &document_)) out.push_back(where + e);
  return out;
}

}  // namespace core::openapi
