// The mobile lists' opaque cursor (query `cursor`): never crash; whatever decodes re-encodes to a
// cursor that decodes to the same value.
#include "ops_console/dashboard/cursor.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto cursor = ops_console::dashboard::decode_cursor(text)) {
    if (cursor->id < 1 ||
        ops_console::dashboard::decode_cursor(ops_console::dashboard::encode_cursor(*cursor)) != cursor)
      std::abort();
  }
  return 0;
}
