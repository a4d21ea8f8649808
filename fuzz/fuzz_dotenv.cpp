// .env files: either parsed into valid names or rejected with ConfigError, nothing else.
#include "core/config/config.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& [name, value] : core::config::parse_dotenv(text))
      if (name.empty() || name.find('=') != std::string::npos) std::abort();
  } catch (const core::config::ConfigError&) {
  }
  return 0;
}
