#include "sandbox/autotask_filter.hpp"

#include "core/util/strings.hpp"
#include "core/util/time.hpp"

#include <cmath>
#include <optional>
#include <variant>

namespace sandbox::autotask {

using nlohmann::json;

namespace {

constexpr int kMaxDepth = 32;

enum class Op { eq, noteq, gt, gte, lt, lte, begins_with, ends_with, contains, exist, not_exist, in, not_in, all, any };

std::optional<Op> op_named(std::string_view name) {
  static const std::pair<std::string_view, Op> kOps[] = {{"eq", Op::eq},
                                                         {"noteq", Op::noteq},
                                                         {"gt", Op::gt},
                                                         {"gte", Op::gte},
                                                         {"lt", Op::lt},
                                                         {"lte", Op::lte},
                                                         {"beginsWith", Op::begins_with},
                                                         {"endsWith", Op::ends_with},
                                                         {"contains", Op::contains},
                                                         {"exist", Op::exist},
                                                         {"notExist", Op::not_exist},
                                                         {"in", Op::in},
                                                         {"notIn", Op::not_in},
                                                         {"and", Op::all},
                                                         {"or", Op::any}};
  for (const auto& [n, op] : kOps)
    if (core::iequals(n, name)) return op;
  return std::nullopt;
}

// One value of a field's type; strings are kept lowercased (Autotask's collation ignores case).
using Value = std::variant<std::int64_t, double, bool, std::string, core::Timestamp>;

std::optional<core::Timestamp> parse_date_time(std::string text) {
  if (text.size() == 10) text += "T00:00:00Z";  // a bare date: its midnight
  if (auto t = core::parse_rfc3339(text)) return t;
  return core::parse_rfc3339(text + "Z");  // no offset: UTC
}

// `v` as a value of `field`'s type, or nullopt when it is not one.
std::optional<Value> typed(const json& v, const FieldSchema& field) {
  switch (field.type) {
    case FieldType::integer:
    case FieldType::long_integer: {
      if (v.is_number_integer()) return v.get<std::int64_t>();
      if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())
        return static_cast<std::int64_t>(v.get<double>());
      if (v.is_boolean()) return std::int64_t{v.get<bool>() ? 1 : 0};
      if (v.is_string())
        if (const auto n = core::parse_int64(core::trim(v.get_ref<const std::string&>()))) return *n;
      return std::nullopt;
    }
    case FieldType::decimal: {
      if (v.is_number()) return v.get<double>();
      if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && end == s.c_str() + s.size()) return d;
      }
      return std::nullopt;
    }
    case FieldType::boolean: {
      // Autotask takes true or false only ("any other values ... will return an error").
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_string() && core::iequals(v.get_ref<const std::string&>(), "true")) return true;
      if (v.is_string() && core::iequals(v.get_ref<const std::string&>(), "false")) return false;
      return std::nullopt;
    }
    case FieldType::string: {
      if (v.is_string()) return core::to_lower(v.get_ref<const std::string&>());
      if (v.is_number() || v.is_boolean()) return core::to_lower(v.dump());
      return std::nullopt;
    }
    case FieldType::date_time: {
      if (!v.is_string()) return std::nullopt;
      if (auto t = parse_date_time(v.get<std::string>())) return *t;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

int compare(const Value& a, const Value& b) {
  return std::visit(
      [&](const auto& x) -> int {
        using X = std::decay_t<decltype(x)>;
        const auto& y = std::get<X>(b);
        return x < y ? -1 : (y < x ? 1 : 0);
      },
      a);
}

}  // namespace

struct Filter::Node {
  Op op = Op::all;
  const FieldSchema* field = nullptr;
  std::vector<Value> values;
  std::vector<std::unique_ptr<Node>> items;  // for and/or

  bool test(const json& row) const {
    if (op == Op::all) {
      for (const auto& item : items)
        if (!item->test(row)) return false;
      return true;
    }
    if (op == Op::any) {
      if (items.empty()) return true;  // every condition was dropped: no restriction left
      for (const auto& item : items)
        if (item->test(row)) return true;
      return false;
    }
    const auto it = row.find(field->name);
    const bool null = it == row.end() || it->is_null();
    if (op == Op::exist) return !null;
    if (op == Op::not_exist) return null;
    if (null) return false;  // SQL: a comparison with NULL is never true
    const auto value = typed(*it, *field);
    if (!value) return false;
    switch (op) {
      case Op::eq:
        return compare(*value, values[0]) == 0;
      case Op::noteq:
        return compare(*value, values[0]) != 0;
      case Op::gt:
        return compare(*value, values[0]) > 0;
      case Op::gte:
        return compare(*value, values[0]) >= 0;
      case Op::lt:
        return compare(*value, values[0]) < 0;
      case Op::lte:
        return compare(*value, values[0]) <= 0;
      case Op::begins_with:
        return std::get<std::string>(*value).starts_with(std::get<std::string>(values[0]));
      case Op::ends_with:
        return std::get<std::string>(*value).ends_with(std::get<std::string>(values[0]));
      case Op::contains:
        return std::get<std::string>(*value).find(std::get<std::string>(values[0])) != std::string::npos;
      case Op::in:
      case Op::not_in: {
        bool found = false;
        for (const auto& v : values) found = found || compare(*value, v) == 0;
        return op == Op::in ? found : !found;
      }
      default:
        return false;
    }
  }
};

