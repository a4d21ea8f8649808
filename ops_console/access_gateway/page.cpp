#include "ops_console/access_gateway/page.hpp"

namespace ops_console::access_gateway {

using nlohmann::json;

std::optional<CloudflarePage> parse_cloudflare_page(std::string_view body) {
  auto parsed = json::parse(body, nullptr, false);
  // `success` is compared, not read with value(): a non-boolean one is a refusal, not a type_error.
  if (!parsed.is_object() || !parsed.contains("success") || parsed["success"] != true || !parsed.contains("result") ||
      !parsed["result"].is_array())
    return std::nullopt;
  CloudflarePage page{.result = std::move(parsed["result"])};
  if (parsed.contains("result_info") && parsed["result_info"].is_object()) {
    const auto& info = parsed["result_info"];
    if (info.contains("total_pages") && info["total_pages"].is_number_integer())
      page.total_pages = info["total_pages"].get<int>();
  }
  return page;
}

}  // namespace ops_console::access_gateway
