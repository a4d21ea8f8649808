#include "core/json/schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace core::json {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxDepth = 64;       // schema levels followed
constexpr std::size_t kMaxKeyChars = 64;    // a property name from the value, in a message
constexpr std::size_t kMaxEnumListed = 10;  // enum values named in a message

bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Characters, not bytes: every byte but a UTF-8 continuation byte starts one.
std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), starts_code_point));
}

// `s` cut to `n` characters, with "…" when it was longer.
std::string cut(std::string_view s, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (starts_code_point(s[i]) && count++ == n) return std::string(s.substr(0, i)) + "\u2026";
  return std::string(s);
}

// One reference token of a JSON pointer (RFC 6901).
std::string pointer_token(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string shown(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string plural(std::int64_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

const char* type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "invalid value";
  }
}

std::string with_article(std::string_view type) {
  if (type == "null") return "null";
  const bool vowel = !type.empty() && std::string_view("aeiou").find(type.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(type);
}

bool has_type(const json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && d == std::floor(d);  // 2.0 is an integer in JSON Schema
  }
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return false;  // a type name we do not know matches nothing
}

// a <=> b for two integers of either signedness, exactly.
int compare_integers(const json& a, const json& b) {
  const bool au = a.is_number_unsigned(), bu = b.is_number_unsigned();
  if (!au && !bu) {
    const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
    return (x > y) - (x < y);
  }
  if (au && bu) {
    const auto x = a.get<std::uint64_t>(), y = b.get<std::uint64_t>();
    return (x > y) - (x < y);
  }
  if (!au) return -compare_integers(b, a);
  const auto y = b.get<std::int64_t>();
  if (y < 0) return 1;
  const auto x = a.get<std::uint64_t>();
  return (x > static_cast<std::uint64_t>(y)) - (x < static_cast<std::uint64_t>(y));
}

// a <=> b for two JSON numbers: exact when both are integers.
int compare_numbers(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) return compare_integers(a, b);
  const double x = a.get<double>(), y = b.get<double>();
  return (x > y) - (x < y);
}

// A non-negative count keyword (minLength, maxItems, ...); nullopt when absent or not one.
std::optional<std::int64_t> count_keyword(const json& schema, const char* name) {
  const auto it = schema.find(name);
  if (it == schema.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned())
    return static_cast<std::int64_t>(std::min<std::uint64_t>(it->get<std::uint64_t>(), INT64_MAX));
  const auto n = it->get<std::int64_t>();
  return n < 0 ? std::nullopt : std::optional<std::int64_t>(n);
}

class Walker {
 public:
  Walker(std::size_t max_errors, const json* root) : max_(std::max<std::size_t>(max_errors, 1)), root_(root) {}

  std::vector<std::string> take() { return std::move(errors_); }

