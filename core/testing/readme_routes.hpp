#pragma once
// A service README's route tables, checked against the service's OpenAPI document (issue 35: "the
// README route tables come from the document or are checked against it"). Both services' tests
// use it, so the two READMEs follow one table format and one rule.
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace core::testing {

// A row of a route table, `| METHOD | `path` | access | what |`: its access (the route's declared
// access as `routes` prints it; "perm(resource, action)" kept whole, other parentheses are prose
// and dropped), and the statuses its "what" names in bold (**409**).
struct ReadmeRoute {
  std::string access;
  std::set<std::string> statuses;
};

// The rows of the README at `relative_path` (from the project's root), as "METHOD /path" → row.
// A query in the path is dropped, and so is a parameter's type ({rule_id:uuid} reads {rule_id}).
std::map<std::string, ReadmeRoute> readme_routes(const std::string& relative_path);

// Where the rows and the document disagree, one sentence each (empty: they agree): an operation
// without a row, a row whose access is not the operation's `x-access`, a bold status the
// operation does not document, a row that is not an operation.
std::vector<std::string> readme_disagreements(const std::map<std::string, ReadmeRoute>& rows,
                                              const nlohmann::json& document, const std::string& readme_name);

}  // namespace core::testing
