#pragma once
// The opaque keyset cursor of the mobile lists (GET /api/mobile/tickets, /api/mobile/analyzer/feed):
// base64url (no padding) of the JSON {"at": <the last row's instant, or null>, "id": <its id>}.
// The lists order by the instant descending with nulls last, then id descending; the next page
// starts after (at, id). A cursor is outside input: decode_cursor() takes nothing but that exact
// shape, spelled as encode_cursor() spells it (at most kMaxCursorLength characters), and the
// route answers 400 for anything else.
#include "core/util/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ops_console::dashboard {

inline constexpr std::size_t kMaxCursorLength = 256;

struct Cursor {
  std::optional<core::Timestamp> at;  // nullopt: the row had no instant (it sorts last)
  std::int64_t id = 0;                // > 0

  // The sort key to bind as $n::timestamptz: the instant, or '-infinity' (what nulls sort as).
  std::string key() const;
  bool operator==(const Cursor&) const = default;
};

std::string encode_cursor(const Cursor& cursor);
std::optional<Cursor> decode_cursor(std::string_view text);

// A list row's key as the database renders it ("2026-11-23T10:00:00.5+00:00", or JSON null) and
// its id: the cursor of the page after it. nullopt when `at` does not parse (never, from
// PostgreSQL's own output).
std::optional<Cursor> cursor_after(const std::optional<std::string>& at, std::int64_t id);

}  // namespace ops_console::dashboard