namespace {

const json* key_of(const json& object, std::string_view key) { return find_key(object, key); }

std::unique_ptr<Filter::Node> parse_node(const json& item, const EntitySchema& entity, int depth);

void parse_items(const json& items, const EntitySchema& entity, int depth, Filter::Node& group) {
  if (!items.is_array()) throw QueryError{"A filter group's items must be an array."};
  if (depth > kMaxDepth) throw QueryError{"The filter is nested too deeply."};
  for (const auto& item : items)
    if (auto node = parse_node(item, entity, depth)) group.items.push_back(std::move(node));
}

std::string op_text(const json& item) {
  const json* op = key_of(item, "op");
  return op && op->is_string() ? op->get<std::string>() : std::string();
}

std::unique_ptr<Filter::Node> parse_node(const json& item, const EntitySchema& entity, int depth) {
  if (!item.is_object()) throw QueryError{"Each filter item must be a JSON object."};
  const auto op = op_named(op_text(item));
  if (!op) return nullptr;  // Autotask drops a condition whose operator it does not know
  auto node = std::make_unique<Filter::Node>();
  node->op = *op;
  if (*op == Op::all || *op == Op::any) {
    const json* items = key_of(item, "items");
    if (!items) throw QueryError{"The '" + op_text(item) + "' filter group needs items."};
    parse_items(*items, entity, depth + 1, *node);
    return node;
  }
  const json* field = key_of(item, "field");
  if (!field || !field->is_string() || field->get<std::string>().empty())
    throw QueryError{"Each filter condition needs a field."};
  const std::string name = field->get<std::string>();
  const json* udf = key_of(item, "udf");
  node->field = udf && udf->is_boolean() && udf->get<bool>() ? nullptr : entity.field(name);
  if (!node->field) throw QueryError{"Unable to find " + name + " in the " + entity.singular + " Entity."};
  if (*op == Op::exist || *op == Op::not_exist) return node;

  const json* value = key_of(item, "value");
  const auto bad_value = [&](const json& v) {
    return QueryError{"Value " + v.dump() + " is not valid for field " + node->field->name + " (" +
                      std::string(type_name(node->field->type)) + ")."};
  };
  if (!value) throw QueryError{"The filter condition on " + name + " needs a value."};
  if (*op == Op::in || *op == Op::not_in) {
    if (!value->is_array() || value->empty())
      throw QueryError{"The '" + op_text(item) + "' condition on " + name + " needs an array of values."};
    for (const auto& v : *value) {
      auto t = typed(v, *node->field);
      if (!t) throw bad_value(v);
      node->values.push_back(std::move(*t));
    }
    return node;
  }
  if ((*op == Op::begins_with || *op == Op::ends_with || *op == Op::contains) && node->field->type != FieldType::string)
    throw QueryError{"The '" + op_text(item) + "' operator needs a string field; " + node->field->name + " is " +
                     std::string(type_name(node->field->type)) + "."};
  auto t = typed(*value, *node->field);
  if (!t) throw bad_value(*value);
  node->values.push_back(std::move(*t));
  return node;
}

}  // namespace

Filter::Filter() = default;
Filter::~Filter() = default;
Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;

bool Filter::matches(const json& row) const { return !root_ || root_->test(row); }

Filter parse_filter(const json& filter, const EntitySchema& entity) {
  Filter f;
  f.root_ = std::make_unique<Filter::Node>();
  if (filter.is_null()) return f;
  parse_items(filter, entity, 0, *f.root_);
  return f;
}

const json* find_key(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  if (const auto it = object.find(key); it != object.end()) return &*it;
  for (auto it = object.begin(); it != object.end(); ++it)
    if (core::iequals(it.key(), key)) return &it.value();
  return nullptr;
}

}  // namespace sandbox::autotask
