#include "core/testing/readme_routes.hpp"

#include "core/testing/testing.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace core::testing {

namespace {

std::string untyped(const std::string& key) {
  static const std::regex typed(R"(\{([A-Za-z_]+):[a-z]+\})");
  return std::regex_replace(key, typed, "{$1}");
}

}  // namespace

std::map<std::string, ReadmeRoute> readme_routes(const std::string& relative_path) {
  std::ifstream in(project_root() + "/" + relative_path);
  std::stringstream text;
  text << in.rdbuf();
  static const std::regex row(
      R"(^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`?]+)[^`]*` \| ([^|(]+?) ?(\([^)]*\))? \|(.*)$)");
  static const std::regex bold_status(R"(\*\*([1-5][0-9][0-9])\*\*)");
  std::map<std::string, ReadmeRoute> out;
  std::string line;
  while (std::getline(text, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    ReadmeRoute r{.access = m[3]};
    if (r.access == "perm") r.access += m[4].str();
    const std::string what = m[5];
    for (auto it = std::sregex_iterator(what.begin(), what.end(), bold_status); it != std::sregex_iterator(); ++it)
      r.statuses.insert((*it)[1]);
    out.emplace(untyped(m[1].str() + " " + m[2].str()), r);
  }
  return out;
}

std::vector<std::string> readme_disagreements(const std::map<std::string, ReadmeRoute>& rows,
                                              const nlohmann::json& document, const std::string& readme_name) {
  std::vector<std::string> out;
  std::set<std::string> operations;
  for (const auto& [path, item] : document["paths"].items())
    for (const auto& [method, op] : item.items()) {
      if (!op.is_object() || !op.contains("responses")) continue;  // "parameters" of the path item
      std::string key = method + " " + path;
      std::transform(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(method.size()), key.begin(), ::toupper);
      operations.insert(key);
      const std::string access = op.value("x-access", "");
      const auto row = rows.find(key);
      if (row == rows.end()) {
        out.push_back(key + " (" + access + ") has no row in " + readme_name);
        continue;
      }
      if (row->second.access != access)
        out.push_back(key + ": " + readme_name + " says " + row->second.access + ", the route declares " + access);
      for (const auto& status : row->second.statuses)
        if (!op["responses"].contains(status))
          out.push_back(key + ": " + readme_name + " names **" + status + "**, which its API description does not");
    }
  for (const auto& [key, row] : rows)
    if (!operations.contains(key)) out.push_back(key + " is in " + readme_name + " but not an operation");
  return out;
}

}  // namespace core::testing
