// Query strings and percent-decoding: never crash, and a parsed query's values round-trip.
#include "core/http/query.hpp"
#include "core/util/strings.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto [path, raw] = core::http::split_target(text);
  if (path.size() + raw.size() > text.size()) std::abort();
  if (auto q = core::http::parse_query(raw)) {
    for (const auto& [name, value] : q->items()) {
      if (!q->get(name)) std::abort();
      (void)value;
    }
  }
  (void)core::url_decode(text, false);
  return 0;
}
