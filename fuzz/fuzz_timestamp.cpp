// RFC 3339 timestamps from request bodies: never crash; whatever parses re-renders to a valid date.
#include "core/util/time.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto t = core::parse_rfc3339(text)) {
    const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(*t)};
    if (!ymd.ok() || core::parse_rfc3339(core::format_rfc3339(*t)) != t) std::abort();
  }
  return 0;
}
