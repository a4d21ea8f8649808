#include "core/json/validate.hpp"

#include "core/util/strings.hpp"

#include <algorithm>
#include <cmath>

namespace core::json {

using http::Problem;

json parse_object(std::string_view body) {
  if (trim(body).empty()) throw Problem::bad_request("the request body is empty; a JSON object is expected");
  try {
    json j = json::parse(body);
    if (!j.is_object()) throw Problem::bad_request("the request body must be a JSON object");
    return j;
  } catch (const json::parse_error& e) {
    throw Problem::bad_request("the request body is not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception&) {
    // e.g. a number too large to represent (1E400)
    throw Problem::bad_request("the request body is not valid JSON (a value is out of range)");
  }
}

void Errors::finish() const {
  if (errors_.empty()) return;
  const auto& first = errors_.front();
  std::string detail = first.field + ": " + first.message;
  if (errors_.size() > 1) detail += " (and " + std::to_string(errors_.size() - 1) + " more)";
  throw Problem::bad_request(std::move(detail), errors_);
}

std::optional<std::string> Errors::check_string(const std::string& field, std::string value, const StringRule& rule) {
  if (rule.trim) value = std::string(trim(value));
  if (rule.lowercase) value = to_lower(value);
  // Characters, not bytes: the parsed JSON is valid UTF-8, so every byte but a continuation byte
  // starts one (PostgreSQL's length() counts the same).
  const auto characters = static_cast<std::size_t>(
      std::count_if(value.begin(), value.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  if (characters < rule.min_length) {
    add(field, rule.min_length == 1 ? "must not be empty"
                                    : "must be at least " + std::to_string(rule.min_length) + " characters");
    return std::nullopt;
  }
  if (characters > rule.max_length) {
    add(field, "must be at most " + std::to_string(rule.max_length) + " characters");
    return std::nullopt;
  }
  if (!rule.one_of.empty()) {
    bool found = false;
    for (const auto& v : rule.one_of) found = found || v == value;
    if (!found) {
      const std::string list = join(rule.one_of, ", ");
      add(field, "must be one of: " + list);
      return std::nullopt;
    }
  }
  if (rule.check && !rule.check(value)) {
    add(field, rule.check_message);
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> Errors::check_integer(const std::string& field, std::int64_t value, const IntRule& rule) {
  if (value < rule.min || value > rule.max) {
    if (rule.max == INT64_MAX)
      add(field, "must be at least " + std::to_string(rule.min));
    else if (rule.min == INT64_MIN)
      add(field, "must be at most " + std::to_string(rule.max));
    else
      add(field, "must be between " + std::to_string(rule.min) + " and " + std::to_string(rule.max));
    return std::nullopt;
  }
  return value;
}

// --- body ---------------------------------------------------------------------------------

const json* BodyReader::find(std::string_view field) const {
  const auto it = object_.find(field);
  return it == object_.end() ? nullptr : &*it;
}

namespace {

std::optional<std::int64_t> as_integer(const json& v) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return v.get<std::int64_t>();
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> BodyReader::optional_string(std::string_view field, const StringRule& rule) {
  const json* v = find(field);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    add(name(field), "must be a string");
    return std::nullopt;
  }
  return check_string(name(field), v->get<std::string>(), rule);
}

std::string BodyReader::string(std::string_view field, const StringRule& rule) {
  const json* v = find(field);
  if (!v || v->is_null()) {
    add(name(field), "is required");
    return {};
  }
  return optional_string(field, rule).value_or("");
}

std::optional<std::int64_t> BodyReader::optional_integer(std::string_view field, const IntRule& rule) {
  const json* v = find(field);
  if (!v || v->is_null()) return std::nullopt;
  const auto n = as_integer(*v);
  if (!n) {
    add(name(field), v->is_number() ? "must be a whole number within range" : "must be an integer");
    return std::nullopt;
  }
  return check_integer(name(field), *n, rule);
}

std::int64_t BodyReader::integer(std::string_view field, const IntRule& rule) {
  const json* v = find(field);
  if (!v || v->is_null()) {
    add(name(field), "is required");
    return 0;
  }
  return optional_integer(field, rule).value_or(0);
}

double BodyReader::number(std::string_view field, double min, double max) {
  const json* v = find(field);
  if (!v || v->is_null()) {
    add(name(field), "is required");
    return 0;
  }
  if (!v->is_number()) {
    add(name(field), "must be a number");
    return 0;
  }
  const double d = v->get<double>();
  if (!(d >= min && d <= max)) {
    add(name(field), "must be between " + json(min).dump() + " and " + json(max).dump());
    return 0;
  }
  return d;
}

std::optional<bool> BodyReader::optional_boolean(std::string_view field) {
  const json* v = find(field);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_boolean()) {
    add(name(field), "must be true or false");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<Timestamp> BodyReader::optional_timestamp(std::string_view field) {
  const json* v = find(field);
  if (!v || v->is_null()) return std::nullopt;
  const auto t = v->is_string() ? parse_rfc3339(v->get<std::string>()) : std::nullopt;
  if (!t) add(name(field), "must be an RFC 3339 date-time with offset, e.g. 2026-12-31T23:59:59Z");
  return t;
}

bool BodyReader::boolean(std::string_view field) {
  if (!find(field) || find(field)->is_null()) {
    add(name(field), "is required");
    return false;
  }
  return optional_boolean(field).value_or(false);
}

template <class Item>
std::vector<Item> BodyReader::array(std::string_view field, std::size_t max_items, bool required, std::string_view kind,
                                    const std::function<std::optional<Item>(const std::string&, const json&)>& read) {
  std::vector<Item> out;
  const json* v = find(field);
  if (!v || v->is_null()) {
    if (required) add(name(field), "is required");
    return out;
  }
  if (!v->is_array()) {
    add(name(field), "must be an array of " + std::string(kind));
    return out;
  }
  if (v->size() > max_items) {
    add(name(field), "must have at most " + std::to_string(max_items) + " items");
    return out;
  }
  for (std::size_t i = 0; i < v->size(); ++i)
    if (auto item = read(name(field) + "[" + std::to_string(i) + "]", (*v)[i])) out.push_back(std::move(*item));
  return out;
}

std::vector<std::string> BodyReader::strings(std::string_view field, const StringRule& item, std::size_t max_items,
                                             bool required) {
  return array<std::string>(field, max_items, required, "strings",
                            [&](const std::string& item_name, const json& v) -> std::optional<std::string> {
                              if (v.is_string()) return check_string(item_name, v.get<std::string>(), item);
                              add(item_name, "must be a string");
                              return std::nullopt;
                            });
}

std::vector<std::int64_t> BodyReader::integers(std::string_view field, const IntRule& item, std::size_t max_items,
                                               bool required) {
  return array<std::int64_t>(field, max_items, required, "integers",
                             [&](const std::string& item_name, const json& v) -> std::optional<std::int64_t> {
                               if (const auto n = as_integer(v)) return check_integer(item_name, *n, item);
                               add(item_name,
                                   v.is_number() ? "must be a whole number within range" : "must be an integer");
                               return std::nullopt;
                             });
}

template <class T, class Read>
Patch<T> BodyReader::patch(std::string_view field, bool nullable, Read read) {
  Patch<T> p;
  const json* v = find(field);
  if (!v) return p;
  p.present = true;
  if (v->is_null()) {
    if (!nullable) add(name(field), "must not be null");
    return p;
  }
  p.value = read();
  return p;
}

Patch<std::string> BodyReader::patch_string(std::string_view field, const StringRule& rule, bool nullable) {
  return patch<std::string>(field, nullable, [&] { return optional_string(field, rule); });
}

Patch<std::int64_t> BodyReader::patch_integer(std::string_view field, const IntRule& rule, bool nullable) {
  return patch<std::int64_t>(field, nullable, [&] { return optional_integer(field, rule); });
}

Patch<bool> BodyReader::patch_boolean(std::string_view field) {
  return patch<bool>(field, false, [&] { return optional_boolean(field); });
}

// --- query --------------------------------------------------------------------------------

std::optional<std::int64_t> QueryReader::optional_integer(std::string_view name, const IntRule& rule) {
  const auto v = query_.get(name);
  if (!v) return std::nullopt;
  const auto n = parse_int64(trim(*v));
  if (!n) {
    add(std::string(name), "must be an integer");
    return std::nullopt;
  }
  return check_integer(std::string(name), *n, rule);
}

std::int64_t QueryReader::integer(std::string_view name, std::int64_t fallback, const IntRule& rule) {
  return optional_integer(name, rule).value_or(fallback);
}

std::optional<std::string> QueryReader::optional_string(std::string_view name, const StringRule& rule) {
  const auto v = query_.get(name);
  if (!v) return std::nullopt;
  return query_string(std::string(name), *v, rule);
}

// A body's strings are valid UTF-8 (the JSON parser sees to it); a query's percent-escapes may
// decode to any bytes, which PostgreSQL's text refuses (a 500): a 400 here.
std::optional<std::string> QueryReader::query_string(const std::string& name, std::string_view value,
                                                     const StringRule& rule) {
  if (!valid_utf8(value)) {
    add(name, "must be valid UTF-8");
    return std::nullopt;
  }
  return check_string(name, std::string(value), rule);
}

bool QueryReader::boolean(std::string_view name, bool fallback) {
  const auto v = query_.get(name);
  if (!v) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  add(std::string(name), "must be true or false");
  return fallback;
}

std::vector<std::int64_t> QueryReader::integers(std::string_view name, const IntRule& rule) {
  std::vector<std::int64_t> out;
  for (auto v : query_.all(name)) {
    const auto n = parse_int64(trim(v));
    if (!n) {
      add(std::string(name), "must be an integer");
      continue;
    }
    if (auto checked = check_integer(std::string(name), *n, rule)) out.push_back(*checked);
  }
  return out;
}

std::vector<std::string> QueryReader::all(std::string_view name, const StringRule& rule) {
  std::vector<std::string> out;
  for (auto v : query_.all(name))
    if (auto s = query_string(std::string(name), v, rule)) out.push_back(std::move(*s));
  return out;
}

}  // namespace core::json
