#pragma once
// The Autotask fake's query filter: the `Filter` array of a REST query, evaluated against rows.
// Pure, so it is tested alone (tests/autotask_filter_test.cpp).
//
//   auto filter = parse_filter(body["Filter"], *find_entity("Tickets"));
//   if (filter.matches(row)) ...
//
// Conditions `{op, field, value}` with op eq, noteq, gt, gte, lt, lte, beginsWith, endsWith,
// contains, exist, notExist, in, notIn (value an array); groups `{op: "and"|"or", items: [...]}`,
// nested; the top-level array is an "and". As on Autotask (its SQL Server underneath):
//   - field names, operator names and the keys of a condition are case-insensitive;
//   - strings compare case-insensitively; dateTime fields compare as instants (a value without an
//     offset is UTC, a bare date is its midnight UTC); numbers given as strings are numbers;
//   - a condition on a null field is false, noteq and notIn included; exist/notExist test null;
//   - an unknown field is an error ("Unable to find <field> in the <Entity> Entity."), but an
//     unknown operator ("ne") drops its condition silently, so the query returns more than asked
//     (seen live: WYRE-AI/autotask-mcp#211). Clients must send Autotask's operator names.
#include "sandbox/autotask_schema.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace sandbox::autotask {

// A query Autotask refuses; the fake answers it as Autotask does ({"errors": [message]}, 500).
struct QueryError {
  std::string message;
};

class Filter {
 public:
  Filter();
  ~Filter();
  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;

  bool matches(const nlohmann::json& row) const;

  struct Node;

 private:
  friend Filter parse_filter(const nlohmann::json& filter, const EntitySchema& entity);
  std::unique_ptr<Node> root_;
};

// Throws QueryError for an unknown field, a value of the wrong type, a malformed condition or
// nesting deeper than 32 groups.
Filter parse_filter(const nlohmann::json& filter, const EntitySchema& entity);

// The value of `key` in a JSON object, its name compared case-insensitively (Autotask binds
// "Filter" and "filter" alike); nullptr when absent.
const nlohmann::json* find_key(const nlohmann::json& object, std::string_view key);

}  // namespace sandbox::autotask
