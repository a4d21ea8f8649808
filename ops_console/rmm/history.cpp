#include "ops_console/rmm/history.hpp"

#include <limits>

namespace ops_console::rmm {

using nlohmann::json;

namespace {

// Members are looked up with find(): value() throws on a member of another type, and operator[]
// on a const object is undefined for a missing one.
const json* history_member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::int64_t history_id_of(const json& entry) {
  const json* id = history_member(entry, "id");
  return id && id->is_number_integer() ? id->get<std::int64_t>() : 0;
}

}  // namespace

std::optional<int> script_exit_code(const json& history, std::int64_t script_id) {
  if (!history.is_array()) return std::nullopt;
  const json* newest = nullptr;
  for (const auto& h : history) {
    const json* type = history_member(h, "type");
    const json* script = history_member(h, "script");
    if (!type || *type != "script_run" || !script || *script != script_id) continue;
    if (!newest || history_id_of(h) > history_id_of(*newest)) newest = &h;
  }
  if (!newest) return std::nullopt;
  const json* retcode = history_member(*newest, "script_results")
                            ? history_member(*history_member(*newest, "script_results"), "retcode")
                            : nullptr;
  if (!retcode || !retcode->is_number_integer()) return std::nullopt;
  if (retcode->is_number_unsigned()) {
    const auto v = retcode->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return std::nullopt;
    return static_cast<int>(v);
  }
  const auto v = retcode->get<std::int64_t>();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace ops_console::rmm
