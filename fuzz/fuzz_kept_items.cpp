// A vendor's list through core::json::kept_items: it refuses exactly what is not a JSON list, and
// what it keeps parses to the list read whole and then trimmed.
#include "core/json/kept.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace {

bool named(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

nlohmann::json only(const nlohmann::json& object, const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : object.items())
    if (named(names, k)) out[k] = v;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const core::json::Kept kept{.fields = {"id", "name", "sites"}, .nested = {"id", "name"}};
  const auto out = core::json::kept_items(text, kept);
  auto whole = nlohmann::json::parse(text, nullptr, false);
  if (whole.is_discarded() || !whole.is_array()) {
    if (out) std::abort();
    return 0;
  }
  if (!out) std::abort();
  for (auto& item : whole) {
    if (!item.is_object()) continue;
    item = only(item, kept.fields);
    for (auto& [k, v] : item.items())
      if (v.is_array())
        for (auto& o : v)
          if (o.is_object()) o = only(o, kept.nested);
  }
  const auto again = nlohmann::json::parse(*out, nullptr, false);
  if (again.is_discarded() || again != whole) std::abort();
  return 0;
}