  // `path` is the value's JSON pointer; it is extended for children and restored after.
  void check(const json& schema, const json& value, std::string& path, std::size_t depth) {
    if (full()) return;
    if (depth > kMaxDepth) {
      add(path, "the schema is nested deeper than " + std::to_string(kMaxDepth) + " levels; not checked further");
      return;
    }
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) add(path, "is not allowed");
      return;
    }
    if (!schema.is_object()) return;  // not a schema: nothing it forbids
    if (!check_composition(schema, value, path, depth)) return;
    if (!type_matches(schema, value, path)) return;
    if (const auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
      if (std::find(e->begin(), e->end(), value) == e->end()) {
        std::string listed;
        std::size_t n = 0;
        for (const auto& allowed : *e) {
          if (n++ == kMaxEnumListed) {
            listed += ", ...";
            break;
          }
          listed += (listed.empty() ? "" : ", ") + shown(allowed);
        }
        add(path, "must be one of " + listed);
      }
    }
    if (const auto c = schema.find("const"); c != schema.end() && value != *c) add(path, "must be " + shown(*c));

    if (value.is_string())
      check_string(schema, value.get_ref<const std::string&>(), path);
    else if (value.is_number())
      check_number(schema, value, path);
    else if (value.is_array())
      check_array(schema, value, path, depth);
    else if (value.is_object())
      check_object(schema, value, path, depth);
  }

 private:
  bool full() const { return errors_.size() >= max_; }

  // $ref (a JSON pointer into the root document: "#/components/schemas/Problem"), allOf, anyOf
  // and oneOf; false when the value failed one, so that the rest of the schema is not checked
  // against a value already said to be wrong.
  bool check_composition(const json& schema, const json& value, std::string& path, std::size_t depth) {
    const auto before = errors_.size();
    if (const auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
      const json* target = resolve(ref->get_ref<const std::string&>());
      if (!target) {
        add(path, "the schema's $ref " + cut(ref->get_ref<const std::string&>(), kMaxKeyChars) + " names nothing");
        return false;
      }
      check(*target, value, path, depth + 1);
    }
    if (const auto all = schema.find("allOf"); all != schema.end() && all->is_array())
      for (const auto& sub : *all) check(sub, value, path, depth + 1);
    if (const auto any = schema.find("anyOf"); any != schema.end() && any->is_array() && !any->empty())
      alternatives(*any, value, path, depth, false);
    if (const auto one = schema.find("oneOf"); one != schema.end() && one->is_array() && !one->empty())
      alternatives(*one, value, path, depth, true);
    return errors_.size() == before;
  }

  // anyOf (at least one alternative holds) or oneOf (exactly one): when none holds, the messages
  // of the alternative that came closest, after a line saying so.
  void alternatives(const json& list, const json& value, std::string& path, std::size_t depth, bool exactly_one) {
    std::size_t holding = 0;
    std::vector<std::string> closest;
    std::size_t closest_distance = SIZE_MAX;
    // An alternative of another type than the value is farther than any that only differs inside.
    const std::string wrong_type = (path.empty() ? "/" : path) + ": must be ";
    for (const auto& sub : list) {
      Walker trial(max_, root_);
      std::string at = path;
      trial.check(sub, value, at, depth + 1);
      auto errors = trial.take();
      if (errors.empty()) {
        ++holding;
        continue;
      }
      const bool other_type =
          errors.size() == 1 && errors[0].starts_with(wrong_type) && errors[0].find(", not ") != std::string::npos;
      const std::size_t distance = errors.size() + (other_type ? max_ : 0);
      if (distance < closest_distance) {
        closest = std::move(errors);
        closest_distance = distance;
      }
    }
    if (holding == 0) {
      add(path, "matches none of the " + std::to_string(list.size()) + " alternatives; the closest says:");
      for (const auto& e : closest) add(path, "  " + e);
    } else if (exactly_one && holding > 1) {
      add(path, "matches " + std::to_string(holding) + " of the alternatives, where exactly one must");
    }
  }

  const json* resolve(const std::string& ref) const {
    if (!root_ || ref.empty() || ref[0] != '#') return nullptr;
    try {
      const json::json_pointer pointer(ref.substr(1));
      return root_->contains(pointer) ? &root_->at(pointer) : nullptr;
    } catch (const json::exception&) {
      return nullptr;  // not a JSON pointer
    }
  }

  void add(const std::string& path, const std::string& message) {
    if (!full()) errors_.push_back((path.empty() ? "/" : path) + ": " + message);
  }

  // false (with a message) when `type` names types and the value is none of them.
  bool type_matches(const json& schema, const json& value, const std::string& path) {
    const auto t = schema.find("type");
    if (t == schema.end()) return true;
    std::vector<std::string> types;
    if (t->is_string())
      types.push_back(t->get<std::string>());
    else if (t->is_array())
      for (const auto& one : *t)
        if (one.is_string()) types.push_back(one.get<std::string>());
    if (types.empty()) return true;  // not a type keyword we can read
    if (std::any_of(types.begin(), types.end(), [&](const std::string& one) { return has_type(value, one); }))
      return true;
    std::string expected;
    for (const auto& one : types) expected += (expected.empty() ? "" : " or ") + with_article(one);
    add(path, "must be " + expected + ", not " + with_article(type_of(value)));
    return false;
  }

  void check_string(const json& schema, const std::string& s, const std::string& path) {
    const auto min = count_keyword(schema, "minLength");
    const auto max = count_keyword(schema, "maxLength");
    if (!min && !max) return;
    const auto length = static_cast<std::int64_t>(code_points(s));
    if (min && length < *min)
      add(path, *min == 1 ? "must not be empty" : "is shorter than " + plural(*min, "character"));
    if (max && length > *max) add(path, "is longer than " + plural(*max, "character"));
  }

  void check_number(const json& schema, const json& value, const std::string& path) {
    if (const auto m = schema.find("minimum"); m != schema.end() && m->is_number() && compare_numbers(value, *m) < 0)
      add(path, "must be at least " + shown(*m));
    if (const auto m = schema.find("maximum"); m != schema.end() && m->is_number() && compare_numbers(value, *m) > 0)
      add(path, "must be at most " + shown(*m));
  }

  void check_array(const json& schema, const json& value, std::string& path, std::size_t depth) {
    const auto size = static_cast<std::int64_t>(value.size());
    if (const auto min = count_keyword(schema, "minItems"); min && size < *min)
      add(path, "has " + plural(size, "item") + ", at least " + std::to_string(*min) + " required");
    if (const auto max = count_keyword(schema, "maxItems"); max && size > *max)
      add(path, "has " + plural(size, "item") + ", at most " + std::to_string(*max) + " allowed");
    const auto items = schema.find("items");
    if (items == schema.end() || !(items->is_object() || items->is_boolean())) return;
    const auto length = path.size();
    for (std::size_t i = 0; i < value.size() && !full(); ++i) {
      path += "/" + std::to_string(i);
      check(*items, value[i], path, depth + 1);
      path.resize(length);
    }
  }

  void check_object(const json& schema, const json& value, std::string& path, std::size_t depth) {
    const auto length = path.size();
    if (const auto required = schema.find("required"); required != schema.end() && required->is_array())
      for (const auto& name : *required)
        if (name.is_string() && !value.contains(name.get<std::string>()))
          add(path + "/" + pointer_token(name.get<std::string>()), "is required");
    const auto properties = schema.find("properties");
    const bool has_properties = properties != schema.end() && properties->is_object();
    if (has_properties)
      for (const auto& [name, sub] : properties->items()) {
        if (full()) return;
        const auto it = value.find(name);
        if (it == value.end()) continue;
        path += "/" + pointer_token(name);
        check(sub, *it, path, depth + 1);
        path.resize(length);
      }
    const auto additional = schema.find("additionalProperties");
    if (additional == schema.end() || !(additional->is_object() || additional->is_boolean())) return;
    for (const auto& [name, v] : value.items()) {
      if (full()) return;
      if (has_properties && properties->contains(name)) continue;
      path += "/" + pointer_token(cut(name, kMaxKeyChars));
      check(*additional, v, path, depth + 1);
      path.resize(length);
    }
  }

  std::size_t max_;
  const json* root_;
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> schema_errors(const json& schema, const json& value, std::size_t max_errors,
                                       const json* root) {
  Walker walker(max_errors, root);
  std::string path;
  walker.check(schema, value, path, 0);
  return walker.take();
}

}  // namespace core::json
