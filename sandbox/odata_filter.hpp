#pragma once
// The Graph fake's $filter: clauses `<property> <op> <literal>` joined by `and`, the subset of
// OData that mail clients send for message lists (../shared/vendors.md). Pure, so it is fuzzed
// (fuzz/fuzz_odata_filter.cpp).
//
//   for (const auto& clause : parse_filter("isRead eq false and receivedDateTime ge 2026-11-01T00:00:00Z"))
//     tests.push_back(compile(clause));
//
// Properties: isRead (eq, ne; true, false), receivedDateTime (eq ne lt le gt ge; a
// DateTimeOffset), from/emailAddress/address and subject (eq, ne; a quoted string, '' for a quote,
// compared case-insensitively), internetMessageId (eq, ne; a quoted string, compared exactly: the
// remediation search for one message, `internetMessageId eq '<id@host>'`). Anything else throws
// FilterError with Graph's wording where it has one.
#include "sandbox/fake_message.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

struct FilterClause {
  std::string property, op, literal;
  bool quoted = false;  // the literal was a '...' string
};

struct FilterError {
  std::string message;
};

std::vector<FilterClause> parse_filter(std::string_view filter);
std::function<bool(const FakeMessage&)> compile(const FilterClause& clause);

}  // namespace sandbox
