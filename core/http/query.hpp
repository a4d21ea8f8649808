#pragma once
// Query-string parsing: `a=1&status=1&status=8&q=%25x` → ordered (name, value) pairs,
// repeated keys kept. Pure; fuzzed by fuzz/fuzz_query.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::http {

class Query {
 public:
  Query() = default;
  explicit Query(std::vector<std::pair<std::string, std::string>> items) : items_(std::move(items)) {}

  // The first value of `name`, if present (an empty value `a=` is present and empty).
  std::optional<std::string_view> get(std::string_view name) const;
  // Every value of `name` in order: `status=1&status=8` → {"1", "8"}.
  std::vector<std::string_view> all(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }
  const auto& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// Returns nullopt when a name or value has a malformed percent-escape.
std::optional<Query> parse_query(std::string_view raw);

// Splits a request target into its path and raw query ("/a?b=1" → "/a", "b=1").
std::pair<std::string_view, std::string_view> split_target(std::string_view target);

}  // namespace core::http
