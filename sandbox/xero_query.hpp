#pragma once
// The query parts of Xero's Accounting API GETs, for the Xero fake: the `where` filter, `order` and
// the If-Modified-Since header. Pure.
//
// `where` is a subset of the .NET expression syntax Xero evaluates (developer.xero.com, "Retrieving
// data": `Type=="ACCREC"`, `Status=="AUTHORISED" AND Type=="ACCREC"`,
// `Contact.ContactID==Guid("…")`, `Date>=DateTime(2026,01,01)`, `AmountDue>0`,
// `Name.Contains("Dental")`, `EmailAddress!=null`, `IsCustomer==true`). Supported:
//   - comparisons == (also =), != (also <>), >, >=, <, <= of a field and a literal: a "string",
//     a number, true, false, null, Guid("…"), DateTime(y,m,d[,h,m,s]) (UTC);
//   - a field by its name, case-insensitive, dotted into objects (Contact.Name); a field Xero's
//     entity does not have is the QueryParseException Xero answers;
//   - .Contains("…"), .StartsWith("…"), .EndsWith("…") on a string field, after an optional
//     .ToLower() or .ToUpper();
//   - AND / &&, OR / ||, NOT / !, parentheses; AND binds tighter than OR.
// Dates in rows are Xero's "/Date(ms+0000)/" and compare with DateTime literals by the moment; Guid
// literals compare case-insensitively; other strings exactly.
//
// `order`: "Field [ASC|DESC]", comma-separated, on the same fields.
//
// If-Modified-Since: ISO 8601 ("2026-02-06T12:17:43.202-08:00", or without an offset, UTC, as Xero
// documents "2009-11-12T00:00:00") or an HTTP-date ("Fri, 06 Feb 2026 20:17:43 GMT", as pyxero sends).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::xero {

// What Xero answers a `where` or `order` it cannot use with: a 400, ErrorNumber 16.
struct QueryParseError {
  std::string message;
};

class Where {
 public:
  Where();
  ~Where();
  Where(Where&&) noexcept;
  Where& operator=(Where&&) noexcept;
  bool matches(const nlohmann::json& row) const;  // an empty Where matches everything
  struct Node;

 private:
  friend Where parse_where(std::string_view, std::string_view, const std::set<std::string>&);
  std::unique_ptr<Node> root_;
};

// `entity` names the type in messages ("Invoice"); `fields` are its top-level field names.
Where parse_where(std::string_view text, std::string_view entity, const std::set<std::string>& fields);

struct OrderKey {
  std::string field;
  bool descending = false;
};
std::vector<OrderKey> parse_order(std::string_view text, std::string_view entity, const std::set<std::string>& fields);
// Sorts `rows` (stable) by `keys`; rows missing a field sort first.
void sort_rows(std::vector<const nlohmann::json*>& rows, const std::vector<OrderKey>& keys);

// Milliseconds since the epoch of an If-Modified-Since value; nullopt when it is neither form.
std::optional<std::int64_t> parse_if_modified_since(std::string_view value);

// A member of `row` by name, case-insensitively; nullptr when there is none.
const nlohmann::json* find_member(const nlohmann::json& row, std::string_view name);

}  // namespace sandbox::xero
