// The mobile lists' query strings (ops_console/dashboard/list_query.hpp), from the raw query: what
// is accepted meets the documented limits (a limit of 1-25, statuses and priorities and the queue
// in 0..INT32_MAX, at least one status, a search of 1-200 characters, trimmed and valid UTF-8, a
// cursor with an id of 1 or more); anything else is a Problem 400 naming the parameters.
#include "core/http/problem.hpp"
#include "core/http/query.hpp"
#include "core/util/strings.hpp"
#include "ops_console/dashboard/list_query.hpp"

#include <cstdint>
#include <cstdlib>

namespace {

void check_page(const ops_console::dashboard::Page& page) {
  if (page.limit < 1 || page.limit > ops_console::dashboard::kPageSize) std::abort();
  if (page.after && page.after->id < 1) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  const auto query = core::http::parse_query(raw);
  if (!query) return 0;  // the server's 400 for a malformed percent-escape
  try {
    const auto q = ops_console::dashboard::read_ticket_list_query(*query);
    if (q.statuses.empty()) std::abort();
    for (const auto& list : {q.statuses, q.priorities})
      for (const auto v : list)
        if (v < 0 || v > INT32_MAX) std::abort();
    if (q.queue && (*q.queue < 0 || *q.queue > INT32_MAX)) std::abort();
    if (q.search) {
      std::size_t characters = 0;
      for (const unsigned char c : *q.search) characters += (c & 0xC0) != 0x80;
      if (characters < 1 || characters > ops_console::dashboard::kMaxSearchLength) std::abort();
      if (core::trim(*q.search) != *q.search || !core::valid_utf8(*q.search)) std::abort();
    }
    check_page(q.page);
  } catch (const core::http::Problem& p) {
    if (p.errors().empty()) std::abort();
  }
  try {
    check_page(ops_console::dashboard::read_page_query(*query));
  } catch (const core::http::Problem& p) {
    if (p.errors().empty()) std::abort();
  }
  return 0;
}
