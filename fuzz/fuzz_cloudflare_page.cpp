// A page of a Cloudflare API v4 list (ops_console/access_gateway/page.hpp): any body is read without
// an exception; it is accepted exactly when it is an object with `success: true` and a `result`
// array, and then the result is that array and the page count result_info.total_pages (or 1).
#include "ops_console/access_gateway/page.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using nlohmann::json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto page = ops_console::access_gateway::parse_cloudflare_page(text);
  const auto whole = json::parse(text, nullptr, false);
  const bool shaped = whole.is_object() && whole.contains("success") && whole["success"].is_boolean() &&
                      whole["success"].get<bool>() && whole.contains("result") && whole["result"].is_array();
  if (page.has_value() != shaped) std::abort();
  if (!page) return 0;
  if (page->result != whole["result"]) std::abort();
  int pages = 1;
  if (whole.contains("result_info") && whole["result_info"].is_object() &&
      whole["result_info"].contains("total_pages") && whole["result_info"]["total_pages"].is_number_integer())
    pages = whole["result_info"]["total_pages"].get<int>();
  if (page->total_pages != pages) std::abort();
  return 0;
}
