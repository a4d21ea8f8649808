#include "ops_console/dashboard/list_query.hpp"

#include "core/json/validate.hpp"

#include <algorithm>
#include <cstdint>

namespace ops_console::dashboard {

namespace {

Page read_page(core::json::QueryReader& in) {
  Page page;
  page.limit = std::min(in.integer("limit", kPageSize, {.min = 1}), kPageSize);
  if (const auto text = in.optional_string("cursor", {.trim = false})) {
    page.after = decode_cursor(*text);
    if (!page.after) in.add("cursor", "is not a cursor this list gave out");
  }
  return page;
}

}  // namespace

Page read_page_query(const core::http::Query& query) {
  core::json::QueryReader in(query);
  Page page = read_page(in);
  in.finish();
  return page;
}

TicketListQuery read_ticket_list_query(const core::http::Query& query) {
  core::json::QueryReader in(query);
  TicketListQuery q;
  q.statuses = in.integers("status", {.min = 0, .max = INT32_MAX});
  q.priorities = in.integers("priority", {.min = 0, .max = INT32_MAX});
  q.queue = in.optional_integer("queue", {.min = 0, .max = INT32_MAX});
  q.mine = in.boolean("mine", false);
  q.search = in.optional_string("search", {.min_length = 1, .max_length = kMaxSearchLength});
  q.page = read_page(in);
  in.finish();
  if (q.statuses.empty()) q.statuses = {1, 8, 7};
  return q;
}

}  // namespace ops_console::dashboard
