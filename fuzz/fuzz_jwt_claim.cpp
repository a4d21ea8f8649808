// Access tokens from the accounting identity service: a claim is read from whatever arrives,
// never crashing, and only a string comes back.
#include "ops_console/accounting/oauth.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto claim = ops_console::accounting::jwt_claim(text, "authentication_event_id");
  if (claim && claim->size() > size) std::abort();  // a claim is never longer than the token
  return 0;
}
