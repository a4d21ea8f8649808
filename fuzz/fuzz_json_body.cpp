// Request bodies through the validation helpers: a body is either read or rejected with a
// Problem 400 that names at least one field or the body itself; nothing else escapes.
#include "core/json/validate.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto body = core::json::parse_object(text);
    core::json::BodyReader in(body);
    (void)in.string("email_address", {.max_length = 320, .lowercase = true});
    (void)in.optional_integer("older_than_days", {.min = 1, .max = 3650});
    (void)in.strings("email_types", {.max_length = 64}, 50);
    (void)in.patch_boolean("is_active");
    (void)in.number("llm_confidence", 0.0, 1.0);
    in.finish();
  } catch (const core::http::Problem& p) {
    if (static_cast<int>(p.status()) != 400 || p.detail().empty()) std::abort();
  }
  return 0;
}
