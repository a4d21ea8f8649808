// Retry-After values from untrusted servers: never crash, never a negative delay, never more than
// a year.
#include "core/http/retry_after.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto d = core::http::parse_retry_after(text, std::chrono::system_clock::now());
  if (d && (d->count() < 0 || *d > std::chrono::seconds(core::http::kMaxRetryAfterSeconds))) std::abort();
  return 0;
}
