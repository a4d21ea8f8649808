#pragma once
// The mobile lists' query strings (GET /api/mobile/tickets and /api/mobile/analyzer/feed,
// ../api/mobile.hpp), read without I/O: the page (?limit=, ?cursor=) and the ticket filter
// (?status=&status=, ?priority=, ?queue=, ?mine=, ?search=). Used by the routes;
// fuzz/fuzz_list_query.cpp fuzzes it. A bad parameter throws the Problem 400 that lists them all.
#include "core/http/query.hpp"
#include "ops_console/dashboard/cursor.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ops_console::dashboard {

inline constexpr std::int64_t kPageSize = 25;         // the spec's default and cap, both lists
inline constexpr std::size_t kMaxSearchLength = 200;  // characters

// A page of a keyset list: ?limit= (1 or more; capped at kPageSize) and ?cursor= (decode_cursor).
struct Page {
  std::int64_t limit = kPageSize;
  std::optional<Cursor> after;
};

struct TicketListQuery {
  std::vector<std::int64_t> statuses;    // each 0..INT32_MAX; none given: the open ones (1, 8, 7)
  std::vector<std::int64_t> priorities;  // each 0..INT32_MAX; none: any
  std::optional<std::int64_t> queue;     // 0..INT32_MAX
  bool mine = false;
  std::optional<std::string> search;  // 1 to kMaxSearchLength characters, trimmed
  Page page;
};

// The analyzer feed's query: the page alone.
Page read_page_query(const core::http::Query& query);
TicketListQuery read_ticket_list_query(const core::http::Query& query);

}  // namespace ops_console::dashboard
