#include "ops_console/dashboard/cursor.hpp"

#include "core/util/digest.hpp"

#include <nlohmann/json.hpp>

namespace ops_console::dashboard {

std::string Cursor::key() const { return at ? core::format_rfc3339(*at) : "-infinity"; }

std::string encode_cursor(const Cursor& cursor) {
  const nlohmann::json doc{{"at", cursor.at ? nlohmann::json(core::format_rfc3339(*cursor.at)) : nlohmann::json()},
                           {"id", cursor.id}};
  return core::base64url(doc.dump());
}

std::optional<Cursor> decode_cursor(std::string_view text) {
  if (text.empty() || text.size() > kMaxCursorLength) return std::nullopt;
  const auto bytes = core::from_base64url(text);
  if (!bytes) return std::nullopt;
  const auto doc = nlohmann::json::parse(*bytes, nullptr, false);
  if (!doc.is_object() || doc.size() != 2 || !doc.contains("at") || !doc.contains("id")) return std::nullopt;
  const auto& id = doc["id"];
  const auto& at = doc["at"];
  if (!id.is_number_integer() || id.get<std::int64_t>() < 1) return std::nullopt;
  Cursor cursor{.id = id.get<std::int64_t>()};
  if (at.is_string()) {
    cursor.at = core::parse_rfc3339(at.get_ref<const std::string&>());
    if (!cursor.at) return std::nullopt;
  } else if (!at.is_null()) {
    return std::nullopt;
  }
  // Only what encode_cursor() writes: no other spelling of the same value, no trailing bytes.
  if (encode_cursor(cursor) != text) return std::nullopt;
  return cursor;
}

std::optional<Cursor> cursor_after(const std::optional<std::string>& at, std::int64_t id) {
  Cursor cursor{.id = id};
  if (at) {
    cursor.at = core::parse_rfc3339(*at);
    if (!cursor.at) return std::nullopt;
  }
  return cursor;
}

}  // namespace ops_console::dashboard
