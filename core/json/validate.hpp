#pragma once
// Reading untrusted input into typed values, collecting every problem before answering.
//
//   auto body = core::json::parse_object(req.body);          // 400 if not a JSON object
//   core::json::BodyReader in(body);
//   NewRule rule{
//     .email_address = in.string("email_address", {.max_length = 320, .check = is_email}),
//     .older_than_days = in.integer("older_than_days", {.min = 1, .max = 3650}),
//     .notes = in.optional_string("notes"),
//   };
//   in.finish();   // throws Problem 400 with errors: [{field, message}, ...] when anything was wrong
//
// Unknown fields are ignored. For partial updates, patch_*() tell "absent" from "null".
#include "core/http/problem.hpp"
#include "core/http/query.hpp"
#include "core/util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace core::json {

using core::Timestamp;

using nlohmann::json;

// Throws Problem 400 naming the byte where parsing failed, or saying the body is not an object.
json parse_object(std::string_view body);

struct StringRule {
  std::size_t min_length = 0;                   // after trimming; in characters (UTF-8 code points)
  std::size_t max_length = 10'000;              // in characters
  std::vector<std::string> one_of;              // when not empty, the value must be one of these
  std::function<bool(std::string_view)> check;  // extra rule, e.g. an e-mail shape
  std::string check_message = "is not valid";
  bool trim = true;
  bool lowercase = false;  // addresses and domains are stored lowercased
};

struct IntRule {
  std::int64_t min = INT64_MIN;
  std::int64_t max = INT64_MAX;
};

// A field of a partial update: absent (keep), null (clear), or a value.
template <class T>
struct Patch {
  bool present = false;
  std::optional<T> value;  // nullopt with present == true means null
  bool is_null() const { return present && !value; }
};

// Accumulates field errors shared by the body and query readers.
class Errors {
 public:
  void add(std::string field, std::string message) { errors_.push_back({std::move(field), std::move(message)}); }
  bool ok() const { return errors_.empty(); }
  const std::vector<http::FieldError>& list() const { return errors_; }
  // Throws Problem 400 listing all errors; the detail names the first one.
  void finish() const;

 protected:
  std::optional<std::string> check_string(const std::string& field, std::string value, const StringRule& rule);
  std::optional<std::int64_t> check_integer(const std::string& field, std::int64_t value, const IntRule& rule);

 private:
  std::vector<http::FieldError> errors_;
};

class BodyReader : public Errors {
 public:
  explicit BodyReader(const json& object, std::string prefix = "") : object_(object), prefix_(std::move(prefix)) {}

  // Required: absent or null is "is required". Wrong types: "must be a string" etc.
  std::string string(std::string_view field, const StringRule& rule = {});
  std::optional<std::string> optional_string(std::string_view field, const StringRule& rule = {});
  std::int64_t integer(std::string_view field, const IntRule& rule = {});
  std::optional<std::int64_t> optional_integer(std::string_view field, const IntRule& rule = {});
  double number(std::string_view field, double min, double max);
  bool boolean(std::string_view field);
  std::optional<bool> optional_boolean(std::string_view field);
  // An RFC 3339 date-time with offset (core/util/time.hpp).
  std::optional<Timestamp> optional_timestamp(std::string_view field);
  // An array of strings, each checked by `item`; absent or null gives an empty list unless required.
  std::vector<std::string> strings(std::string_view field, const StringRule& item = {}, std::size_t max_items = 1000,
                                   bool required = false);
  // An array of integers, each checked by `item`; likewise.
  std::vector<std::int64_t> integers(std::string_view field, const IntRule& item = {}, std::size_t max_items = 1000,
                                     bool required = false);

  Patch<std::string> patch_string(std::string_view field, const StringRule& rule = {}, bool nullable = true);
  Patch<std::int64_t> patch_integer(std::string_view field, const IntRule& rule = {}, bool nullable = false);
  Patch<bool> patch_boolean(std::string_view field);

  bool has(std::string_view field) const { return object_.contains(field); }

 private:
  const json* find(std::string_view field) const;
  // An array field: absent/null, not an array and too long are checked here, each item by `read`.
  template <class Item>
  std::vector<Item> array(std::string_view field, std::size_t max_items, bool required, std::string_view kind,
                          const std::function<std::optional<Item>(const std::string&, const json&)>& read);
  // Absent → not present; null → present and empty (an error unless `nullable`); else read().
  template <class T, class Read>
  Patch<T> patch(std::string_view field, bool nullable, Read read);
  std::string name(std::string_view field) const { return prefix_ + std::string(field); }
  const json& object_;
  std::string prefix_;
};

// Query-string parameters: a value that is present but malformed is an error naming it.
class QueryReader : public Errors {
 public:
  explicit QueryReader(const http::Query& query) : query_(query) {}

  std::int64_t integer(std::string_view name, std::int64_t fallback, const IntRule& rule = {});
  std::optional<std::int64_t> optional_integer(std::string_view name, const IntRule& rule = {});
  std::optional<std::string> optional_string(std::string_view name, const StringRule& rule = {});
  bool boolean(std::string_view name, bool fallback);
  // Repeated keys: `status=1&status=8` → both, each checked.
  std::vector<std::string> all(std::string_view name, const StringRule& rule = {});
  // Repeated integer keys: `status=1&status=8` → {1, 8}, each checked.
  std::vector<std::int64_t> integers(std::string_view name, const IntRule& rule = {});

 private:
  std::optional<std::string> query_string(const std::string& name, std::string_view value, const StringRule& rule);
  const http::Query& query_;
};

}  // namespace core::json
