#pragma once
// A page of a Cloudflare API v4 list, read without I/O (the client, ./cloudflare.hpp, uses it;
// fuzz/fuzz_cloudflare_page.cpp fuzzes it): the envelope {success, errors, messages, result,
// result_info: {page, per_page, count, total_count, total_pages}}.
#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

namespace ops_console::access_gateway {

// The page's `result` array and its page count (1 when result_info.total_pages is absent or not an
// integer). Nothing unless the body is an object with `success: true` and a `result` array.
struct CloudflarePage {
  nlohmann::json result;
  int total_pages = 1;
};
std::optional<CloudflarePage> parse_cloudflare_page(std::string_view body);

}  // namespace ops_console::access_gateway
